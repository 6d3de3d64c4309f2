/**
 * Reading a git repository through the `git` command: the commit a date falls after, the files of a
 * commit and their contents (one `git cat-file --batch` process), the commits of a time window, and
 * diffs with renames followed, parsed into line hunks. What a repository benchmark needs from
 * history, nothing that writes.
 */
import { execFile, spawn } from 'node:child_process';
import { CorebError } from '../core/errors.js';

/** One commit as `git log` reports it. */
export interface GitCommit {
  sha: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  /** Committer date, ISO 8601 (strict). */
  date: string;
  subject: string;
  /** The message after the subject, trimmed ('' when none). */
  body: string;
}

/** A file of a commit's tree. */
export interface GitFile {
  path: string;
  /** Blob size in bytes. */
  size: number;
  /** Git file mode (`100644`, `100755`, `120000` symlink, `160000` submodule). */
  mode: string;
  /** Blob id. */
  blob: string;
}

/** A hunk of a unified diff with zero context: lines `oldStart..oldStart+oldCount-1` became `newStart..`. */
export interface DiffHunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

/** One file of a diff. */
export interface FileDiff {
  /** Path before (null for an added file). */
  oldPath: string | null;
  /** Path after (null for a deleted file). */
  newPath: string | null;
  /** True when git reports a binary change (no hunks). */
  binary: boolean;
  hunks: DiffHunk[];
}

/** A repository to read. */
export interface GitRepo {
  readonly dir: string;
  /** The newest commit on HEAD's first-parent line committed before `date` (ISO 8601), or undefined. */
  commitBefore(date: string, ref?: string): Promise<string | undefined>;
  /** The files of `commit`'s tree (regular files, symlinks and submodules with their modes). */
  listFiles(commit: string): Promise<GitFile[]>;
  /** Blob contents by blob id (one batch process for all). */
  readBlobs(blobs: readonly string[]): Promise<Map<string, Buffer>>;
  /** Commits reachable from `ref` (default HEAD) committed in [since, until), oldest first, merges included. */
  commits(since: string, until?: string, ref?: string): Promise<GitCommit[]>;
  /** The diff `from` -> `to` with renames followed (`-M`), zero context lines; `paths` limits it. */
  diff(from: string, to: string, paths?: readonly string[]): Promise<FileDiff[]>;
  /** Files renamed between `from` and `to` (`-M`): path in `to` -> path in `from`. */
  renamedPaths(from: string, to: string): Promise<Map<string, string>>;
}

function git(dir: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-C', dir, '-c', 'core.quotePath=false', ...args], { maxBuffer: 1 << 30, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err !== null) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') reject(new CorebError('TOOLCHAIN', 'git is not installed (apt-get install -y git)', { cause: err }));
        else reject(new CorebError('IO', `git ${args[0]} failed in ${dir}: ${stderr.trim() || err.message}`, { file: dir, cause: err }));
        return;
      }
      resolve(stdout);
    });
  });
}

/** Parses `git diff --unified=0 -M --no-color` output. */
export function parseGitDiff(text: string): FileDiff[] {
  const out: FileDiff[] = [];
  let cur: FileDiff | undefined;
  const unquote = (p: string): string => (p.startsWith('"') ? (JSON.parse(p) as string) : p);
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const m = /^diff --git (?:"?a\/)(.*?)"? (?:"?b\/)(.*?)"?$/.exec(line);
      cur = { oldPath: m?.[1] ?? null, newPath: m?.[2] ?? null, binary: false, hunks: [] };
      out.push(cur);
      continue;
    }
    if (cur === undefined) continue;
    if (line.startsWith('--- ')) {
      const p = line.slice(4);
      cur.oldPath = p === '/dev/null' ? null : unquote(p).replace(/^a\//, '');
    } else if (line.startsWith('+++ ')) {
      const p = line.slice(4);
      cur.newPath = p === '/dev/null' ? null : unquote(p).replace(/^b\//, '');
    } else if (line.startsWith('rename from ')) cur.oldPath = line.slice(12);
    else if (line.startsWith('rename to ')) cur.newPath = line.slice(10);
    else if (line.startsWith('new file mode')) cur.oldPath = null;
    else if (line.startsWith('deleted file mode')) cur.newPath = null;
    else if (line.startsWith('Binary files ')) cur.binary = true;
    else if (line.startsWith('@@ ')) {
      const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (h !== null) {
        cur.hunks.push({
          oldStart: Number(h[1]),
          oldCount: h[2] === undefined ? 1 : Number(h[2]),
          newStart: Number(h[3]),
          newCount: h[4] === undefined ? 1 : Number(h[4]),
        });
      }
    }
  }
  return out;
}

/**
 * Opens the repository at `dir` (a work tree or a bare repository).
 * @throws CorebError `NOT_FOUND` when `dir` is not a git repository.
 */
export async function openGitRepo(dir: string): Promise<GitRepo> {
  try {
    await git(dir, ['rev-parse', '--git-dir']);
  } catch (e) {
    if ((e as CorebError).code === 'TOOLCHAIN') throw e;
    throw new CorebError('NOT_FOUND', `${dir} is not a git repository`, { file: dir, cause: e });
  }
  const SEP = '\u001f';
  const END = '\u001e';
  return {
    dir,
    async commitBefore(date, ref = 'HEAD') {
      const sha = (await git(dir, ['rev-list', '-1', '--first-parent', `--before=${date}`, ref])).trim();
      return sha === '' ? undefined : sha;
    },
    async listFiles(commit) {
      const text = await git(dir, ['ls-tree', '-r', '-z', '-l', commit]);
      const out: GitFile[] = [];
      for (const rec of text.split('\0')) {
        if (rec === '') continue;
        const tab = rec.indexOf('\t');
        const [mode, , blob, size] = rec.slice(0, tab).split(/\s+/);
        out.push({ path: rec.slice(tab + 1), mode, blob, size: size === '-' ? 0 : Number(size) });
      }
      return out;
    },
    readBlobs(blobs) {
      return new Promise((resolve, reject) => {
        const child = spawn('git', ['-C', dir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
        const chunks: Buffer[] = [];
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => chunks.push(d));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', (e) => reject(new CorebError('TOOLCHAIN', `cannot run git (${e.message})`, { cause: e })));
        child.on('close', (code) => {
          if (code !== 0) {
            reject(new CorebError('IO', `git cat-file failed in ${dir}: ${stderr.trim()}`, { file: dir }));
            return;
          }
          const all = Buffer.concat(chunks);
          const out = new Map<string, Buffer>();
          let at = 0;
          while (at < all.length) {
            const nl = all.indexOf(10, at);
            const header = all.subarray(at, nl).toString('utf8').split(' ');
            at = nl + 1;
            if (header[1] === 'missing') continue;
            const size = Number(header[2]);
            out.set(header[0], all.subarray(at, at + size));
            at += size + 1;
          }
          resolve(out);
        });
        child.stdin.end(blobs.map((b) => `${b}\n`).join(''));
      });
    },
    async commits(since, until, ref = 'HEAD') {
      const args = ['log', '--reverse', `--since=${since}`, `--format=%H${SEP}%P${SEP}%an${SEP}%ae${SEP}%cI${SEP}%s${SEP}%b${END}`];
      if (until !== undefined) args.push(`--until=${until}`);
      args.push(ref);
      const text = await git(dir, args);
      const out: GitCommit[] = [];
      for (const rec of text.split(END)) {
        const r = rec.replace(/^\n/, '');
        if (r.trim() === '') continue;
        const [sha, parents, authorName, authorEmail, date, subject, body] = r.split(SEP);
        // --until is inclusive in git; the window is [since, until).
        if (until !== undefined && Date.parse(date) >= Date.parse(until)) continue;
        out.push({ sha, parents: parents.split(' ').filter((p) => p !== ''), authorName, authorEmail, date, subject, body: (body ?? '').trim() });
      }
      return out;
    },
    async renamedPaths(from, to) {
      const out = new Map<string, string>();
      const parts = (await git(dir, ['diff', '-M', '--name-status', '-z', from, to])).split('\0');
      for (let i = 0; i < parts.length; ) {
        const status = parts[i];
        if (status === '') break;
        if (status.startsWith('R') || status.startsWith('C')) {
          if (status.startsWith('R')) out.set(parts[i + 2], parts[i + 1]);
          i += 3;
        } else i += 2;
      }
      return out;
    },
    async diff(from, to, paths) {
      const args = ['diff', '-M', '--unified=0', '--no-color', '--no-ext-diff', from, to];
      if (paths !== undefined && paths.length > 0) args.push('--', ...paths);
      return parseGitDiff(await git(dir, args));
    },
  };
}
