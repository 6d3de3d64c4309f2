/**
 * `coreb repo build` on git repositories the test makes (known commits, known answers: a function
 * fixed, a file renamed then edited, lines shifted by an earlier commit, merges, reverts, bots,
 * docs-only commits) and on this repository's own history; every qrel is checked against git.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { mapToSnapshot, touchedOldLines } from '../../src/construct/repo-benchmark.js';
import { parseGitDiff } from '../../src/dataset/git-repo.js';
import { cliPath, runCli, runCliAsync } from '../support/cli.js';
import { commit, git, initRepo } from '../support/git-repo.js';
import { startLoopbackServer } from '../support/loopback-server.js';
import { startServe } from '../support/serve.js';
import { projectRoot } from '../support/shared.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-repo-build-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const CALC = [
  'import math',
  '',
  'def add(a, b):',
  '    return a + b',
  '',
  'def sub(a, b):',
  '    return a + b',
  '',
  'def mul(a, b):',
  '    r = 0',
  '    for _ in range(b):',
  '        r += a',
  '    return r',
  '',
].join('\n');

let calcRepo: { dir: string; shas: Record<string, string> } | undefined;

/** The calculator repository (made once, shared by the tests that read it). */
function makeRepo(): { dir: string; shas: Record<string, string> } {
  calcRepo ??= makeCalcRepo();
  return calcRepo;
}

function makeCalcRepo(): { dir: string; shas: Record<string, string> } {
  const dir = join(tmp, 'calc');
  initRepo(dir);
  const shas: Record<string, string> = {};
  shas.init = commit(dir, '2024-01-01T10:00:00Z', 'Initial calculator', {
    'calc.py': CALC,
    'util/strings.py': 'def upper(s):\n    return s.upper()\n\n\ndef title(s):\n    return s.title()\n',
    'README.md': '# calc\n',
    'vendor/lib.py': 'def vendored():\n    pass\n',
    'web/app.min.js': 'function a(){}\n',
  });
  // In the window from here.
  shas.sub = commit(
    dir,
    '2024-02-02T10:00:00Z',
    'Fix subtraction sign',
    { 'calc.py': CALC.replace('def sub(a, b):\n    return a + b', 'def sub(a, b):\n    return a - b') },
    undefined,
    'sub added its operands. Fixes #7.',
  );
  git(dir, ['mv', 'util/strings.py', 'util/text.py']);
  shas.rename = commit(dir, '2024-02-03T10:00:00Z', 'Rename strings module', {});
  shas.upper = commit(dir, '2024-02-04T10:00:00Z', 'Make upper strip whitespace', {
    'util/text.py': 'def upper(s):\n    return s.strip().upper()\n\n\ndef title(s):\n    return s.title()\n',
  });
  const calc2 = readFileSync(join(dir, 'calc.py'), 'utf8');
  shas.doc = commit(dir, '2024-02-05T10:00:00Z', 'Add module docstring', { 'calc.py': `"""Calculator."""\n\n\n${calc2}` });
  const calc3 = readFileSync(join(dir, 'calc.py'), 'utf8');
  shas.mul = commit(dir, '2024-02-06T10:00:00Z', 'Speed up mul', {
    'calc.py': calc3.replace('    r = 0\n    for _ in range(b):\n        r += a\n    return r', '    return a * b'),
  });
  git(dir, ['checkout', '-q', '-b', 'side', `${shas.mul}~1`]);
  shas.side = commit(dir, '2024-02-07T10:00:00Z', 'Add lower', {
    'util/text.py': 'def upper(s):\n    return s.strip().upper()\n\n\ndef title(s):\n    return s.title()\n\n\ndef lower(s):\n    return s.lower()\n',
  });
  git(dir, ['checkout', '-q', 'main']);
  git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge side', 'side'], {
    GIT_AUTHOR_DATE: '2024-02-08T10:00:00Z',
    GIT_COMMITTER_DATE: '2024-02-08T10:00:00Z',
  });
  git(dir, ['revert', '--no-edit', shas.mul], { GIT_AUTHOR_DATE: '2024-02-09T10:00:00Z', GIT_COMMITTER_DATE: '2024-02-09T10:00:00Z' });
  commit(
    dir,
    '2024-02-10T10:00:00Z',
    'Bump lib',
    { 'calc.py': `${readFileSync(join(dir, 'calc.py'), 'utf8')}# bump\n` },
    'dependabot[bot] <support@github.com>',
  );
  commit(dir, '2024-02-11T10:00:00Z', 'Docs', { 'README.md': '# calc\n\nAdds numbers.\n' });
  commit(dir, '2024-04-01T10:00:00Z', 'After the window', { 'calc.py': `${readFileSync(join(dir, 'calc.py'), 'utf8')}# later\n` });
  return { dir, shas };
}

interface Doc {
  _id: string;
  title: string;
  text: string;
  meta_path: string;
  meta_start_line: number;
  meta_end_line: number;
  meta_symbol: string;
}
const jsonl = <T>(f: string): T[] =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

/** Every qrel checked against git: a rel-2 chunk's text is the snapshot's at its path and lines, and its path is a file the commit changed (or that file before a rename, in the commit or since the snapshot). */
/** A benchmark's graded qrels as (query, document, label) rows. */
function readQrels(out: string): Array<[string, string, number]> {
  return readFileSync(join(out, 'qrels', 'test.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'))
    .map(([q, d, s]) => [q, d, Number(s)] as [string, string, number]);
}

function checkAgainstGit(repo: string, out: string): { qrels: Array<[string, string, number]>; docs: Map<string, Doc> } {
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { repositories: Array<{ snapshot: string }> };
  const snapshot = manifest.repositories[0].snapshot;
  const docs = new Map(jsonl<Doc>(join(out, 'corpus.jsonl')).map((d) => [d._id, d]));
  const queries = new Map(jsonl<{ _id: string; meta_commit: string }>(join(out, 'queries.jsonl')).map((q) => [q._id, q]));
  const qrels = readQrels(out);
  const files = new Map<string, string[]>();
  for (const [qid, did, rel] of qrels) {
    const doc = docs.get(did);
    assert.ok(doc !== undefined, `qrel names a chunk of the corpus: ${did}`);
    const q = queries.get(qid);
    assert.ok(q !== undefined, `qrel names a query: ${qid}`);
    if (rel !== 2) continue;
    const lines = git(repo, ['show', `${snapshot}:${doc.meta_path}`]).split('\n');
    assert.equal(lines.slice(doc.meta_start_line - 1, doc.meta_end_line).join('\n'), doc.text, `${did} is the snapshot's text`);
    let changed = files.get(q.meta_commit);
    if (changed === undefined) {
      // The commit's files, a file it renamed under both names (the chunk sits at the old one).
      const named = git(repo, ['diff', '--name-status', '-M', `${q.meta_commit}~1`, q.meta_commit])
        .trim()
        .split('\n')
        .flatMap((l) => l.split('\t').slice(1));
      const renames = git(repo, ['diff', '-M', '--name-status', snapshot, `${q.meta_commit}~1`])
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('R'))
        .map((l) => l.split('\t'));
      changed = [...named, ...renames.filter(([, , to]) => named.includes(to)).map(([, from]) => from)];
      files.set(q.meta_commit, changed);
    }
    assert.ok(changed.includes(doc.meta_path), `${doc.meta_path} is among the files ${q.meta_commit.slice(0, 8)} changed`);
  }
  return { qrels, docs };
}

test('diff helpers: touched lines and the way back to the snapshot', () => {
  const d = parseGitDiff(
    'diff --git a/x.py b/y.py\nsimilarity index 90%\nrename from x.py\nrename to y.py\n--- a/x.py\n+++ b/y.py\n@@ -3,2 +3 @@\n-a\n-b\n+c\n@@ -10,0 +10,2 @@\n+d\n+e\n',
  );
  assert.deepEqual(d, [
    {
      oldPath: 'x.py',
      newPath: 'y.py',
      binary: false,
      hunks: [
        { oldStart: 3, oldCount: 2, newStart: 3, newCount: 1 },
        { oldStart: 10, oldCount: 0, newStart: 10, newCount: 2 },
      ],
    },
  ]);
  assert.deepEqual(touchedOldLines(d[0].hunks), [3, 4, 10, 11]);
  // Later line 20 sits after both hunks: -1 then +2 lines, so it was line 19 in the snapshot.
  assert.deepEqual(mapToSnapshot(20, d[0].hunks), [19]);
  assert.deepEqual(mapToSnapshot(3, d[0].hunks), [3, 4]);
  assert.deepEqual(mapToSnapshot(11, d[0].hunks), [10, 11]);
  assert.deepEqual(mapToSnapshot(1, d[0].hunks), [1]);
});

test('coreb repo build on a repository made here: the known answers, every filter counted, every qrel true to git', () => {
  const { dir, shas } = makeRepo();
  const out = join(tmp, 'bench');
  const issues = join(tmp, 'issues.jsonl');
  writeFileSync(issues, `${JSON.stringify({ number: 7, title: 'sub(5, 3) returns 8' })}\n${JSON.stringify({ number: 8, title: 'unrelated' })}\n`);
  const r = runCli(['repo', 'build', '--repo', dir, '--since', '2024-02-01', '--until', '2024-03-01', '--out', out, '--issues', issues]);
  assert.equal(r.status, 0, r.stderr);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    repositories: Array<{ snapshot: string; skippedFiles: Record<string, number>; droppedCommits: Record<string, number>; commits: number }>;
  };
  const repo = manifest.repositories[0];
  assert.equal(repo.snapshot, shas.init);
  assert.deepEqual(repo.skippedFiles, { vendored: 1, generated: 1 });
  // 10 commits in the window: 5 make queries (sub, upper, doc, mul, and the side branch's change to
  // upper), the rest are dropped and counted by reason.
  assert.equal(repo.commits, 10);
  assert.deepEqual(repo.droppedCommits, { 'no-snapshot-chunk': 1, merge: 1, revert: 1, bot: 1, 'no-code-files': 1 });
  const { qrels, docs } = checkAgainstGit(dir, out);
  const positives = (commitSha: string) =>
    qrels
      .filter(([q, , rel]) => q.startsWith(`calc-${commitSha.slice(0, 12)}-subject`) && rel === 2)
      .map(([, d]) => `${docs.get(d)!.meta_path}:${docs.get(d)!.meta_symbol || 'window'}`)
      .sort();
  assert.deepEqual(positives(shas.sub), ['calc.py:sub']);
  assert.deepEqual(positives(shas.upper), ['util/strings.py:upper'], 'the edit of util/text.py lands on the snapshot file it was renamed from');
  assert.deepEqual(positives(shas.doc), ['calc.py:window'], 'a docstring inserted before line 1 touches the first chunk');
  assert.deepEqual(positives(shas.mul), ['calc.py:mul'], 'mul moved down 3 lines after the snapshot; its lines map back');
  assert.deepEqual(positives(shas.side), ['util/strings.py:title'], 'a function appended after title touches title, the last chunk');
  // Relevance 1: the other chunks of the changed file.
  const same = qrels
    .filter(([q, , rel]) => q === `calc-${shas.sub.slice(0, 12)}-subject` && rel === 1)
    .map(([, d]) => docs.get(d)!.meta_symbol || 'window');
  assert.deepEqual(same.sort(), ['add', 'mul', 'window']);
  // The body makes a second query type.
  const queries = jsonl<{ _id: string; text: string; meta_query_type: string }>(join(out, 'queries.jsonl'));
  assert.deepEqual(
    queries.find((q) => q._id === `calc-${shas.sub.slice(0, 12)}-message`)?.text,
    'Fix subtraction sign\n\nsub added its operands. Fixes #7.',
  );
  // The issue it references makes a third.
  assert.deepEqual(
    queries.filter((q) => q.meta_query_type === 'issue').map((q) => [q._id, q.text]),
    [[`calc-${shas.sub.slice(0, 12)}-issue`, 'sub(5, 3) returns 8']],
  );
  const badIssues = join(tmp, 'bad-issues.jsonl');
  writeFileSync(badIssues, '{"number": 1, "title": "ok"}\n{"number": "2"}\n');
  const bad = runCli(['repo', 'build', '--repo', dir, '--since', '2024-02-01', '--out', join(tmp, 'bad'), '--issues', badIssues]);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /bad-issues\.jsonl.*2.*needs a number "number"/);
  // coreb validate reads it; coreb eval scores it under the CoREB protocol.
  const v = runCli(['validate', out]);
  assert.equal(v.status, 0, v.stderr + v.stdout);
  // The manifest makes it a graded benchmark: the coreb protocol without being told.
  const e = runCli(['eval', '--data', out, '--format', 'json', '--quiet']);
  assert.equal(e.status, 0, e.stderr);
  const results = JSON.parse(e.stdout) as {
    protocol: { name: string; relevanceLevel: number };
    retrievers: Array<{
      overall: { queries: number; metrics: Record<string, number> };
      fileLevel?: { overall: { queries: number; metrics: Record<string, number> } };
    }>;
  };
  assert.deepEqual([results.protocol.name, results.protocol.relevanceLevel], ['coreb', 2]);
  const bm25 = results.retrievers[0];
  assert.equal(bm25.overall.queries, queries.length);
  assert.ok(bm25.overall.metrics['ndcg@10'] > 0);
  // File level: every query's relevant chunks sit in one file here, so recall@10 of files is at least the chunks'.
  assert.equal(bm25.fileLevel?.overall.queries, queries.length);
  assert.ok((bm25.fileLevel?.overall.metrics['recall@10'] ?? -1) >= bm25.overall.metrics['recall@10']);
  const table = runCli(['eval', '--data', out, '--quiet']);
  assert.match(table.stdout, /File level \(a file ranked at its best chunk/);
});

test('several repositories make one benchmark, each under its name', () => {
  const dir = join(tmp, 'calc');
  const out = join(tmp, 'two');
  const r = runCli([
    'repo',
    'build',
    '--repo',
    `first=${dir}`,
    '--repo',
    `second=${dir}`,
    '--since',
    '2024-02-01',
    '--until',
    '2024-03-01',
    '--out',
    out,
  ]);
  assert.equal(r.status, 0, r.stderr);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    repositories: Array<{ name: string; queries: number; chunks: number }>;
    counts: { docs: number; queries: number };
  };
  assert.deepEqual(
    manifest.repositories.map((x) => x.name),
    ['first', 'second'],
  );
  assert.equal(manifest.counts.docs, manifest.repositories[0].chunks * 2);
  const docs = jsonl<Doc & { meta_repo: string }>(join(out, 'corpus.jsonl'));
  assert.ok(docs.every((d) => d._id.startsWith(`${d.meta_repo}:`)));
  // File level tells the two copies of calc.py apart.
  const e = runCli(['eval', '--data', out, '--retriever', 'grep', '--format', 'json', '--quiet']);
  assert.equal(e.status, 0, e.stderr);
  assert.equal(
    (JSON.parse(e.stdout) as { retrievers: Array<{ fileLevel?: { overall: { queries: number } } }> }).retrievers[0].fileLevel?.overall.queries,
    manifest.counts.queries,
  );
});

test("coreb repo build on this repository's own history: every qrel true to git", () => {
  let since: string;
  try {
    // The tenth-newest commit's date: a window of the last few commits, a snapshot with the whole tree.
    since = git(projectRoot, ['log', '-1', '--skip=10', '--format=%cI']).trim();
  } catch {
    return; // not a git checkout (an installed package)
  }
  if (since === '') return;
  const out = join(tmp, 'self');
  const r = runCli(['repo', 'build', '--repo', projectRoot, '--since', since, '--out', out, '--max-files', '40']);
  assert.equal(r.status, 0, r.stderr);
  const { qrels, docs } = checkAgainstGit(projectRoot, out);
  assert.ok(docs.size > 500, `the snapshot is chunked (${docs.size} chunks)`);
  assert.ok(
    qrels.some(([, , rel]) => rel === 2),
    'some commit of the window changed a snapshot chunk',
  );
});

test('repo build refuses an empty window and a non-empty --out instead of exiting 0 in silence', () => {
  const empty = runCli(['repo', 'build', '--repo', projectRoot, '--since', '2025-03-01', '--until', '2025-01-01', '--out', join(tmp, 'never')]);
  assert.equal(empty.status, 2);
  assert.match(empty.stderr, /--until 2025-01-01 is not after --since 2025-03-01: the query window would be empty/);
  const used = join(tmp, 'used-out');
  mkdirSync(used);
  writeFileSync(join(used, 'notes.txt'), 'mine\n');
  const r = runCli(['repo', 'build', '--repo', projectRoot, '--since', '2026-01-01', '--out', used]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /already holds 1 file\(s\) \(notes\.txt\): earlier files are never replaced silently; pass --overwrite/);
  assert.equal(readFileSync(join(used, 'notes.txt'), 'utf8'), 'mine\n');
});

let rewriteRepo: string | undefined;

/** A repository whose files are rewritten in the window (CRLF, a re-indent) before one-line fixes (made once). */
function makeRewriteRepo(): string {
  if (rewriteRepo !== undefined) return rewriteRepo;
  const dir = join(tmp, 'rewrite');
  initRepo(dir);
  git(dir, ['config', 'core.autocrlf', 'false']);
  const fn = (name: string, body: string) =>
    [
      `def ${name}(xs):`,
      `    """${name} of a list."""`,
      '    out = []',
      '    for x in xs:',
      `        out.append(${body})`,
      '    return out',
      '',
      '',
    ].join('\n');
  const names = ['double', 'square', 'negate', 'halve', 'inc', 'dec'];
  const bodies = ['x * 2', 'x * x', '-x', 'x / 2', 'x + 1', 'x - 1'];
  const v1 = names.map((n, i) => fn(n, bodies[i])).join('');
  commit(dir, '2024-01-01T10:00:00Z', 'Add list helpers', { 'helpers.py': v1, 'other.py': v1 });
  // in the window: every line rewritten (CRLF), then a one-line fix in `halve`
  commit(dir, '2024-02-02T10:00:00Z', 'Convert line endings', { 'helpers.py': v1.replace(/\n/g, '\r\n') });
  commit(dir, '2024-02-03T10:00:00Z', 'Fix halve: integer division', { 'helpers.py': v1.replace('x / 2', 'x // 2').replace(/\n/g, '\r\n') });
  // and in another file, a re-indent (two spaces instead of four) then a one-line fix in `inc`
  const v2 = v1.replace(/^( {4})+/gm, (m) => ' '.repeat(m.length / 2));
  commit(dir, '2024-02-04T10:00:00Z', 'Re-indent other.py', { 'other.py': v2 });
  commit(dir, '2024-02-05T10:00:00Z', 'Fix inc: add two', { 'other.py': v2.replace('x + 1', 'x + 2') });
  rewriteRepo = dir;
  return dir;
}

test('after a commit rewrites every line of a file (CRLF, a re-indent), a later one-line fix is relevant to its own chunk only', () => {
  const dir = makeRewriteRepo();
  const out = join(tmp, 'rewrite-out');
  const r = runCli(['repo', 'build', '--repo', dir, '--since', '2024-02-01', '--until', '2024-03-01', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const corpus = new Map(
    readFileSync(join(out, 'corpus.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { _id: string; text: string })
      .map((d) => [d._id, d.text]),
  );
  const queries = readFileSync(join(out, 'queries.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { _id: string; text: string });
  const rel2 = (subject: string): string[] => {
    const q = queries.find((x) => x.text === subject);
    assert.ok(q !== undefined, `query ${subject}`);
    return readFileSync(join(out, 'qrels', 'test.tsv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
      .filter(([qid, , rel]) => qid === q._id && rel === '2')
      .map(([, doc]) => doc);
  };
  const halve = rel2('Fix halve: integer division');
  assert.equal(halve.length, 1, `one relevant chunk, got ${halve.length}`);
  assert.match(corpus.get(halve[0]) ?? '', /def halve/);
  const inc = rel2('Fix inc: add two');
  assert.equal(inc.length, 1, `one relevant chunk, got ${inc.length}`);
  assert.match(corpus.get(inc[0]) ?? '', /def inc/);
  // the re-indented lines the `inc` fix changes are not in the snapshot: its labels are mapped back,
  // and the manifest and the query say so; the line-ending conversion does not count as a change
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { repositories: Array<{ labels: unknown }> };
  assert.deepEqual(manifest.repositories[0].labels, { exact: 3, approximated: 1 });
  const marked = readFileSync(join(out, 'queries.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { text: string; meta_labels?: string })
    .filter((q) => q.meta_labels === 'approximated')
    .map((q) => q.text);
  assert.deepEqual(marked, ['Fix inc: add two']);
});

test('a commit whose objects are missing (a partial clone) is skipped and counted; names that are not UTF-8 are skipped and counted, never merged', () => {
  const dir = join(tmp, 'partial');
  initRepo(dir);
  commit(dir, '2024-01-01T10:00:00Z', 'Start', { 'a.py': 'def a():\n    return 1\n', 'b.py': 'def b():\n    return 2\n' });
  // two names that differ only in bytes that are not UTF-8 (as U+FFFD they would be one name)
  for (const [bytes, body] of [
    [Buffer.from([0x6e, 0xe9, 0x2e, 0x70, 0x79]), 'def ne():\n    return 3\n'],
    [Buffer.from([0x6e, 0xe8, 0x2e, 0x70, 0x79]), 'def ne():\n    return 4\n'],
  ] as const) {
    const blob = execFileSync('git', ['-C', dir, 'hash-object', '-w', '--stdin'], { input: body }).toString().trim();
    // the raw bytes go through stdin (an argument would be re-encoded as UTF-8)
    execFileSync('git', ['-C', dir, 'update-index', '--add', '--index-info'], {
      input: Buffer.concat([Buffer.from(`100644 ${blob}\t`), bytes, Buffer.from('\n')]),
    });
  }
  git(dir, ['commit', '-q', '-m', 'Add two oddly named files'], {
    GIT_AUTHOR_DATE: '2024-01-02T10:00:00Z',
    GIT_COMMITTER_DATE: '2024-01-02T10:00:00Z',
  });
  commit(dir, '2024-02-02T10:00:00Z', 'Fix a', { 'a.py': 'def a():\n    return 10\n' });
  commit(dir, '2024-02-03T10:00:00Z', 'Fix b', { 'b.py': 'def b():\n    return 20\n' });
  // the clone lost the new blob of "Fix b"
  const blob = git(dir, ['rev-parse', 'HEAD:b.py']).trim();
  rmSync(join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
  const out = join(tmp, 'partial-out');
  const r = runCli(['repo', 'build', '--repo', dir, '--since', '2024-02-01', '--until', '2024-03-01', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    repositories: Array<{ droppedCommits: Record<string, number>; skippedFiles: Record<string, number>; queries: number }>;
  };
  assert.equal(m.repositories[0].droppedCommits['missing-objects'], 1);
  assert.equal(m.repositories[0].skippedFiles['non-utf8-name'], 2);
  assert.equal(m.repositories[0].queries, 1, 'Fix a is still a query');
});

test('queries are cleaned (trailers, URLs), noise commits dropped and counted (or kept, marked), issues linked by closing keywords, measures per query type', () => {
  const dir = join(tmp, 'noisy');
  initRepo(dir);
  const lib = ['def parse(text):', '    return text.split(",")', '', 'def render(items):', '    return ",".join(items)', ''].join('\n');
  commit(dir, '2024-01-05T10:00:00Z', 'Initial', { 'lib.py': lib, 'version.py': 'VERSION = "0.1.0"\n' });
  const fix = commit(
    dir,
    '2024-02-02T10:00:00Z',
    'Strip spaces around parsed items (#31)',
    { 'lib.py': lib.replace('return text.split(",")', 'return [t.strip() for t in text.split(",")]') },
    'Dev <dev@example.com>',
    'Items kept their spaces, see https://example.com/bug/21 for a report.\n\nFixes #21\n\nCo-authored-by: Other <other@example.com>\nSigned-off-by: Dev <dev@example.com>',
  );
  commit(dir, '2024-02-03T10:00:00Z', '0.2.0', { 'version.py': 'VERSION = "0.2.0"\n' });
  commit(dir, '2024-02-04T10:00:00Z', 'Polishing', { 'lib.py': `${lib.replace('def render(items):', 'def render(items):  # join')}` });
  // The REST API's shape: an array of pages, pull requests among the issues.
  const issues = join(tmp, 'noisy-issues.json');
  writeFileSync(
    issues,
    JSON.stringify([
      [
        { number: 21, title: 'parse keeps spaces', body: 'parse("a, b") gives " b".\n\nhttps://example.com/x', closed_at: '2024-02-02T11:00:00Z' },
        { number: 31, title: 'Strip spaces', body: 'the PR', pull_request: { url: 'https://api.github.com/x' } },
      ],
    ]),
  );
  const out = join(tmp, 'noisy-bench');
  const r = runCli(['repo', 'build', '--repo', dir, '--since', '2024-02-01', '--out', out, '--issues', issues]);
  assert.equal(r.status, 0, r.stderr);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    repositories: Array<{ droppedCommits: Record<string, number> }>;
    queryTypes: Record<string, number>;
    filters: { noise: { mode: string; rules: Record<string, string> } };
  };
  assert.deepEqual(manifest.repositories[0].droppedCommits, { 'noise-version-bump': 1, 'noise-polishing': 1 });
  assert.deepEqual(manifest.queryTypes, { subject: 1, message: 1, issue: 1 });
  assert.equal(manifest.filters.noise.mode, 'drop');
  assert.ok(manifest.filters.noise.rules['version-bump'].length > 10, 'the rule itself is in the manifest');
  const queries = jsonl<{ _id: string; text: string; meta_query_type: string; meta_issues?: number[] }>(join(out, 'queries.jsonl'));
  const byType = Object.fromEntries(queries.map((q) => [q.meta_query_type, q]));
  assert.equal(byType.subject.text, 'Strip spaces around parsed items');
  assert.equal(byType.message.text, 'Strip spaces around parsed items\n\nItems kept their spaces, see  for a report.\n\nFixes #21');
  assert.equal(byType.issue.text, 'parse keeps spaces\n\nparse("a, b") gives " b".');
  assert.deepEqual(byType.issue.meta_issues, [21]);
  assert.equal(byType.subject._id, `noisy-${fix.slice(0, 12)}-subject`);
  // Kept instead: the noise commits' queries are there, marked.
  const kept = join(tmp, 'noisy-kept');
  assert.equal(runCli(['repo', 'build', '--repo', dir, '--since', '2024-02-01', '--out', kept, '--keep-noise']).status, 0);
  const marked = jsonl<{ meta_noise?: string }>(join(kept, 'queries.jsonl')).map((q) => q.meta_noise);
  assert.ok(marked.includes('polishing'), JSON.stringify(marked));
  // eval reports every measure per query type, at chunk and at file level.
  const e = runCli(['eval', '--data', out, '--quiet']);
  assert.equal(e.status, 0, e.stderr);
  assert.match(e.stdout, /per query type/);
  assert.match(e.stdout, /File level per query type/);
  assert.match(e.stdout, /File level without test files/);
  assert.doesNotMatch(e.stdout, /per subtask/);
  // --measures extras appear at file level too.
  const extra = runCli(['eval', '--data', out, '--quiet', '--measures', 'ndcg@100']);
  assert.equal(extra.status, 0, extra.stderr);
  const fileTable = extra.stdout.slice(extra.stdout.indexOf('File level ('));
  assert.match(fileTable.split('\n')[1], /acc@1 .*hit@10 +ndcg@100 +queries/);
});

/** The benchmark's rows read back: docs, queries (by id) and qrels. */
function readBench(out: string) {
  type Row = Doc & { meta_valid_from?: number; meta_valid_until?: number; meta_kind: string };
  const docs = jsonl<Row>(join(out, 'corpus.jsonl'));
  const queries = jsonl<{ _id: string; text: string; meta_base: string; meta_base_seq: number; meta_labels?: string }>(join(out, 'queries.jsonl'));
  const qrels = readQrels(out);
  return { docs, queries, qrels };
}

let parentBench: string | undefined;

/** The calculator repository built with --corpus-at parent (once). */
function buildParentBench(): string {
  if (parentBench !== undefined) return parentBench;
  const out = join(tmp, 'bench-parent');
  const r = runCli([
    'repo',
    'build',
    '--repo',
    makeRepo().dir,
    '--since',
    '2024-02-01',
    '--until',
    '2024-03-01',
    '--out',
    out,
    '--corpus-at',
    'parent',
  ]);
  assert.equal(r.status, 0, r.stderr);
  parentBench = out;
  return out;
}

test('--corpus-at parent: every query searched and labelled against its own parent; each judged chunk is the parent text, valid at that state', () => {
  const { dir, shas } = makeRepo();
  const out = buildParentBench();
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    corpusAt: string;
    repositories: Array<{ droppedCommits: Record<string, number>; labels: unknown; states: number; versions: number; chunks: number }>;
  };
  assert.equal(manifest.corpusAt, 'parent');
  const repo = manifest.repositories[0];
  // the rename alone touches no line; the rest as in the snapshot build, and every label exact
  assert.deepEqual(repo.droppedCommits, { 'no-parent-chunk': 1, merge: 1, revert: 1, bot: 1, 'no-code-files': 1 });
  assert.deepEqual(repo.labels, { exact: 5, approximated: 0 });
  // states: the snapshot (sub's parent), then the parents of the rename, upper, doc and mul; the side branch shares mul's parent
  assert.equal(repo.states, 5);
  const { docs, queries, qrels } = readBench(out);
  assert.equal(docs.length, repo.chunks + repo.versions);
  const byId = new Map(docs.map((d) => [d._id, d]));
  assert.equal(byId.size, docs.length, 'document ids are unique');
  const qById = new Map(queries.map((q) => [q._id, q]));
  for (const [qid, did] of qrels) {
    const q = qById.get(qid)!;
    const d = byId.get(did)!;
    const from = d.meta_valid_from ?? 0;
    const until = d.meta_valid_until ?? Number.POSITIVE_INFINITY;
    assert.ok(from <= q.meta_base_seq && q.meta_base_seq < until, `${did} is valid at ${qid}'s state ${q.meta_base_seq} ([${from}, ${until}))`);
    assert.ok(
      git(dir, ['show', `${q.meta_base}:${d.meta_path}`]).includes(d.text),
      `${did}'s text is in ${d.meta_path} at ${q.meta_base.slice(0, 8)}`,
    );
  }
  const positives = (sha: string) =>
    qrels
      .filter(([q, , rel]) => q === `calc-${sha.slice(0, 12)}-subject` && rel === 2)
      .map(([, d]) => `${byId.get(d)!.meta_path}:${byId.get(d)!.meta_symbol || 'window'}`)
      .sort();
  assert.deepEqual(positives(shas.upper), ['util/text.py:upper'], 'found under its name at the parent, no rename to follow');
  assert.deepEqual(positives(shas.mul), ['calc.py:mul']);
  assert.deepEqual(positives(shas.side), ['util/text.py:title']);
  // mul moved 3 lines down at its parent (the docstring) but its text is unchanged: the same document as the snapshot's
  const mul = qrels.find(([q, , rel]) => q === `calc-${shas.mul.slice(0, 12)}-subject` && rel === 2)![1];
  assert.equal(byId.get(mul)!.meta_valid_from ?? 0, 0);
  // the docstring made a new version of calc.py's first window, valid from the doc commit's child state on
  assert.ok(
    docs.some((d) => (d.meta_valid_from ?? 0) > 0 && d._id.includes('@')),
    'a later version whose place an earlier version held is named id@commit',
  );
});

test('--corpus-at parent: a line rewritten after the snapshot is labelled where it is at the parent (no approximation)', () => {
  const dir = makeRewriteRepo();
  const out = join(tmp, 'rewrite-parent');
  const r = runCli(['repo', 'build', '--repo', dir, '--since', '2024-02-01', '--until', '2024-03-01', '--out', out, '--corpus-at', 'parent']);
  assert.equal(r.status, 0, r.stderr);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { repositories: Array<{ labels: unknown }> };
  assert.deepEqual(manifest.repositories[0].labels, { exact: 4, approximated: 0 });
  const { docs, queries, qrels } = readBench(out);
  const q = queries.find((x) => x.text === 'Fix inc: add two')!;
  assert.equal(q.meta_labels, undefined);
  const rel2 = qrels.filter(([qid, , rel]) => qid === q._id && rel === 2).map(([, d]) => docs.find((x) => x._id === d)!);
  assert.equal(rel2.length, 1);
  // the parent's re-indented text (two spaces), not the snapshot's
  assert.match(rel2[0].text, /^def inc\(xs\):\n {2}"""inc of a list\."""/);
  const parentText = git(dir, ['show', `${q.meta_base}:other.py`]);
  assert.ok(parentText.includes(rel2[0].text));
});

test('coreb eval on a --corpus-at parent benchmark: each query ranked in its own state, as an index built at that state ranks it (bm25 replayed, grep cut)', () => {
  const out = buildParentBench();
  const { docs, queries, qrels } = readBench(out);
  const evalOut = join(tmp, 'bench-parent-eval');
  const evalBoth = (data: string, to: string, ...extra: string[]) =>
    runCli(['eval', '--data', data, '--retriever', 'bm25', '--retriever', 'grep', '--runs', 'plain', '--out', to, '--quiet', ...extra]);
  const e = evalBoth(out, evalOut, '--format', 'json');
  assert.equal(e.status, 0, e.stderr);
  const rows = (JSON.parse(e.stdout) as { retrievers: Array<{ name: string; description: { corpusStates?: Record<string, { search: string }> } }> })
    .retrievers;
  assert.deepEqual(
    rows.map((x) => Object.values(x.description.corpusStates ?? {}).map((s) => s.search)),
    [['replay'], ['filter']],
  );
  const runOf = (folder: string, retriever: string): Map<string, string[]> => {
    const runs = join(folder, 'runs');
    const file = readdirSync(runs).find((f) => f.startsWith(`${retriever}.`) && f.endsWith('.trec'))!;
    const m = new Map<string, string[]>();
    for (const line of readFileSync(join(runs, file), 'utf8').trim().split('\n')) {
      const [qid, , doc, rank, score] = line.split(' ');
      m.set(qid, [...(m.get(qid) ?? []), `${doc} ${rank} ${score}`]);
    }
    return m;
  };
  const combined = { bm25: runOf(evalOut, 'bm25'), grep: runOf(evalOut, 'grep') };
  // The reference: one plain benchmark per state, its corpus the documents valid there.
  const seqs = [...new Set(queries.map((q) => q.meta_base_seq))].sort((a, b) => a - b);
  assert.ok(seqs.length >= 3);
  // the first state, the last, and one between (each a `coreb eval` of its own)
  for (const seq of [seqs[0], seqs[Math.floor(seqs.length / 2)], seqs[seqs.length - 1]]) {
    const sub = join(tmp, `bench-parent-state-${seq}`);
    mkdirSync(join(sub, 'qrels'), { recursive: true });
    const visible = docs.filter((d) => (d.meta_valid_from ?? 0) <= seq && seq < (d.meta_valid_until ?? Number.POSITIVE_INFINITY));
    const plain = visible.map(({ meta_valid_from, meta_valid_until, ...rest }) => JSON.stringify(rest));
    writeFileSync(join(sub, 'corpus.jsonl'), `${plain.join('\n')}\n`);
    const qs = queries.filter((q) => q.meta_base_seq === seq);
    writeFileSync(join(sub, 'queries.jsonl'), `${qs.map((q) => JSON.stringify({ _id: q._id, text: q.text })).join('\n')}\n`);
    const ids = new Set(qs.map((q) => q._id));
    writeFileSync(
      join(sub, 'qrels', 'test.tsv'),
      `query-id\tcorpus-id\tscore\n${qrels
        .filter(([q]) => ids.has(q))
        .map((x) => x.join('\t'))
        .join('\n')}\n`,
    );
    const ref = evalBoth(sub, join(sub, 'eval'));
    assert.equal(ref.status, 0, ref.stderr);
    for (const retriever of ['bm25', 'grep'] as const) {
      const want = runOf(join(sub, 'eval'), retriever);
      for (const q of qs) assert.deepEqual(combined[retriever].get(q._id), want.get(q._id), `${retriever} ${q._id} at state ${seq}`);
    }
  }
});

test('coreb serve on a --corpus-at parent benchmark serves its last state only', async () => {
  const out = buildParentBench();
  const { docs } = readBench(out);
  const last = new Set(docs.filter((d) => d.meta_valid_until === undefined).map((d) => d._id));
  assert.ok(last.size < docs.length, 'the benchmark holds earlier versions');
  const { url, child, err } = await startServe(['--data', out]);
  try {
    assert.match(err(), /serving its last state, \d+ of \d+ chunks/);
    const r = await fetch(`${url}/search`, { method: 'POST', body: JSON.stringify({ query: 'def calc mul sub add upper title docstring', k: 50 }) });
    const { hits } = (await r.json()) as { hits: Array<{ id: string }> };
    assert.ok(hits.length > 0);
    for (const h of hits) assert.ok(last.has(h.id), `${h.id} is of the last state`);
  } finally {
    child.kill('SIGKILL');
  }
});

type Hit = { id: string; path: string; symbol?: string; language: string };

test('serve a repository benchmark: path and language filters, results grouped by file, symbol: queries (HTTP GET and POST, MCP)', async () => {
  const out = buildParentBench();
  const { url, child } = await startServe(['--data', out]);
  try {
    const post = async (body: Record<string, unknown>) => {
      const r = await fetch(`${url}/search`, { method: 'POST', body: JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    const all = (await post({ query: 'upper title strip sub add mul', k: 20 })).body.hits as Hit[];
    assert.ok(new Set(all.map((h) => h.path.split('/')[0])).size > 1, 'hits from several folders');
    // only under util/: the same order as the unfiltered ranking, restricted
    const util = (await post({ query: 'upper title strip sub add mul', k: 20, paths: ['util/'] })).body.hits as Hit[];
    assert.ok(util.length > 0 && util.every((h) => h.path.startsWith('util/')));
    assert.deepEqual(
      util.map((h) => h.id),
      all.filter((h) => h.path.startsWith('util/')).map((h) => h.id),
    );
    const md = (await (await fetch(`${url}/search?q=calc&k=5&path=*.md`)).json()) as { hits: Hit[] };
    assert.ok(md.hits.length > 0 && md.hits.every((h) => h.path.endsWith('.md')));
    const py = (await post({ query: 'calc', k: 50, languages: ['Python'] })).body.hits as Hit[];
    assert.ok(py.length > 0 && py.every((h) => h.language === 'python'));
    // grouped: files at their best chunk's place
    const grouped = (await (await fetch(`${url}/search?q=upper%20title%20sub&k=2&group=file&perFile=2`)).json()) as {
      files: Array<{ rank: number; path: string; hits: Hit[] }>;
    };
    assert.deepEqual(
      grouped.files.map((f) => f.rank),
      [1, 2],
    );
    assert.equal(new Set(grouped.files.map((f) => f.path)).size, 2);
    assert.ok(grouped.files.every((f) => f.hits.length >= 1 && f.hits.length <= 2 && f.hits.every((h) => h.path === f.path)));
    // symbol: the chunk defining `upper`, first
    const sym = (await post({ query: 'symbol:upper', k: 3 })).body.hits as Hit[];
    assert.equal(sym[0].symbol, 'upper');
    assert.equal(sym[0].path, 'util/text.py');
    const bad = await post({ query: 'x', k: 3, paths: 'util/' });
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.error), /paths must be a list of non-empty strings/);
  } finally {
    child.kill('SIGKILL');
  }
  // the MCP tool takes the same arguments
  const mcp = spawn(process.execPath, [cliPath, 'serve', '--data', out, '--mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let text = '';
  mcp.stdout.on('data', (d: Buffer) => (text += d.toString()));
  const send = (m: unknown) => mcp.stdin.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'search_code', arguments: { query: 'symbol:title', k: 1, groupByFile: true, languages: ['python'] } },
  });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'x', groupByFile: 'yes' } } });
  mcp.stdin.end();
  assert.equal(await new Promise<number | null>((ok) => mcp.on('exit', ok)), 0);
  const msgs = text
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          id: number;
          result?: { structuredContent: { files: Array<{ path: string; hits: Hit[] }> }; content: Array<{ text: string }> };
          error?: { code: number; message: string };
        },
    );
  const files = msgs[1].result?.structuredContent.files ?? [];
  assert.deepEqual(
    files.map((f) => [f.path, f.hits[0].symbol]),
    [['util/text.py', 'title']],
  );
  assert.match(msgs[1].result?.content[0].text ?? '', /^1\. util\/text\.py \(score/);
  assert.equal(msgs[2].error?.code, -32602);
  assert.match(msgs[2].error?.message ?? '', /groupByFile must be true or false/);
});

test('hybrid retrieval on a repository: rrf of bm25 and a dense embedder (a loopback OpenAI-compatible server), scored and served', async () => {
  const server = await startLoopbackServer({ format: 'openai', dim: 16 });
  try {
    const out = buildParentBench();
    const spec = `rrf:bm25,dense:openai:emb?baseUrl=${server.baseUrl}&apiKeyEnv=REPO_E2E_KEY`;
    const env = { ...process.env, REPO_E2E_KEY: 'k', COREB_CACHE_DIR: join(tmp, 'cache') };
    // asynchronous: the embedding server answers from this process
    const e = await runCliAsync(['eval', '--data', out, '--retriever', spec, '--format', 'json', '--quiet', '--no-per-query'], { env });
    assert.equal(e.status, 0, e.stderr);
    const row = (
      JSON.parse(e.stdout) as { retrievers: Array<{ overall: { queries: number }; fileLevel?: unknown; description: Record<string, unknown> }> }
    ).retrievers[0];
    assert.ok(row.overall.queries > 0);
    assert.ok(row.fileLevel !== undefined, 'file-level figures for the hybrid row');
    assert.ok(server.embedded() > 0, 'the embedder was called');
    const { url, child } = await startServe(['--data', out, '--retriever', spec], env);
    try {
      const r = (await (await fetch(`${url}/search?q=upper&k=3&lang=python`)).json()) as { hits: Array<{ language: string }> };
      assert.equal(r.hits.length, 3);
      assert.ok(r.hits.every((h) => h.language === 'python'));
    } finally {
      child.kill('SIGKILL');
    }
  } finally {
    await server.close();
  }
});
