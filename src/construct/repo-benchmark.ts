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
  logger?: Logger;
  /** Progress of the two long steps of each repository: the snapshot's files read and chunked, the window's commits. */
  progress?: Progress;
  signal?: AbortSignal;
}

/** Defaults of {@link RepoBuildOptions}. */
export const REPO_BUILD_DEFAULTS = { maxFiles: 10, bodyQueries: true, noise: 'drop' } as const;

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
  const chunker = createCodeChunker();
  const docs: Array<Record<string, unknown>> = [];
  const queries: Array<Record<string, unknown>> = [];
  const qrels: string[] = ['query-id\tcorpus-id\tscore'];
  const manifest: RepoManifest = {
    format: 'coreb-repo-benchmark',
    version: 1,
    createdAt: new Date().toISOString(),
    window: { since: options.since, until: options.until ?? null },
    contamination: `queries are commits made on or after ${options.since}; the corpus is each repository as it was before that date. A model whose training data ends before ${options.since} cannot have seen the queries or their answers (it may have seen the corpus).`,
    layout: 'beir',
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
    const chunksOf = new Map<string, CodeChunk[]>();
    progress.start(`${name}: chunking the snapshot`, files.length);
    for (const f of files) {
      progress.tick();
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
      const chunks = await chunker.chunk(f.path, content.toString('utf8'));
      if (chunks.length === 0) {
        skip('empty');
        continue;
      }
      chunksOf.set(f.path, chunks);
      entry.files++;
      for (const c of chunks) {
        docs.push({
          _id: chunkId(name, c),
          title: c.path,
          text: c.text,
          meta_repo: name,
          meta_path: c.path,
          meta_start_line: c.startLine,
          meta_end_line: c.endLine,
          meta_symbol: c.symbol,
          meta_kind: c.kind,
          meta_language: c.language,
        });
        entry.chunks++;
      }
    }
    progress.done();
    logger.info(`${name}: snapshot ${snapshot.slice(0, 12)}: ${entry.files} files, ${entry.chunks} chunks`);
    // The queries: commits of the window, each judged against the snapshot.
    const commits = await repo.commits(options.since, options.until);
    entry.commits = commits.length;
    progress.start(`${name}: commits`, commits.length);
    for (const c of commits) {
      progress.tick();
      if (options.signal?.aborted) throw new CorebError('INTERRUPTED', 'coreb repo build interrupted; nothing was written');
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
      const parent = c.parents[0];
      let changes: FileDiff[];
      try {
        changes = (await repo.diff(parent, c.sha)).filter((d) => !d.binary);
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
      // Lines of the parent each change touches, mapped back to the snapshot (renames followed).
      const touched = code.filter((d) => d.oldPath !== null);
      // Files renamed since the snapshot: both names in the pathspec, so git pairs them again.
      let back: FileDiff[] = [];
      try {
        // A path the snapshot has is itself in the snapshot: the whole-tree rename detection (one
        // diff of the snapshot against the parent, slower as the window grows) is only asked when
        // a touched file was not there under its name.
        const renamed = touched.some((d) => !snapshotPaths.has(d.oldPath as string))
          ? await repo.renamedPaths(snapshot, parent)
          : new Map<string, string>();
        const paths = touched.flatMap((d) => [
          d.oldPath as string,
          ...(renamed.has(d.oldPath as string) ? [renamed.get(d.oldPath as string) as string] : []),
        ]);
        // line endings and trailing spaces changed since the snapshot are not changes of the code
        if (touched.length > 0) back = await repo.diff(snapshot, parent, paths, { ignoreLineEnds: true });
      } catch (e) {
        if (!isMissingObjectError(e)) throw e;
        drop('missing-objects');
        continue;
      }
      const relevant = new Set<string>();
      const sameFile = new Set<string>();
      let approximated = false;
      for (const d of touched) {
        const fromSnapshot = back.find((b) => b.newPath === d.oldPath);
        if (fromSnapshot !== undefined && fromSnapshot.oldPath === null) continue; // added after the snapshot
        const snapPath = fromSnapshot?.oldPath ?? (d.oldPath as string);
        const chunks = chunksOf.get(snapPath);
        if (chunks === undefined) continue;
        const lines = new Set<number>();
        for (const l of touchedOldLines(d.hunks)) {
          if (fromSnapshot === undefined) {
            lines.add(l);
            continue;
          }
          if (changedSinceSnapshot(l, fromSnapshot.hunks)) approximated = true;
          for (const s of mapToSnapshot(l, fromSnapshot.hunks)) lines.add(s);
        }
        for (const ch of chunks) {
          const id = chunkId(name, ch);
          let hit = false;
          for (let l = ch.startLine; l <= ch.endLine && !hit; l++) hit = lines.has(l);
          if (hit) relevant.add(id);
          else sameFile.add(id);
        }
      }
      if (relevant.size === 0) {
        drop('no-snapshot-chunk');
        continue;
      }
      const base = `${name}-${c.sha.slice(0, 12)}`;
      const meta = {
        meta_repo: name,
        meta_commit: c.sha,
        meta_date: c.date,
        meta_files: code.map((d) => d.newPath ?? d.oldPath),
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
    logger.info(
      `${name}: ${entry.commits} commits in the window, ${entry.queries} queries (labels: ${labels.exact} exact, ${labels.approximated} approximated); dropped ${JSON.stringify(entry.droppedCommits)}`,
    );
    return entry;
  }
}
