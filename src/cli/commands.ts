/**
 * The static table of CLI commands, each loaded lazily so `coreb metrics` never pays for the
 * sandbox or provider code.
 */
import type { Command } from './command.js';

/** Command name -> lazy module loader. */
export const COMMANDS: Readonly<Record<string, () => Promise<{ default: Command }>>> = {
  eval: () => import('./commands/eval.js'),
  metrics: () => import('./commands/metrics.js'),
  validate: () => import('./commands/validate.js'),
  download: () => import('./commands/download.js'),
  exec: () => import('./commands/exec.js'),
  providers: () => import('./commands/providers.js'),
  cache: () => import('./commands/cache.js'),
  compare: () => import('./commands/compare.js'),
  mine: () => import('./commands/mine.js'),
  build: () => import('./commands/build.js'),
  contamination: () => import('./commands/contamination.js'),
  review: () => import('./commands/review.js'),
  soup: () => import('./commands/soup.js'),
  audit: () => import('./commands/audit.js'),
  drift: () => import('./commands/drift.js'),
  rerank: () => import('./commands/rerank.js'),
  report: () => import('./commands/report.js'),
  export: () => import('./commands/export.js'),
  results: () => import('./commands/results.js'),
  leaderboard: () => import('./commands/leaderboard.js'),
  bridge: () => import('./commands/bridge.js'),
  repo: () => import('./commands/repo.js'),
  serve: () => import('./commands/serve.js'),
};
