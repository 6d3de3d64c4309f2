/**
 * The stage table: one module per stage of `coreb build`, each with one shape in and out (it reads
 * the {@link BuildWork} so far and adds its own output), in the order {@link BUILD_STAGES} runs them.
 * `load` is not in the table: it produces the work every other stage starts from.
 */
import type { BuildStage } from '../types.js';
import type { BuildStageModule } from '../context.js';
import { abbreviate } from './abbreviate.js';
import { execute } from './execute.js';
import { negatives } from './negatives.js';
import { queries } from './queries.js';
import { qrels } from './qrels.js';
import { release } from './release.js';
import { rewrite } from './rewrite.js';
import { solve } from './solve.js';
import { tests } from './tests.js';

/** Every stage after `load`, by name. */
export const STAGE_MODULES: Readonly<Record<Exclude<BuildStage, 'load'>, BuildStageModule>> = {
  rewrite,
  tests,
  abbreviate,
  solve,
  execute,
  queries,
  negatives,
  qrels,
  release,
};

/** Stages computed on every run that reaches them (local and deterministic; nothing to resume). */
export const LOCAL_STAGES: ReadonlySet<BuildStage> = new Set(['qrels', 'release']);
