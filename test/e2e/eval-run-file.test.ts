/**
 * `coreb eval --retriever run:FILE` on runs bigger than what eval needs: the file is streamed once,
 * grouped or not, plain or gzip, with the same results; Ctrl-C stops it while it reads a big run
 * (exit 130, no results.json, no temporary file).
 */
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cliPath, runCli } from '../support/cli.js';

const root = mkdtempSync(join(tmpdir(), 'coreb-eval-run-file-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

// A BEIR directory: 3 queries over 30 documents.
const data = join(root, 'beir');
mkdirSync(join(data, 'qrels'), { recursive: true });
writeFileSync(join(data, 'corpus.jsonl'), Array.from({ length: 30 }, (_, d) => JSON.stringify({ _id: `d${d}`, text: `doc ${d}` })).join('\n') + '\n');
writeFileSync(join(data, 'queries.jsonl'), ['q1', 'q2', 'q3'].map((q) => JSON.stringify({ _id: q, text: q })).join('\n') + '\n');
writeFileSync(join(data, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td4\t1\nq2\td9\t1\nq2\td13\t1\nq3\td25\t1\n');

/** The dataset's queries, 30 docs each (ties, its own id first for q2), among `extra` other queries of `depth` lines. */
function runLines(extra: number, depth: number): string[] {
  const lines: string[] = [];
  const block = Array.from({ length: depth }, (_, i) => ` Q0 doc${i * 7919} ${i + 1} ${(depth - i) / depth} other\n`).join('');
  for (let x = 0; x < extra; x++) {
    if (x === Math.floor(extra / 2)) {
      for (const q of ['q1', 'q2', 'q3']) {
        if (q === 'q2') lines.push(`q2 Q0 q2 0 99 mine\n`);
        for (let d = 0; d < 30; d++) lines.push(`${q} Q0 d${(d * 7 + q.length * Number(q[1])) % 30} ${d + 1} ${Math.floor((30 - d) / 3)} mine\n`);
      }
    }
    lines.push(
      block
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => `x${x}${l}\n`)
        .join(''),
    );
  }
  return lines;
}

/** The lines of a grouped run, every query's first half of lines before any second half. */
function halves(run: string): string {
  const byQuery = new Map<string, string[]>();
  for (const l of run.split('\n')) if (l !== '') byQuery.set(l.split(' ')[0], [...(byQuery.get(l.split(' ')[0]) ?? []), l]);
  const lists = [...byQuery.values()];
  return [...lists.flatMap((x) => x.slice(0, x.length >> 1)), ...lists.flatMap((x) => x.slice(x.length >> 1))].join('\n') + '\n';
}

interface Results {
  retrievers: Array<{ overall: unknown; tasks: unknown; description: { queries: number; documents: number } }>;
}

test('a run with other queries than the dataset, grouped or not, plain or gzip: the same results and file counts', () => {
  const grouped = runLines(40, 50).join('');
  const files: Record<string, string | Buffer> = {
    'grouped.trec': grouped,
    // The first half of every query's lines, then the second halves: each query's lines in two
    // runs apart, in their own order (under BEIR's MRR, tied documents keep the file's order).
    'ungrouped.trec': halves(grouped),
    'grouped.trec.gz': gzipSync(grouped),
  };
  const reference = new Map<string, string>();
  for (const [name, content] of Object.entries(files)) {
    const file = join(root, name);
    writeFileSync(file, content);
    for (const depth of ['1000', '5']) {
      const r = runCli(['eval', '--data', data, '--retriever', `run:${file}`, '--depth', depth, '--format', 'json', '--no-per-query', '--quiet']);
      assert.equal(r.status, 0, r.stderr);
      const res = JSON.parse(r.stdout) as Results;
      const { overall, tasks, description } = res.retrievers[0];
      assert.deepEqual({ queries: description.queries, documents: description.documents }, { queries: 43, documents: 40 * 50 + 91 });
      const got = JSON.stringify({ overall, tasks });
      if (!reference.has(depth)) reference.set(depth, got);
      assert.equal(got, reference.get(depth), `${name} --depth ${depth}: the same numbers as grouped.trec`);
    }
  }
});

test('Ctrl-C while coreb eval reads a big run: file exits 130 within a second or so, no results.json, no temporary file', async () => {
  // ~130 MB: 4,000 queries x 1,000 lines besides the dataset's, about a second of reading here.
  const run = join(root, 'big.trec');
  writeFileSync(run, runLines(4000, 1000).join(''));
  const out = join(root, 'out-sigint');
  const tmp = join(root, 'tmp');
  mkdirSync(tmp);
  const child = spawn(process.execPath, [cliPath, 'eval', '--data', data, '--retriever', `run:${run}`, '--out', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: tmp },
  });
  let stderr = '';
  let sent = 0;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
    // Non-interactive progress prints "read FILE (MiB): N to do" when the read starts.
    if (sent === 0 && /read .*big\.trec \(MiB\): \d+ to do/.test(stderr)) {
      sent = performance.now();
      child.kill('SIGINT');
    }
  });
  const { code, at } = await new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on('close', (c) => resolve({ code: c, at: performance.now() })),
  );
  assert.ok(sent > 0, `never saw the run being read: ${stderr}`);
  assert.equal(code, 130, stderr);
  assert.match(stderr, /SIGINT received, stopping cleanly/);
  // Well under a second on an idle machine (one 4 MiB chunk); the bound leaves room for a loaded one.
  assert.ok(at - sent < 3000, `stopped ${(at - sent).toFixed(0)} ms after SIGINT`);
  process.stderr.write(`# eval run: stopped ${(at - sent).toFixed(0)} ms after SIGINT\n`);
  assert.equal(existsSync(join(out, 'results.json')), false);
  const leftovers = existsSync(out) ? readdirSync(out, { recursive: true }).map(String) : [];
  assert.deepEqual(
    leftovers.filter((f) => f.endsWith('.tmp')),
    [],
  );
  assert.deepEqual(readdirSync(tmp), [], 'no temporary partition left');
});
