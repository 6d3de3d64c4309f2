/**
 * How soon V8 optimizes coreb's hot functions. Most commands finish in about a second, and with
 * V8's default tier-up budget (132 KiB of bytecode run between checks) its optimizing compiler
 * spends much of that second on its background threads compiling code that runs a few hundred
 * milliseconds. Measured on these 2-core machines, 8 runs each, CPU medians (user + sys):
 * `coreb eval` on the bundled sample 0.98 -> 0.64 s (wall 0.71 -> 0.57 s); BM25 on the whole
 * v202602 release 2.56 -> 2.23 s; `coreb metrics -q` at 5,000 queries x 1,000 (a parse loop of 5
 * million lines, optimized a little later) 2.19 -> 2.30 s, the one command measured slower.
 *
 * Applied once at the CLI's start on the V8 versions it was measured on (Node 20's V8 11.x, whose
 * tiers are Ignition, Sparkplug and TurboFan; later V8s add Maglev, tiered by other counters), and
 * never over a budget the user gave (`node --interrupt-budget=N`, or `COREB_V8_TIER_UP=default`
 * to keep V8's own).
 */
import { setFlagsFromString } from 'node:v8';

/** Bytecode run between tier-up checks (V8's `--interrupt-budget`), in bytes; V8's default is 132 KiB. */
export const CLI_INTERRUPT_BUDGET = 1_000_000;

/**
 * Whether the CLI sets its tier-up budget: on V8 11 (Node 20), unless the user chose one on node's
 * command line or asked for V8's default with `COREB_V8_TIER_UP=default`.
 */
export function wantsTierUpBudget(v8Version: string, execArgv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (env.COREB_V8_TIER_UP === 'default') return false;
  if (execArgv.some((a) => a.startsWith('--interrupt-budget') || a.startsWith('--interrupt_budget'))) return false;
  return /^11\./.test(v8Version);
}

/** Sets the CLI's tier-up budget in this process when {@link wantsTierUpBudget} says so; returns whether it did. */
export function applyTierUpBudget(): boolean {
  if (!wantsTierUpBudget(process.versions.v8, process.execArgv, process.env)) return false;
  setFlagsFromString(`--interrupt-budget=${CLI_INTERRUPT_BUDGET}`);
  return true;
}
