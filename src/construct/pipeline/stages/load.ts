/** Stage `load`: the problems of the file, after the selection (dates, earlier releases) and `limit`. */
import { CorebError } from '../../../core/errors.js';
import { compareCodePoints } from '../../../core/ids.js';
import { loadLcbProblems, type LcbProblem } from '../../../dataset/lcb.js';
import { loadExcludedProblems, selectProblems } from '../../problem-selection.js';
import type { BuildOptions, BuildSelection } from '../types.js';

/**
 * Loads the build's problems: file order, the selection (contest-date window, earlier releases),
 * then `limit`, then sorted by id.
 * @throws CorebError `USAGE` when the selection leaves no problem (naming how many were dropped and why).
 */
export async function loadProblems(o: BuildOptions): Promise<{ problems: LcbProblem[]; selection: BuildSelection }> {
  const all = [...(await loadLcbProblems(o.problemsFile)).values()];
  const exclude = o.excludeReleases !== undefined && o.excludeReleases.length > 0 ? await loadExcludedProblems(o.excludeReleases) : undefined;
  const { kept, dropped } = selectProblems(all, {
    ...(o.from !== undefined ? { from: o.from } : {}),
    ...(o.to !== undefined ? { to: o.to } : {}),
    ...(exclude !== undefined ? { exclude } : {}),
  });
  const selection: BuildSelection = { from: o.from ?? null, to: o.to ?? null, excluded: exclude?.sources ?? [], offered: all.length, dropped };
  if (kept.length === 0 && all.length > 0) {
    const why = new Map<string, number>();
    for (const d of dropped) {
      const k = d.reason.replace(/ of \S+ in /, ' in ').replace(/contest \S+ /, 'contest ');
      why.set(k, (why.get(k) ?? 0) + 1);
    }
    throw new CorebError(
      'USAGE',
      `nothing to build: all ${all.length} problem(s) of ${o.problemsFile} were left out by the selection (${[...why].map(([k, n]) => `${n} ${k}`).join('; ')})`,
    );
  }
  const chosen = o.limit !== undefined ? kept.slice(0, o.limit) : kept;
  return { problems: chosen.sort((a, b) => compareCodePoints(a.questionId, b.questionId)), selection };
}
