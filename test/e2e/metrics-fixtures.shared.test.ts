/**
 * coreb's metrics against the reference outputs in ../shared/fixtures/trec: pytrec_eval values
 * (bit-exact), trec_eval 9.0.8 text output (line for line) and the CoREB protocol values.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import { IdTable, parseAnchorsTsv, parseTrecQrels, parseTrecRun, trecQrelsToMap, trecRunToMap } from '../../src/dataset/index.js';
import { evaluate, evaluateColumns, parseMeasures, renderTrec, type ColumnarOptions } from '../../src/metrics/index.js';
import { evaluateTrecFiles } from '../../src/eval/trec-metrics.js';
import { sharedPath } from '../support/shared.js';

const scratch = mkdtempSync(join(tmpdir(), 'coreb-fixture-stream-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

/** The lines of `text` in a seeded shuffled order (so no query's lines stay together). */
function shuffled(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  let seed = 12345;
  for (let i = lines.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % (i + 1);
    [lines[i], lines[j]] = [lines[j], lines[i]];
  }
  return lines.join('\n') + '\n';
}

const casesDir = sharedPath('fixtures', 'trec', 'cases');
const cases = readdirSync(casesDir).sort();

/** Parses a case; `knownDocsOnly` is the CLI's fast path (only judged and anchor docs interned). */
function load(dir: string, knownDocsOnly = false) {
  const docs = new IdTable();
  const qrels = parseTrecQrels(readFileSync(join(dir, 'qrels.txt')), { file: 'qrels.txt', docs });
  const anchors = anchorsOf(dir);
  for (const a of anchors?.values() ?? []) docs.intern(a);
  const judged = knownDocsOnly ? qrels : undefined;
  const run = parseTrecRun(readFileSync(join(dir, 'run.txt')), { file: 'run.txt', docs, knownDocsOnly, judged, anchors });
  return { qrels, run };
}

function anchorsOf(dir: string): Map<string, string> | undefined {
  const p = join(dir, 'anchors.tsv');
  return existsSync(p) ? parseAnchorsTsv(readFileSync(p, 'utf8'), p) : undefined;
}

/** trec_eval output lines whose measure coreb prints, in order. */
function supportedLines(expected: string, got: string): string[] {
  const keys = new Set(got.split('\n').map((l) => l.split('\t')[0].trim()));
  return expected.split('\n').filter((l) => l !== '' && keys.has(l.split('\t')[0].trim()));
}

test('there are fixture cases', () => {
  assert.ok(cases.length >= 12, `found ${cases.length} cases`);
});

for (const name of cases) {
  const dir = join(casesDir, name);

  test(`${name}: every per-query value equals pytrec_eval exactly (levels 1 and 2)`, () => {
    const { qrels, run } = load(dir);
    const q = trecQrelsToMap(qrels);
    const r = trecRunToMap(run);
    assert.deepEqual(trecRunToMap(load(dir, true).run), r, 'known-docs-only parse gives the same run');
    for (const [file, level] of [
      ['rl1.json', 1],
      ['rl2.json', 2],
    ] as const) {
      const ref = JSON.parse(readFileSync(join(dir, 'pytrec_eval', file), 'utf8')) as Record<string, Record<string, number>>;
      const ev = evaluate(q, r, { measures: ['all'], relevanceLevel: level });
      assert.deepEqual([...ev.perQuery.keys()].sort(), Object.keys(ref).sort(), `${file}: evaluated queries`);
      let compared = 0;
      for (const [qid, values] of Object.entries(ref)) {
        const mine = ev.perQuery.get(qid) ?? {};
        for (const [key, v] of Object.entries(values)) {
          assert.ok(key in mine, `${file} ${qid}: coreb lacks ${key}`);
          assert.equal(mine[key], v, `${file} ${qid} ${key}`);
          compared++;
        }
      }
      assert.ok(compared > 0);
    }
  });

  for (const [variant, fast] of [
    ['q', false],
    ['q.l2', true],
    ['q.c', true],
    ['q.c.l2', false],
  ] as const) {
    test(`${name}: trec-format output equals trec_eval 9.0.8 all_trec.${variant}${fast ? ' (known-docs-only parse)' : ''}`, () => {
      const { qrels, run } = load(dir, fast);
      const options: ColumnarOptions = {
        specs: parseMeasures(['all_trec']),
        relevanceLevel: variant.endsWith('l2') ? 2 : 1,
        complete: variant.includes('.c'),
      };
      const got = renderTrec(evaluateColumns(qrels, run, options), { perQuery: true, runId: run.runTag });
      const expected = readFileSync(join(dir, 'te9.0.8', `all_trec.${variant}.txt`), 'utf8');
      const want = supportedLines(expected, got);
      assert.ok(want.length > 50);
      assert.deepEqual(got.trimEnd().split('\n'), want);
    });
  }

  test(`${name}: the streamed file path (grouped, shuffled and partitioned, gzip) prints trec_eval 9.0.8's all_trec output`, async () => {
    const text = readFileSync(join(dir, 'run.txt'), 'utf8');
    const last = text.trimEnd().split('\n').pop() ?? '';
    const files: Array<[string, string]> = [['as given', join(dir, 'run.txt')]];
    // Shuffled, keeping the last line last: trec_eval's runid is the tag of the file's last line.
    const shuffledText = shuffled(text.trimEnd().split('\n').slice(0, -1).join('\n')) + last + '\n';
    writeFileSync(join(scratch, `${name}.shuffled.txt`), shuffledText);
    writeFileSync(join(scratch, `${name}.shuffled.txt.gz`), gzipSync(shuffledText));
    files.push(['shuffled', join(scratch, `${name}.shuffled.txt`)], ['shuffled gzip', join(scratch, `${name}.shuffled.txt.gz`)]);
    for (const variant of ['q', 'q.c.l2']) {
      const expected = readFileSync(join(dir, 'te9.0.8', `all_trec.${variant}.txt`), 'utf8');
      for (const [what, run] of files) {
        const { result, runTag, mode } = await evaluateTrecFiles({
          qrels: join(dir, 'qrels.txt'),
          run,
          specs: parseMeasures(['all_trec']),
          relevanceLevel: variant.endsWith('l2') ? 2 : 1,
          complete: variant.includes('.c'),
          partitionBytes: 64,
          tmpDir: scratch,
        });
        if (what !== 'as given') assert.equal(mode, 'partitioned', what);
        const got = renderTrec(result, { perQuery: true, runId: runTag });
        assert.deepEqual(got.trimEnd().split('\n'), supportedLines(expected, got), `${what} ${variant}`);
      }
    }
  });

  test(`${name}: --scores float64 output equals trec_eval 10.0 (iprec_at_recall and 11pt_avg excluded: 10.0 changed their cutoff rule)`, (t) => {
    const checks = JSON.parse(readFileSync(join(dir, 'checks.json'), 'utf8')) as { cli_returncodes: Record<string, number> };
    for (const variant of ['q', 'q.l2']) {
      if (checks.cli_returncodes[`te10.0/all_trec.${variant}`] !== 0) {
        t.diagnostic(`trec_eval 10.0 aborted on ${variant} (qrels queries missing from the run)`);
        continue;
      }
      const { qrels, run } = load(dir, true);
      const result = evaluateColumns(qrels, run, {
        specs: parseMeasures(['all_trec']),
        relevanceLevel: variant.endsWith('l2') ? 2 : 1,
        scores: 'float64',
      });
      const got = renderTrec(result, { perQuery: true, runId: run.runTag })
        .trimEnd()
        .split('\n')
        .filter((l) => !l.startsWith('iprec_at_recall') && !l.startsWith('11pt_avg'));
      const expected = readFileSync(join(dir, 'te10.0', `all_trec.${variant}.txt`), 'utf8');
      assert.deepEqual(got, supportedLines(expected, got.join('\n')));
    }
  });

  test(`${name}: CoREB protocol values equal coreb.json and the trec_eval commands`, () => {
    const { qrels, run } = load(dir, true);
    const anchors = anchorsOf(dir);
    const ref = JSON.parse(readFileSync(join(dir, 'coreb', 'coreb.json'), 'utf8')) as {
      per_query: Record<string, Record<string, number>>;
      aggregate: Record<string, Record<string, number>>;
    };
    const cutoffs = '1,3,5,10,100,1000';
    const result = evaluateColumns(qrels, run, {
      specs: parseMeasures([`ndcg_cut.${cutoffs}`, `map_cut.${cutoffs}`, `recall.${cutoffs}`, `P.${cutoffs}`, 'recip_rank', 'mrr@10', 'mrr_beir@10']),
      relevanceLevel: 2,
      ndcg: 'strict',
      anchors,
    });
    const keyOf = (k: string): string =>
      k
        .replace(/^nDCG@/, 'ndcg_cut_')
        .replace(/^MAP@/, 'map_cut_')
        .replace(/^Recall@/, 'recall_')
        .replace(/^P@/, 'P_')
        .replace(/^RR$/, 'recip_rank')
        .replace(/^MRR@10_trec_ties$/, 'recip_rank_cut_10')
        .replace(/^MRR@10_beir_ties$/, 'mrr_beir_10');
    const width = result.columns.length;
    const col = new Map(result.columns.map((c, i) => [c.key, i]));
    assert.deepEqual([...result.queryIds].sort(), Object.keys(ref.per_query).sort());
    for (let row = 0; row < result.queryIds.length; row++) {
      const qid = result.queryIds[row];
      for (const [k, v] of Object.entries(ref.per_query[qid])) {
        const c = col.get(keyOf(k));
        assert.ok(c !== undefined, `no column for ${k}`);
        assert.equal(result.values[row * width + c], v, `${qid} ${k}`);
      }
    }
    for (const [k, v] of Object.entries(ref.aggregate.ALL)) {
      if (k === 'n_queries') {
        assert.equal(result.queryIds.length, v);
        continue;
      }
      const c = col.get(keyOf(k)) as number;
      if (k === 'MRR@10_beir_ties') continue; // BEIR's mean is over len(qrels); checked below
      assert.ok(Math.abs(result.aggregate[c] - v) <= 1e-12, `aggregate ${k}: ${result.aggregate[c]} vs ${v}`);
    }
    const beir = ref.aggregate['MRR@10_beir_over_len_qrels'];
    assert.ok(Math.abs(result.aggregate[col.get('mrr_beir_10') as number] - beir.value) <= 1e-12);

    // trec_eval on the pre-processed files (zeroed qrels, anchor-removed run) prints what the
    // protocol options print on the original files.
    const ndcgOnly = evaluateColumns(qrels, run, { specs: parseMeasures([`ndcg_cut.${cutoffs}`]), ndcg: 'strict', relevanceLevel: 2, anchors });
    assert.equal(renderTrec(ndcgOnly, { perQuery: true }), readFileSync(join(dir, 'coreb', 'te9_ndcg.txt'), 'utf8'));
    const binary = evaluateColumns(qrels, run, {
      specs: parseMeasures([`map_cut.${cutoffs}`, `recall.${cutoffs}`, `P.${cutoffs}`, 'recip_rank']),
      relevanceLevel: 2,
      anchors,
    });
    assert.equal(renderTrec(binary, { perQuery: true }), readFileSync(join(dir, 'coreb', 'te9_binary_l2.txt'), 'utf8'));
    const binaryC = evaluateColumns(qrels, run, {
      specs: parseMeasures([`map_cut.${cutoffs}`, `recall.${cutoffs}`, `P.${cutoffs}`, 'recip_rank']),
      relevanceLevel: 2,
      anchors,
      complete: true,
    });
    assert.equal(renderTrec(binaryC, { perQuery: true }), readFileSync(join(dir, 'coreb', 'te9_binary_l2.c.txt'), 'utf8'));
    const capped = evaluateColumns(qrels, run, { specs: parseMeasures(['recip_rank']), relevanceLevel: 2, anchors, maxDocs: 10 });
    assert.equal(renderTrec(capped, { perQuery: true }), readFileSync(join(dir, 'coreb', 'te9_mrr10_l2_M10.txt'), 'utf8'));
    const mrr = evaluateColumns(qrels, run, { specs: parseMeasures(['mrr@10']), relevanceLevel: 2, anchors });
    const mrrText = renderTrec(mrr, { perQuery: true }).replace(/^recip_rank_cut_10/gm, 'recip_rank' + ' '.repeat(7));
    assert.equal(mrrText, readFileSync(join(dir, 'coreb', 'te9_mrr10_l2_M10.txt'), 'utf8'));
  });
}
