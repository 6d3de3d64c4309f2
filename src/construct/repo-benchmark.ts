/**
 * A code-search benchmark from a repository's history, CoREB's way: the corpus is the repository at
 * its last commit before `since` (chunked by tree-sitter), the queries are the messages of the
 * commits after it (a time split: contamination-limited for models trained before `since`), and
 * the graded qrels come from what each commit really changed: relevance 2 for the snapshot chunks
 * its diff touches, 1 for the other chunks of the files it touches. Written in the BEIR layout
 * (`corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`) with a manifest that says what each filter dropped.
 */
import { basename, join, resolve } from 'node:path';
import { CorebError } from '../core/errors.js';
import { EventLoopTurns } from '../core/event-loop-turns.js';
import type { Logger, Progress } from '../core/progress.js';
import { silentLogger, silentProgress } from '../core/progress.js';
import { createCodeChunker, languageOfPath, type CodeChunk } from '../dataset/code-chunks.js';
import { isMissingObjectError, openGitRepo, type DiffHunk, type FileDiff, type GitCommit, type GitEnv, type GitRepo } from '../dataset/git-repo.js';
import { saveAtomic, saveLinesAtomic } from '../dataset/atomic-write.js';
import { chunkId, GENERATED_FILES, MAX_FILE_BYTES, skipReason, VENDORED_DIRS } from '../dataset/source-files.js';

export { chunkId, GENERATED_FILES, MAX_FILE_BYTES, skipReason, VENDORED_DIRS };
import type { IssueRecord } from '../dataset/issue-titles.js';
import { cleanQueryText, closedIssues, NOISE_RULES, noiseReason, TRAILER_KEYS } from './commit-queries.js';

/** Options of {@link buildRepoBenchmark}. */
export interface RepoBuildOptions {
  /** Repository directories (work trees or bare), each optionally `NAME=PATH` (default name: the folder's). */
  repos: readonly string[];
  /** Start of the query window (ISO 8601 date); the snapshot is the last commit before it. */
  since: string;
  /**
   * The environment git starts from (PATH, locale; `GIT_*` variables and configuration are dropped,
   * dataset/git-repo.ts `safeGitEnv`); default PATH `/usr/local/bin:/usr/bin:/bin`.
   */
  gitEnv?: GitEnv;
  /** End of the window (exclusive); default: now. */
  until?: string;
  /** Output directory (BEIR layout + manifest.json). */
  out: string;
  /** Commits touching more code files than this are dropped. Default 10. */
  maxFiles?: number;
  /** Also a query of the whole message (subject + body) for commits with a body. Default true. */
  bodyQueries?: boolean;
  /**
   * Issues by number (a local export of the repositories' issues): a commit whose message closes
   * a known issue (`Fixes #N`, `Closes #N`, `Resolves #N`) also gets a query of that issue's title
   * and body (type `issue`).
   */
  issues?: ReadonlyMap<number, IssueRecord>;
  /**
   * Commits whose subject describes no searchable change ({@link NOISE_RULES}: a version bump,
   * "Polishing", a lint or formatting pass, a typo fix): `drop` (default) counts them in the
   * manifest as `noise-<rule>`; `keep` keeps them, their queries marked `meta_noise`.
   */
  noise?: 'drop' | 'keep';
  /**
   * What each query is searched and labelled against. `snapshot` (default): one corpus, the
   * repository before `since`; lines a commit changes are mapped back to it (approximated when they
   * were rewritten since). `parent`: the repository at each query's parent commit, as SWE-bench-style
   * benchmarks search it: the snapshot's chunks plus a new version of every chunk changed later, each
   * valid over a range of states (`meta_valid_from`, `meta_valid_until`: the sequence numbers of the
   * parents, the snapshot 0), every query naming its own (`meta_base`, `meta_base_seq`); labels exact.
   */
  corpusAt?: 'snapshot' | 'parent';
  logger?: Logger;
  /** Progress of the two long steps of each repository: the snapshot's files read and chunked, the window's commits. */
  progress?: Progress;
  signal?: AbortSignal;
}

/** Defaults of {@link RepoBuildOptions}. */
export const REPO_BUILD_DEFAULTS = { maxFiles: 10, bodyQueries: true, noise: 'drop', corpusAt: 'snapshot' } as const;

/** Why a commit gives no query, or undefined when it does (before looking at the snapshot). */
export function commitSkipReason(c: GitCommit): string | undefined {
  if (c.parents.length > 1) return 'merge';
  if (c.parents.length === 0) return 'root';
  if (/^Revert\b/i.test(c.subject) || /This reverts commit [0-9a-f]{7,}/.test(c.body)) return 'revert';
  if (/\[bot\]|(^|[^a-z])bot@|dependabot|renovate|github-actions/i.test(`${c.authorName} ${c.authorEmail}`)) return 'bot';
  if (c.subject.trim() === '') return 'empty-message';
  return undefined;
}

/**
 * Lines of the old side a diff's hunks touch: each hunk's old lines, and for a pure insertion
 * (old count 0, after line L) lines L and L + 1, the lines it sits between.
 */
export function touchedOldLines(hunks: readonly DiffHunk[]): number[] {
  const out = new Set<number>();
  for (const h of hunks) {
    if (h.oldCount > 0) for (let l = h.oldStart; l < h.oldStart + h.oldCount; l++) out.add(l);
    else {
      if (h.oldStart >= 1) out.add(h.oldStart);
      out.add(h.oldStart + 1);
    }
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * Replaced hunks of at least this many snapshot lines are mapped line by line in proportion, not as
 * a whole: a rewrite of a whole file (a line-ending or encoding conversion, a reformat) would
 * otherwise make every chunk of the file relevant to every later change of it.
 */
export const PROPORTIONAL_HUNK_LINES = 40;

/**
 * Maps a line of a later version of a file back to the snapshot through the diff snapshot -> later
 * (`hunks`: old = snapshot, new = later): a line outside every hunk moves by the lines added and
 * removed before it; a line inside a hunk (changed since the snapshot) maps to the snapshot lines
 * that hunk replaced: line for line when the hunk kept the number of lines, the band in proportion
 * when it replaced {@link PROPORTIONAL_HUNK_LINES} lines or more, else the whole range (the lines
 * around it for a pure insertion).
 */
export function mapToSnapshot(line: number, hunks: readonly DiffHunk[]): number[] {
  let delta = 0;
  for (const h of hunks) {
    const newEnd = h.newStart + h.newCount - 1;
    if (h.newCount > 0 && line >= h.newStart && line <= newEnd) {
      const i = line - h.newStart;
      if (h.oldCount > 0 && h.oldCount === h.newCount) return [h.oldStart + i];
      if (h.oldCount >= PROPORTIONAL_HUNK_LINES) {
        const from = Math.floor((i * h.oldCount) / h.newCount);
        const to = Math.max(from, Math.ceil(((i + 1) * h.oldCount) / h.newCount) - 1);
        return Array.from({ length: to - from + 1 }, (_, k) => h.oldStart + from + k);
      }
      if (h.oldCount > 0) return Array.from({ length: h.oldCount }, (_, k) => h.oldStart + k);
      return [h.oldStart, h.oldStart + 1].filter((l) => l >= 1);
    }
    const before = h.newCount > 0 ? line < h.newStart : line <= h.newStart;
    if (before) break;
    delta += h.newCount - h.oldCount;
  }
  return [line - delta];
}

/**
 * True when line `line` of a later version of a file (the new side of `hunks`, the diff snapshot ->
 * later) was written after the snapshot: inside a hunk that added or replaced lines. Such a line has
 * no counterpart in the snapshot, and {@link mapToSnapshot} gives an approximation for it.
 */
export function changedSinceSnapshot(line: number, hunks: readonly DiffHunk[]): boolean {
  for (const h of hunks) if (h.newCount > 0 && line >= h.newStart && line < h.newStart + h.newCount) return true;
  return false;
}

/** The manifest of a repository benchmark. */
export interface RepoManifest {
  format: 'coreb-repo-benchmark';
  version: 1;
  createdAt: string;
  window: { since: string; until: string | null };
  contamination: string;
  layout: 'beir';
  /**
   * What queries are searched against (see {@link RepoBuildOptions.corpusAt}); absent in manifests
   * written before the option (`snapshot`).
   */
  corpusAt?: 'snapshot' | 'parent';
  repositories: Array<{
    name: string;
    path: string;
    snapshot: string;
    files: number;
    chunks: number;
    skippedFiles: Record<string, number>;
    commits: number;
    queries: number;
    droppedCommits: Record<string, number>;
    /**
     * Commits kept, by how their labels were found: `exact` when every line the commit changed is
     * in the snapshot as it was, `approximated` when some had been changed since the snapshot and
     * were mapped back by {@link mapToSnapshot} (their queries carry `meta_labels: "approximated"`).
     */
    labels?: { exact: number; approximated: number };
    /** `corpusAt: parent`: the states the corpus went through (the snapshot and each distinct parent applied, in order). */
    states?: number;
    /** `corpusAt: parent`: chunks added after the snapshot (new versions of changed code). */
    versions?: number;
  }>;
  filters: {
    maxFiles: number;
    bodyQueries: boolean;
    vendored: readonly string[];
    generated: string[];
    maxFileBytes: number;
    /** What was taken out of every query's text. */
    cleaning?: { trailers: readonly string[]; urls: true; subjectPullRequestNumber: true };
    /** The noise rules (subject patterns) and whether matching commits were dropped or kept marked. */
    noise?: { mode: 'drop' | 'keep'; rules: Record<string, string> };
    /** How issue queries were linked to commits. */
    issueLinks?: string;
  };
  /** Queries per type (`subject`, `message`, `issue`) over all repositories. */
  queryTypes?: Record<string, number>;
  counts: { docs: number; queries: number; qrels: { relevant: number; sameFile: number } };
}

/**
 * Builds the benchmark and writes it to `out`.
 * @throws CorebError `NOT_FOUND` when a repository has no commit before `since`.
 */
export async function buildRepoBenchmark(options: RepoBuildOptions): Promise<RepoManifest> {
  const logger = options.logger ?? silentLogger;
  const progress = options.progress ?? silentProgress;
  const maxFiles = options.maxFiles ?? REPO_BUILD_DEFAULTS.maxFiles;
  const bodyQueries = options.bodyQueries ?? REPO_BUILD_DEFAULTS.bodyQueries;
  const noiseMode = options.noise ?? REPO_BUILD_DEFAULTS.noise;
  const corpusAt = options.corpusAt ?? REPO_BUILD_DEFAULTS.corpusAt;
  const perCommit = corpusAt === 'parent';
  const chunker = createCodeChunker();
  // Ctrl-C stops the build within a turn of the event loop (every 50 ms of work); nothing is written before the end.
  const turns = new EventLoopTurns(options.signal);
  const stopped = () => 'coreb repo build interrupted; nothing was written';
  const docs: Array<Record<string, unknown>> = [];
  const queries: Array<Record<string, unknown>> = [];
  const qrels: string[] = ['query-id\tcorpus-id\tscore'];
  const manifest: RepoManifest = {
    format: 'coreb-repo-benchmark',
    version: 1,
    createdAt: new Date().toISOString(),
    window: { since: options.since, until: options.until ?? null },
    contamination: perCommit
      ? `queries are commits made on or after ${options.since}; each is searched in its repository as it was at the commit's parent (the repository before that date, then every later version of the code up to the parent). A model whose training data ends before ${options.since} cannot have seen the queries or their answers (it may have seen the code as it was before that date).`
      : `queries are commits made on or after ${options.since}; the corpus is each repository as it was before that date. A model whose training data ends before ${options.since} cannot have seen the queries or their answers (it may have seen the corpus).`,
    layout: 'beir',
    corpusAt,
    repositories: [],
    filters: {
      maxFiles,
      bodyQueries,
      vendored: VENDORED_DIRS,
      generated: GENERATED_FILES.map((r) => r.source),
      maxFileBytes: MAX_FILE_BYTES,
      cleaning: { trailers: TRAILER_KEYS, urls: true, subjectPullRequestNumber: true },
      noise: { mode: noiseMode, rules: Object.fromEntries(NOISE_RULES.map((r) => [r.reason, r.subject.source])) },
      issueLinks: 'a commit message closing #N (close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved; GitHub keywords)',
    },
    queryTypes: {},
    counts: { docs: 0, queries: 0, qrels: { relevant: 0, sameFile: 0 } },
  };
  const names = new Set<string>();
  for (const given of options.repos) {
    // `NAME=PATH` names the repository; else its folder does (`x.git` -> `x`).
    const eq = /^([A-Za-z0-9._-]+)=(.+)$/.exec(given);
    const dir = eq === null ? given : eq[2];
    const repo = await openGitRepo(resolve(dir), options.gitEnv === undefined ? {} : { env: options.gitEnv });
    const base =
      eq?.[1] ??
      basename(resolve(dir))
        .replace(/\.git$/, '')
        .replace(/\s/g, '_');
    let name = base;
    for (let i = 2; names.has(name); i++) name = `${base}-${i}`;
    names.add(name);
    try {
      manifest.repositories.push(await buildOne(repo, name, dir));
    } finally {
      repo.close();
    }
  }
  manifest.counts.docs = docs.length;
  manifest.counts.queries = queries.length;
  await saveLinesAtomic(
    join(options.out, 'corpus.jsonl'),
    docs.map((d) => JSON.stringify(d)),
  );
  await saveLinesAtomic(
    join(options.out, 'queries.jsonl'),
    queries.map((q) => JSON.stringify(q)),
  );
  await saveLinesAtomic(join(options.out, 'qrels', 'test.tsv'), qrels);
  await saveAtomic(join(options.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;

  async function buildOne(repo: GitRepo, name: string, path: string): Promise<RepoManifest['repositories'][number]> {
    const snapshot = await repo.commitBefore(options.since);
    if (snapshot === undefined)
      throw new CorebError('NOT_FOUND', `${path}: no commit before ${options.since}: nothing to take the corpus from`, { file: path });
    const entry: RepoManifest['repositories'][number] = {
      name,
      path,
      snapshot,
      files: 0,
      chunks: 0,
      skippedFiles: {},
      commits: 0,
      queries: 0,
      droppedCommits: {},
    };
    const labels = { exact: 0, approximated: 0 };
    entry.labels = labels;
    const skip = (r: string) => (entry.skippedFiles[r] = (entry.skippedFiles[r] ?? 0) + 1);
    const drop = (r: string) => (entry.droppedCommits[r] = (entry.droppedCommits[r] ?? 0) + 1);
    // The corpus: every text file of the snapshot that passes the rules, chunked.
    const listed = await repo.listFiles(snapshot);
    const snapshotPaths = new Set(listed.map((f) => f.path));
    const files = listed.filter((f) => {
      const r = skipReason(f);
      if (r !== undefined) skip(r);
      return r === undefined;
    });
    const blobs = await repo.readBlobs(files.map((f) => f.blob));
    const corpus = new VersionedCorpus(name, chunker, docs, perCommit, snapshot);
    progress.start(`${name}: chunking the snapshot`, files.length);
    for (const f of files) {
      progress.tick();
      if (turns.due()) await turns.take(stopped);
      const content = blobs.get(f.blob);
      if (content === undefined) {
        // not in the repository (a partial clone that never fetched it): counted, not guessed
        skip('missing-object');
        continue;
      }
      const r = skipReason(f, content);
      if (r !== undefined) {
        skip(r);
        continue;
      }
      if (!(await corpus.setFile(f.path, content))) {
        skip('empty');
        continue;
      }
      entry.files++;
    }
    entry.chunks = docs.filter((d) => d.meta_repo === name).length;
    progress.done();
    logger.info(`${name}: snapshot ${snapshot.slice(0, 12)}: ${entry.files} files, ${entry.chunks} chunks`);
    // The queries: commits of the window, each judged against the snapshot (or its parent). First
    // what each commit changed (no corpus needed), then the labels of those kept.
    const commits = await repo.commits(options.since, options.until);
    entry.commits = commits.length;
    interface Candidate {
      c: GitCommit;
      subject: string;
      noise: string | undefined;
      code: FileDiff[];
      judged?: { relevant: Set<string>; sameFile: Set<string>; approximated: boolean; seq: number };
    }
    const candidates: Candidate[] = [];
    progress.start(`${name}: commits`, commits.length);
    for (const c of commits) {
      progress.tick();
      if (turns.due()) await turns.take(stopped);
      const why = commitSkipReason(c);
      if (why !== undefined) {
        drop(why);
        continue;
      }
      const subject = cleanQueryText(c.subject);
      if (subject === '') {
        drop('empty-message');
        continue;
      }
      const noise = noiseReason(subject);
      if (noise !== undefined && noiseMode === 'drop') {
        drop(`noise-${noise}`);
        continue;
      }
      let changes: FileDiff[];
      try {
        changes = (await repo.diff(c.parents[0], c.sha)).filter((d) => !d.binary);
      } catch (e) {
        // an object of this commit is not in the repository (a partial or damaged clone): skipped and counted
        if (!isMissingObjectError(e)) throw e;
        drop('missing-objects');
        continue;
      }
      const code = changes.filter((d) => languageOfPath(d.newPath ?? d.oldPath ?? '') !== undefined);
      if (code.length === 0) {
        drop('no-code-files');
        continue;
      }
      if (code.length > maxFiles) {
        drop('too-many-files');
        continue;
      }
      candidates.push({ c, subject, noise, code });
    }
    progress.done();
    // Against each parent, commits are judged along the history's branches (each parent close to the
    // last), so the corpus moves by one commit's change at a time, not back and forth between branches.
    const order = perCommit ? branchOrder(commits, candidates, (x) => x.c) : candidates;
    progress.start(`${name}: labels${perCommit ? ' (the corpus moved to each parent)' : ''}`, order.length);
    for (const cand of order) {
      progress.tick();
      if (turns.due()) await turns.take(stopped);
      // The files of the parent the commit changes (a file it adds has no chunk to find).
      const touched = cand.code.filter((d) => d.oldPath !== null);
      try {
        const parent = cand.c.parents[0];
        const j = perCommit ? await judgeAtParent(corpus, touched, parent) : await judgeAtSnapshot(corpus, touched, parent);
        cand.judged = { ...j, seq: corpus.seq };
      } catch (e) {
        if (!isMissingObjectError(e)) throw e;
        drop('missing-objects');
      }
    }
    progress.done();
    // The queries, in the window's order.
    for (const { c, subject, noise, code, judged } of candidates) {
      if (judged === undefined) continue;
      const { relevant, sameFile, approximated } = judged;
      if (relevant.size === 0) {
        drop(perCommit ? 'no-parent-chunk' : 'no-snapshot-chunk');
        continue;
      }
      const base = `${name}-${c.sha.slice(0, 12)}`;
      const meta = {
        meta_repo: name,
        meta_commit: c.sha,
        meta_date: c.date,
        meta_files: code.map((d) => d.newPath ?? d.oldPath),
        ...(perCommit ? { meta_base: c.parents[0], meta_base_seq: judged.seq } : {}),
        ...(approximated ? { meta_labels: 'approximated' } : {}),
        ...(noise !== undefined ? { meta_noise: noise } : {}),
      };
      const qs: Array<{ _id: string; text: string; meta_query_type: string }> = [
        { _id: `${base}-subject`, text: subject, meta_query_type: 'subject', ...meta },
      ];
      const message = c.body.trim() === '' ? subject : cleanQueryText(`${c.subject}\n\n${c.body}`);
      if (bodyQueries && message !== subject) qs.push({ _id: `${base}-message`, text: message, meta_query_type: 'message', ...meta });
      const closed = closedIssues(`${c.subject}\n${c.body}`)
        .map((n) => options.issues?.get(n))
        .filter((i): i is IssueRecord => i !== undefined);
      const issueText = closed
        .map((i) => cleanQueryText(i.body !== '' ? `${i.title}\n\n${i.body}` : i.title))
        .filter((t) => t !== '')
        .join('\n\n');
      if (issueText !== '') {
        qs.push({
          _id: `${base}-issue`,
          text: issueText,
          meta_query_type: 'issue',
          ...meta,
          meta_issues: closed.map((i) => i.number),
        } as (typeof qs)[number]);
      }
      for (const q of qs) {
        queries.push(q);
        manifest.queryTypes![q.meta_query_type] = (manifest.queryTypes![q.meta_query_type] ?? 0) + 1;
        for (const id of relevant) qrels.push(`${q._id}\t${id}\t2`);
        for (const id of sameFile) if (!relevant.has(id)) qrels.push(`${q._id}\t${id}\t1`);
        manifest.counts.qrels.relevant += relevant.size;
        manifest.counts.qrels.sameFile += [...sameFile].filter((id) => !relevant.has(id)).length;
      }
      entry.queries += qs.length;
      labels[approximated ? 'approximated' : 'exact']++;
    }
    if (perCommit) {
      entry.states = corpus.seq + 1;
      entry.versions = docs.filter((d) => d.meta_repo === name).length - entry.chunks;
    }
    logger.info(
      `${name}: ${entry.commits} commits in the window, ${entry.queries} queries (labels: ${labels.exact} exact, ${labels.approximated} approximated${perCommit ? `; ${entry.states} corpus states, ${entry.versions} chunk versions after the snapshot` : ''}); dropped ${JSON.stringify(entry.droppedCommits)}`,
    );
    return entry;

    /**
     * The labels of a commit against the snapshot: the lines it touches in its parent, mapped back
     * to the snapshot through the diff snapshot -> parent (renames followed).
     */
    async function judgeAtSnapshot(corpus: VersionedCorpus, touched: readonly FileDiff[], parent: string) {
      // Files renamed since the snapshot: both names in the pathspec, so git pairs them again. A
      // path the snapshot has is itself in the snapshot: the whole-tree rename detection (one diff
      // of the snapshot against the parent, slower as the window grows) is only asked when a touched
      // file was not there under its name.
      const renamed = touched.some((d) => !snapshotPaths.has(d.oldPath as string))
        ? await repo.renamedPaths(snapshot as string, parent)
        : new Map<string, string>();
      const paths = touched.flatMap((d) => [
        d.oldPath as string,
        ...(renamed.has(d.oldPath as string) ? [renamed.get(d.oldPath as string) as string] : []),
      ]);
      // line endings and trailing spaces changed since the snapshot are not changes of the code
      const back = touched.length > 0 ? await repo.diff(snapshot as string, parent, paths, { ignoreLineEnds: true }) : [];
      const out = { relevant: new Set<string>(), sameFile: new Set<string>(), approximated: false };
      for (const d of touched) {
        const fromSnapshot = back.find((b) => b.newPath === d.oldPath);
        if (fromSnapshot !== undefined && fromSnapshot.oldPath === null) continue; // added after the snapshot
        const lines = new Set<number>();
        for (const l of touchedOldLines(d.hunks)) {
          if (fromSnapshot === undefined) {
            lines.add(l);
            continue;
          }
          if (changedSinceSnapshot(l, fromSnapshot.hunks)) out.approximated = true;
          for (const s of mapToSnapshot(l, fromSnapshot.hunks)) lines.add(s);
        }
        corpus.judge(fromSnapshot?.oldPath ?? (d.oldPath as string), lines, out);
      }
      return out;
    }

    /** The labels of a commit against its parent: the corpus moved to the parent first, the lines it touches read as they are. */
    async function judgeAtParent(corpus: VersionedCorpus, touched: readonly FileDiff[], parent: string) {
      await corpus.moveTo(parent, repo);
      const out = { relevant: new Set<string>(), sameFile: new Set<string>(), approximated: false };
      for (const d of touched) corpus.judge(d.oldPath as string, new Set(touchedOldLines(d.hunks)), out);
      return out;
    }
  }
}

/**
 * `items` (commits of `window`, oldest first) in the order of a depth-first walk of the window's
 * first-parent tree: a commit, then its children (oldest first), each branch to its end before the
 * next, so that one item's parent is most often the last item's commit.
 */
export function branchOrder<T>(window: readonly GitCommit[], items: readonly T[], commitOf: (item: T) => GitCommit): T[] {
  const inWindow = new Set(window.map((c) => c.sha));
  const children = new Map<string, GitCommit[]>();
  const roots: GitCommit[] = [];
  for (const c of window) {
    const p = c.parents[0];
    if (p === undefined || !inWindow.has(p)) roots.push(c);
    else {
      const l = children.get(p);
      if (l === undefined) children.set(p, [c]);
      else l.push(c);
    }
  }
  const rank = new Map<string, number>();
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const c = stack.pop() as GitCommit;
    rank.set(c.sha, rank.size);
    const kids = children.get(c.sha) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return [...items].sort((a, b) => (rank.get(commitOf(a).sha) ?? 0) - (rank.get(commitOf(b).sha) ?? 0));
}

/** A chunk of the corpus as it stands and the document written for it. */
interface LiveChunk {
  chunk: CodeChunk;
  /** Its document's id: the chunk's {@link chunkId} where it first appeared, `@<commit12>` appended when an earlier version had that id. */
  id: string;
  doc: Record<string, unknown>;
}

/**
 * One repository's corpus as it stands at the current state, and the documents written for it.
 * In the snapshot mode it holds the snapshot. In the parent mode ({@link RepoBuildOptions.corpusAt})
 * {@link moveTo} applies the changes between the current state and a commit: a changed file is
 * chunked again; a chunk whose text the file still holds stays the same document (lines added above
 * it only move it: its id and `meta_*_line` fields stay those of the state it first appeared in,
 * the labels read its current lines), every other chunk ends its document's validity
 * (`meta_valid_until`) and a new document starts (`meta_valid_from`, its id `chunkId@<commit12>`
 * when the plain id was taken by an earlier version).
 */
class VersionedCorpus {
  /** Sequence number of the current state (0: the snapshot). */
  seq = 0;
  private readonly files = new Map<string, LiveChunk[]>();
  private readonly used = new Set<string>();

  constructor(
    private readonly repoName: string,
    private readonly chunker: ReturnType<typeof createCodeChunker>,
    private readonly docs: Array<Record<string, unknown>>,
    private readonly versioned: boolean,
    /** The commit the corpus stands at: the snapshot's, then each {@link moveTo}'s. */
    private at: string,
  ) {}

  /** Chunks `content` as the file at `path` in the current state (nothing when it yields no chunk); false when it yields none. */
  async setFile(path: string, content: Buffer): Promise<boolean> {
    const chunks = await this.chunker.chunk(path, content.toString('utf8'));
    this.replace(path, chunks);
    return chunks.length > 0;
  }

  /** Adds `relevant` (chunks holding one of `lines`) and `sameFile` (the file's other chunks) of `path`'s current chunks. */
  judge(path: string, lines: ReadonlySet<number>, out: { relevant: Set<string>; sameFile: Set<string> }): void {
    for (const { chunk, id } of this.files.get(path) ?? []) {
      let hit = false;
      for (let l = chunk.startLine; l <= chunk.endLine && !hit; l++) hit = lines.has(l);
      (hit ? out.relevant : out.sameFile).add(id);
    }
  }

  /**
   * Moves the corpus to `commit`'s tree: every file that differs from the current state's is read
   * and chunked again (or removed), under the snapshot's file rules.
   */
  async moveTo(commit: string, repo: GitRepo): Promise<void> {
    if (commit === this.at) return;
    const changed = await repo.changedFiles(this.at, commit);
    const kept = changed.filter((f) => !f.deleted && skipReason({ ...f, size: 0 }) === undefined);
    const blobs = await repo.readBlobs(kept.map((f) => f.blob));
    this.seq++;
    this.at = commit;
    for (const f of changed) {
      const content = f.deleted ? undefined : blobs.get(f.blob);
      const gitFile = { ...f, size: content?.length ?? 0 };
      if (content === undefined || skipReason(gitFile, content) !== undefined) {
        this.replace(f.path, []);
        continue;
      }
      this.replace(f.path, await this.chunker.chunk(f.path, content.toString('utf8')));
    }
  }

  private replace(path: string, chunks: readonly CodeChunk[]): void {
    // The file's chunks by text, in order (a text may repeat in a file).
    const before = new Map<string, LiveChunk[]>();
    for (const c of this.files.get(path) ?? []) {
      const l = before.get(c.chunk.text);
      if (l === undefined) before.set(c.chunk.text, [c]);
      else l.push(c);
    }
    const now: LiveChunk[] = [];
    for (const chunk of chunks) {
      const plain = chunkId(this.repoName, chunk);
      const same = before.get(chunk.text)?.shift();
      if (same !== undefined) {
        // the same code, perhaps moved by lines added or removed above it: the same document
        now.push({ ...same, chunk });
        continue;
      }
      let id = plain;
      if (this.used.has(id)) {
        id = `${plain}@${this.at.slice(0, 12)}`;
        for (let k = 2; this.used.has(id); k++) id = `${plain}@${this.at.slice(0, 12)}.${k}`;
      }
      this.used.add(id);
      const doc: Record<string, unknown> = {
        _id: id,
        title: chunk.path,
        text: chunk.text,
        meta_repo: this.repoName,
        meta_path: chunk.path,
        meta_start_line: chunk.startLine,
        meta_end_line: chunk.endLine,
        meta_symbol: chunk.symbol,
        meta_kind: chunk.kind,
        meta_language: chunk.language,
      };
      if (this.versioned) doc.meta_valid_from = this.seq;
      this.docs.push(doc);
      now.push({ chunk, id, doc });
    }
    for (const gone of before.values()) for (const c of gone) c.doc.meta_valid_until = this.seq;
    if (now.length > 0) this.files.set(path, now);
    else this.files.delete(path);
  }
}
