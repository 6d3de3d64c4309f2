/**
 * File-level scoring of chunk rankings (repository benchmarks: a code search tool often answers
 * with files): a file's rank is its best chunk's, its score that chunk's score, and its label the
 * best label of its chunks (2 when it holds a relevant chunk). Chunks name their file by
 * `meta_path` (and `meta_repo` when several repositories share a corpus), as `coreb repo build` writes them.
 */
import type { Doc, Qrels } from '../core/dataset.js';
import type { RankedList } from '../core/retrieval.js';

/** Where a repository chunk comes from, as `coreb repo build` records it (fields absent when not recorded). */
export interface ChunkLocation {
  repo?: string;
  path?: string;
  startLine?: number;
  endLine?: number;
  symbol?: string;
  language?: string;
}

/**
 * A document's {@link ChunkLocation}: its `meta_repo`, `meta_path`, `meta_start_line`,
 * `meta_end_line`, `meta_symbol`, `meta_language` fields, which read as `meta.path` in a CoREB
 * release and as `meta.metaPath` in a BEIR corpus row (the language falls back to `Doc.language`).
 */
export function chunkLocation(doc: Doc): ChunkLocation {
  const m = doc.meta ?? {};
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const out: ChunkLocation = {};
  const fields = {
    repo: str(m.repo ?? m.metaRepo),
    path: str(m.path ?? m.metaPath),
    startLine: num(m.startLine ?? m.metaStartLine),
    endLine: num(m.endLine ?? m.metaEndLine),
    symbol: str(m.symbol ?? m.metaSymbol),
    language: str(m.language ?? m.metaLanguage ?? doc.language),
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Document id -> file key (`repo:path`, or `path`), for corpora whose every document names its file; undefined otherwise. */
export function fileKeys(docs: readonly Doc[]): Map<string, string> | undefined {
  if (docs.length === 0) return undefined;
  const out = new Map<string, string>();
  for (const d of docs) {
    const { repo, path } = chunkLocation(d);
    if (path === undefined) return undefined;
    out.set(d.id, repo !== undefined ? `${repo}:${path}` : path);
  }
  return out;
}

/** The file-level localization measures beside the protocol's: all gold files / one gold file within k. */
export const LOCALIZATION_MEASURES = ['acc@1', 'acc@3', 'acc@5', 'acc@10', 'hit@1', 'hit@3', 'hit@5', 'hit@10'] as const;

/** Path segments of test code: a file under one of these folders is a test file. */
export const TEST_DIRS = ['test', 'tests', '__tests__', 'spec', 'specs', 'testing', 'testdata', 'test-data', 'fixtures'] as const;

/**
 * Whether a path is test code, by the conventions of the languages coreb chunks: a folder of
 * {@link TEST_DIRS}; `test_*.py`, `*_test.py`, `*_test.go`, `*Test.java`, `*Tests.java`, `*IT.java`,
 * `*Test.kt`, `*.test.*` / `*.spec.*` (JS/TS), `*_spec.rb`, `*_test.rb`, `test_*.rb`, `*Tests.cs`,
 * `*_test.cc` / `*_unittest.cc`, `*Test.php`; a file key `repo:path` is read after its repository prefix.
 */
export function isTestPath(path: string): boolean {
  const p = path.includes(':') && !path.startsWith('/') ? path.slice(path.indexOf(':') + 1) : path;
  const parts = p.split('/');
  const name = parts[parts.length - 1];
  if (parts.slice(0, -1).some((seg) => (TEST_DIRS as readonly string[]).includes(seg.toLowerCase()))) return true;
  return (
    /^test_.*\.(py|rb)$/.test(name) ||
    /_test\.(py|go|rb|cc|cpp|c|rs)$/.test(name) ||
    /_unittest\.(cc|cpp)$/.test(name) ||
    /(Test|Tests|IT|TestCase)\.(java|kt|scala|cs|php|swift)$/.test(name) ||
    /\.(test|spec)\.[cm]?[jt]sx?$/.test(name) ||
    /_spec\.rb$/.test(name)
  );
}

/**
 * The non-test view of file lists and file qrels: test files out of every list and every query's
 * judgments; a query left without a judgment at `level` or above is dropped (returned in `dropped`).
 */
export function withoutTests(
  lists: ReadonlyMap<string, RankedList>,
  qrels: Qrels,
  level: number,
): { lists: Map<string, RankedList>; qrels: Qrels; dropped: string[] } {
  const outQrels: Qrels = new Map();
  const dropped: string[] = [];
  for (const [q, judged] of qrels) {
    const m = new Map([...judged].filter(([f]) => !isTestPath(f)));
    if (![...m.values()].some((l) => l >= level)) {
      dropped.push(q);
      continue;
    }
    outQrels.set(q, m);
  }
  const outLists = new Map<string, RankedList>();
  for (const [q, l] of lists) {
    if (!outQrels.has(q)) continue;
    const ids: string[] = [];
    const scores: number[] = [];
    l.docIds.forEach((id, i) => {
      if (isTestPath(id)) return;
      ids.push(id);
      scores.push(l.scores[i]);
    });
    outLists.set(q, { docIds: ids, scores: l.scores instanceof Float32Array ? Float32Array.from(scores) : Float64Array.from(scores) });
  }
  return { lists: outLists, qrels: outQrels, dropped };
}

/** A chunk ranking as a file ranking: each file at its best chunk's place, with that chunk's score. */
export function fileList(list: RankedList, fileOf: ReadonlyMap<string, string>): RankedList {
  const seen = new Set<string>();
  const ids: string[] = [];
  const scores: number[] = [];
  list.docIds.forEach((id, i) => {
    const f = fileOf.get(id) ?? id;
    if (seen.has(f)) return;
    seen.add(f);
    ids.push(f);
    scores.push(list.scores[i]);
  });
  return { docIds: ids, scores: list.scores instanceof Float32Array ? Float32Array.from(scores) : Float64Array.from(scores) };
}

/** Chunk qrels as file qrels: a file's label is the best label of its judged chunks. */
export function fileQrels(qrels: Qrels, fileOf: ReadonlyMap<string, string>): Qrels {
  const out: Qrels = new Map();
  for (const [q, judged] of qrels) {
    const m = new Map<string, number>();
    for (const [d, label] of judged) {
      const f = fileOf.get(d) ?? d;
      m.set(f, Math.max(m.get(f) ?? Number.NEGATIVE_INFINITY, label));
    }
    out.set(q, m);
  }
  return out;
}
