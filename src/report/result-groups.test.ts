import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvalResults, ProtocolSemantics } from '../core/eval-results.js';

/** The two presets' fields that differ, as the eval layer resolves them (copied here: report may not import eval). */
function resolveProtocol(name: 'coreb' | 'mteb'): ProtocolSemantics {
  const base = { scores: 'float32', ties: 'score-desc,docid-desc-utf8', ignoreIdenticalIds: false, population: 'run-and-qrels' } as const;
  return name === 'coreb'
    ? {
        ...base,
        name,
        relevanceLevel: 2,
        ndcg: 'strict',
        anchorExclusion: true,
        qrels: 'as-is',
        c2tMatchNegatives: 'zero',
        mrr: 'trec',
        rankBy: 'overall',
        roundDigits: null,
        unrounded: [],
      }
    : {
        ...base,
        name,
        relevanceLevel: 1,
        ndcg: 'trec',
        anchorExclusion: false,
        qrels: 'positives-only',
        c2tMatchNegatives: 'exclude',
        mrr: 'mteb',
        rankBy: 'taskMean',
        roundDigits: 5,
        unrounded: ['mrr@10'],
      };
}
import type { LoadedResults } from '../dataset/results-file.js';
import { crossReleasePairs, explainGroups, groupResults, protocolDifferences, releaseOrder } from './result-groups.js';

function file(name: string, split: string, protocol: 'coreb' | 'mteb', sha = split, releaseDate?: string): LoadedResults {
  const results = {
    dataset: { kind: 'coreb-release', dir: '/d', split, sha256: sha, files: [], counts: {}, ...(releaseDate ? { releaseDate } : {}) },
    protocol: resolveProtocol(protocol),
    retrievers: [{ name: 'bm25', tasks: {}, overall: { queries: 1, metrics: {} } }],
  } as unknown as EvalResults;
  return { file: name, results };
}

test('groups: one per (split, dataset hash, protocol); labels name the protocol when a split has several', () => {
  const g = groupResults([file('a', 'release_v2602', 'coreb'), file('b', 'release_v2602', 'mteb'), file('c', 'release_v2602', 'coreb')]);
  assert.deepEqual(
    g.map((x) => [x.label, x.files.map((f) => f.file)]),
    [
      ['release_v2602 · protocol coreb', ['a', 'c']],
      ['release_v2602 · protocol mteb', ['b']],
    ],
  );
  // a and c hold the same row (same identity, scoring and numbers): kept once.
  assert.deepEqual(
    g[0].retrievers.map((r) => r.name),
    ['bm25'],
  );
  assert.deepEqual(g[0].duplicates, [{ name: 'bm25', file: 'c', sameAs: 'a' }]);
  // Other numbers under the same name: two rows, the second named by its file.
  const changed = file('d', 'release_v2602', 'coreb');
  changed.results.retrievers[0].overall = { queries: 1, metrics: { 'ndcg@10': 0.5 } } as never;
  const g2 = groupResults([file('a', 'release_v2602', 'coreb'), changed, file('c', 'release_v2602', 'coreb')]);
  assert.deepEqual(
    g2[0].retrievers.map((r) => r.name),
    ['bm25', 'bm25 (file 2)'],
  );
  assert.equal(g2[0].duplicates.length, 1);
  const why = explainGroups(g);
  assert.equal(why.length, 1);
  assert.match(why[0], /^release_v2602 · protocol mteb vs release_v2602 · protocol coreb: another protocol \(/);
  assert.ok(protocolDifferences(resolveProtocol('mteb'), resolveProtocol('coreb')).includes('relevanceLevel 1 vs 2'));
  // The same split name with other bytes is another dataset.
  const other = groupResults([file('a', 'release_v2602', 'coreb', 'h1'), file('b', 'release_v2602', 'coreb', 'h2')]);
  assert.deepEqual(
    other.map((x) => x.label),
    ['release_v2602', 'release_v2602 #2'],
  );
  assert.match(explainGroups(other)[0], /same split name with other data/);
});

test('cross-release pairs: same protocol only, ordered by manifest date, then the month the split names, then as given', () => {
  assert.equal(releaseOrder('release_v2603'), 2603);
  assert.equal(releaseOrder('coreb-2026-11'), 2611);
  assert.ok(Number.isNaN(releaseOrder('coreb_mini_v1')));
  const names = (pairs: ReturnType<typeof crossReleasePairs>) => pairs.map(([a, b]) => `${a.split}>${b.split}`);
  const g = groupResults([
    file('c', 'release_v2603', 'coreb'),
    file('m', 'release_v2603', 'mteb'),
    file('a', 'release_v2602', 'coreb'),
    file('n', 'release_v2602', 'mteb'),
  ]);
  assert.deepEqual(names(crossReleasePairs(g)).sort(), ['release_v2602>release_v2603', 'release_v2602>release_v2603']);
  assert.ok(crossReleasePairs(g).every(([a, b]) => a.protocol === b.protocol));
  // A manifest date wins over the split's name; equal dates fall back to the name.
  const dated = groupResults([
    file('x', 'build_a', 'coreb', 'x', '2027-02-01T00:00:00Z'),
    file('y', 'build_b', 'coreb', 'y', '2026-12-01T00:00:00Z'),
  ]);
  assert.deepEqual(names(crossReleasePairs(dated)), ['build_b>build_a']);
  const same = groupResults([
    file('x', 'release_v2703', 'coreb', 'x', '2026-11-30T00:00:00Z'),
    file('y', 'release_v2701', 'coreb', 'y', '2026-11-30T00:00:00Z'),
  ]);
  assert.deepEqual(names(crossReleasePairs(same)), ['release_v2701>release_v2703']);
});
