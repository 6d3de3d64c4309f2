/**
 * `--judge local|sandboxfusion:URL|judge0:URL|piston:URL[,key-env=VAR]` for `exec`, `build` and
 * `contamination`: one parser, one usage text, one factory, so the three commands take the same
 * judges and read API keys the same way (from the environment variable the spec names).
 */
import type { JudgeBackend } from '../sandbox/backend.js';
import { createJudge, JUDGE_KEY_ENV, parseJudgeSpec, type JudgeSpec } from '../sandbox/judge-spec.js';
import type { LocalJudgeOptions } from '../sandbox/local-judge.js';
import type { RemoteJudgeOptions } from '../sandbox/remote/remote-judge.js';
import type { CommandContext } from './command.js';

/** The usage lines of `--judge` (indented like the commands' option lists). */
export const JUDGE_USAGE = `  --judge SPEC         where programs run: local (default: bubblewrap on this machine),
                       sandboxfusion:URL, judge0:URL or piston:URL (remote services; API
                       key from $${JUDGE_KEY_ENV.sandboxfusion}, $${JUDGE_KEY_ENV.judge0},
                       $${JUDGE_KEY_ENV.piston}, or SPEC,key-env=VAR)`;

/** The parsed `--judge` value and a factory creating that judge with the command's settings. */
export interface JudgeChoice {
  spec: JudgeSpec;
  /** True for the local judge (toolchains must be installed here). */
  local: boolean;
  create(): Promise<JudgeBackend>;
}

/** Reads `--judge` (default `local`) and returns how to create it with `local` / `remote` settings. */
export function readJudgeOption(
  value: string | undefined,
  ctx: Pick<CommandContext, 'env'>,
  local: LocalJudgeOptions,
  remote: RemoteJudgeOptions,
): JudgeChoice {
  const spec = parseJudgeSpec(value ?? 'local');
  return {
    spec,
    local: spec.kind === 'local',
    create: () => createJudge(spec, { local, remote, env: ctx.env }),
  };
}
