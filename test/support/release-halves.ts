/**
 * Two problem-disjoint halves of a CoREB JSONL release, for out-of-sample checks (a bridge trained on
 * one half, evaluated on the other): the seed problems of the queries sorted and dealt alternately;
 * each half keeps the queries and qrels of its problems and both corpora whole (the other half's
 * programs and statements stay in as distractors).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const QUERY_TABLES = ['text2code', 'code2text', 'code2code'] as const;

/** Writes `<out>/a` and `<out>/b` and the problem lists `<out>/a.txt`, `<out>/b.txt`; returns their paths. */
export function writeReleaseHalves(src: string, out: string): { a: string; b: string; aProblems: string; bProblems: string } {
  const read = (name: string) =>
    readFileSync(join(src, `${name}.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const problemOf = (q: Record<string, unknown>) =>
    String(q.meta_source_problem_id ?? (q.meta as Record<string, unknown> | undefined)?.source_problem_id ?? '');
  const queries = Object.fromEntries(QUERY_TABLES.map((t) => [t, read(`${t}_queries`)]));
  const problems = [...new Set(Object.values(queries).flatMap((qs) => qs.map(problemOf)))].filter((p) => p !== '').sort();
  const half = new Map(problems.map((p, i) => [p, i % 2 === 0 ? 'a' : 'b']));
  const paths = { a: join(out, 'a'), b: join(out, 'b'), aProblems: join(out, 'a.txt'), bProblems: join(out, 'b.txt') };
  for (const h of ['a', 'b'] as const) {
    const dir = paths[h];
    mkdirSync(dir, { recursive: true });
    for (const c of ['code_corpus', 'text_corpus']) writeFileSync(join(dir, `${c}.jsonl`), readFileSync(join(src, `${c}.jsonl`)));
    for (const t of QUERY_TABLES) {
      const keep = queries[t].filter((q) => half.get(problemOf(q)) === h);
      const ids = new Set(keep.map((q) => q.query_id));
      writeFileSync(join(dir, `${t}_queries.jsonl`), keep.map((q) => JSON.stringify(q)).join('\n') + '\n');
      const qrels = read(`${t}_qrels`).filter((r) => ids.has(r.query_id));
      writeFileSync(join(dir, `${t}_qrels.jsonl`), qrels.map((r) => JSON.stringify(r)).join('\n') + '\n');
    }
    writeFileSync(h === 'a' ? paths.aProblems : paths.bProblems, problems.filter((p) => half.get(p) === h).join('\n') + '\n');
  }
  return paths;
}
