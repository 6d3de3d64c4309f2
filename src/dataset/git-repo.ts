/**
 * Reading a git repository through the `git` command: the commit a date falls after, the files of a
 * commit and their contents (one `git cat-file --batch` process), the commits of a time window, and
 * diffs with renames followed, parsed into line hunks. What a repository benchmark needs from
 * history, nothing that writes.
 *
 * A repository may come from anywhere (a tarball, a shared disk), and git runs commands named in
 * configuration: diff textconv drivers, filters, fsmonitor, hooks, external diff, pager, credential
 * helpers, ssh commands. So coreb never runs git on the repository itself: it reads it through a
 * *shadow*, a bare repository of git's default configuration and no attributes that borrows the
 * objects through `objects/info/alternates` (nothing copied) and holds a copy of the refs; every git process gets an environment without the system's and the user's
 * configuration and without any `GIT_*` variable of the caller's.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve as resolvePath } from 'node:path';
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
  /**
   * True when the name is not valid UTF-8 (git stores bytes): `path` then shows each such byte as
   * `\xNN`, so two names never become the same string (they would as U+FFFD).
   */
  nonUtf8Name?: boolean;
}

/** A path of raw bytes as text: UTF-8, or (invalid UTF-8) each byte outside printable ASCII as `\xNN`. */
export function decodeGitPath(bytes: Buffer): { path: string; nonUtf8: boolean } {
  try {
    return { path: new TextDecoder('utf-8', { fatal: true }).decode(bytes), nonUtf8: false };
  } catch {
    let out = '';
    for (const b of bytes) out += b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
    return { path: out, nonUtf8: true };
  }
}

/** True when a git error says an object is not in the repository (a partial or damaged clone). */
export function isMissingObjectError(e: unknown): boolean {
  return /unable to read|bad object|missing (?:blob|tree|commit)|could not read|is not a valid object|promisor|bad revision/i.test(
    (e as Error)?.message ?? '',
  );
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

/** A file whose tree entry differs between two commits (see {@link GitRepo.changedFiles}). */
export interface ChangedFile {
  path: string;
  /** True when `to` has no file at the path. */
  deleted: boolean;
  /** Git file mode at `to` (at `from` when deleted). */
  mode: string;
  /** Blob id at `to` (at `from` when deleted). */
  blob: string;
  /** As {@link GitFile.nonUtf8Name}. */
  nonUtf8Name?: boolean;
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
  /**
   * The diff `from` -> `to` with renames followed (`-M`), zero context lines; `paths` limits it.
   * `ignoreLineEnds`: a line whose only change is its end (CRLF, trailing spaces) is unchanged.
   */
  diff(from: string, to: string, paths?: readonly string[], options?: { ignoreLineEnds?: boolean }): Promise<FileDiff[]>;
  /** Files renamed between `from` and `to` (`-M`): path in `to` -> path in `from`. */
  renamedPaths(from: string, to: string): Promise<Map<string, string>>;
  /**
   * Files that differ between two commits' trees, renames not followed (a rename is a deletion and
   * an addition): each with its state at `to` (`deleted` when gone; mode and blob then of `from`).
   */
  changedFiles(from: string, to: string): Promise<ChangedFile[]>;
  /** Removes the shadow repository coreb reads through (the repository itself is never written). */
  close(): void;
}

/**
 * The environment of every git process coreb starts: the caller's (`base`, e.g. the CLI's environment;
 * default none: PATH `/usr/local/bin:/usr/bin:/bin` and LANG `C.UTF-8`), without any `GIT_*` variable
 * (`GIT_DIR`, `GIT_CONFIG_PARAMETERS`, `GIT_EXTERNAL_DIFF`, `GIT_SSH_COMMAND`, …) or pager, editor
 * and askpass program, with no system or global configuration (`GIT_CONFIG_NOSYSTEM`,
 * `GIT_CONFIG_GLOBAL=/dev/null`), no system attributes, no prompts and no optional locks.
 */
export function safeGitEnv(base: Readonly<Record<string, string | undefined>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' };
  for (const [k, v] of Object.entries(base)) {
    if (/^GIT_/.test(k) || /^(PAGER|EDITOR|VISUAL|SSH_ASKPASS|LESS|LESSOPEN|LESSCLOSE)$/.test(k)) continue;
    env[k] = v;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    GIT_EDITOR: 'true',
    GIT_ASKPASS: 'true',
  };
}

/** An environment to start git processes from (filtered by {@link safeGitEnv}). */
export type GitEnv = Readonly<Record<string, string | undefined>>;

/**
 * Settings on every git command line: belt and braces over the shadow's clean configuration (a
 * command line setting wins over every file).
 */
const SAFE_GIT_CONFIG = [
  'core.quotePath=false',
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.attributesFile=/dev/null',
  'diff.external=',
  'credential.helper=',
  'core.sshCommand=false',
  'protocol.allow=never',
  'safe.directory=*',
].flatMap((c) => ['-c', c]);

function git(dir: string, args: readonly string[], label: string, baseEnv: GitEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['--git-dir', dir, ...SAFE_GIT_CONFIG, ...args],
      { maxBuffer: 1 << 30, encoding: 'utf8', env: safeGitEnv(baseEnv) },
      (err, stdout, stderr) => {
        if (err !== null) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') reject(new CorebError('TOOLCHAIN', 'git is not installed (apt-get install -y git)', { cause: err }));
          else reject(new CorebError('IO', `git ${args[0]} failed in ${label}: ${stderr.trim() || err.message}`, { file: label, cause: err }));
          return;
        }
        resolve(stdout);
      },
    );
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

/** Runs git with the safe environment and command-line settings; stdout, or a CorebError naming `label`. */
function gitSync(args: readonly string[], label: string, baseEnv: GitEnv): string {
  try {
    return execFileSync('git', [...SAFE_GIT_CONFIG, ...args], {
      encoding: 'utf8',
      env: safeGitEnv(baseEnv),
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 1 << 30,
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new CorebError('TOOLCHAIN', 'git is not installed (apt-get install -y git)', { cause: e });
    const stderr = String((e as { stderr?: string }).stderr ?? '').trim();
    throw new CorebError('IO', `git ${args.find((x) => !x.startsWith('-')) ?? ''} failed for ${label}: ${stderr || (e as Error).message}`, {
      file: label,
      cause: e,
    });
  }
}

/**
 * The shadow of the repository at `path`: a bare repository of git's defaults whose
 * `objects/info/alternates` borrows the repository's objects, with a copy of its refs (as
 * `packed-refs`), its `shallow` list and its HEAD (detached at the same commit). Only read-only
 * plumbing runs on the repository itself (`rev-parse`, `for-each-ref`), which reads its configuration
 * but runs nothing from it: no transport, no upload-pack, no hook.
 * @throws CorebError `NOT_FOUND` when `path` is not a git repository.
 */
function createShadow(path: string, baseEnv: GitEnv): { dir: string; root: string } {
  let info: string[];
  try {
    info = gitSync(['-C', path, 'rev-parse', '--absolute-git-dir', '--git-common-dir', '--show-object-format'], path, baseEnv).trim().split('\n');
  } catch (e) {
    if ((e as CorebError).code === 'TOOLCHAIN') throw e;
    throw new CorebError('NOT_FOUND', `${path} is not a git repository`, { file: path, cause: e });
  }
  const [gitDir, commonRaw, format] = info;
  const common = isAbsolute(commonRaw) ? commonRaw : resolvePath(path, commonRaw);
  const refs = gitSync(['--git-dir', gitDir, 'for-each-ref', '--format=%(objectname) %(refname)'], path, baseEnv)
    .split('\n')
    .filter((l) => /^[0-9a-f]{40,64} \S/.test(l))
    .sort((x, y) => {
      const a = x.slice(x.indexOf(' ') + 1);
      const b = y.slice(y.indexOf(' ') + 1);
      return a < b ? -1 : a > b ? 1 : 0;
    });
  let head = '';
  try {
    head = gitSync(['--git-dir', gitDir, 'rev-parse', '--verify', '-q', 'HEAD^{commit}'], path, baseEnv).trim();
  } catch {
    // an empty repository: no HEAD yet
  }
  const root = mkdtempSync(join(tmpdir(), 'coreb-git-shadow-'));
  const dir = join(root, 'repo.git');
  try {
    gitSync(['init', '--quiet', '--bare', '--template=', `--object-format=${format || 'sha1'}`, dir], path, baseEnv);
    mkdirSync(join(dir, 'objects', 'info'), { recursive: true });
    writeFileSync(join(dir, 'objects', 'info', 'alternates'), `${join(common, 'objects')}\n`);
    writeFileSync(join(dir, 'packed-refs'), `# pack-refs with: sorted\n${refs.map((l) => `${l}\n`).join('')}`);
    if (head !== '') writeFileSync(join(dir, 'HEAD'), `${head}\n`);
    for (const f of [join(gitDir, 'shallow'), join(common, 'shallow')]) {
      if (existsSync(f)) {
        copyFileSync(f, join(dir, 'shallow'));
        break;
      }
    }
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw e instanceof CorebError
      ? e
      : new CorebError('IO', `cannot make the shadow of ${path} in ${root}: ${(e as Error).message}`, { file: root, cause: e });
  }
  return { dir, root };
}

/**
 * Opens the repository at `dir` (a work tree or a bare repository), read through a shadow (see the
 * module's header): no command named by the repository, its attributes or the user's configuration
 * runs. Call `close()` when done (it removes the shadow).
 * @throws CorebError `NOT_FOUND` when `dir` is not a git repository.
 */
export async function openGitRepo(path: string, options: { env?: GitEnv } = {}): Promise<GitRepo> {
  const baseEnv = options.env ?? {};
  const shadow = createShadow(path, baseEnv);
  const dir = shadow.dir;
  const run = (args: readonly string[]): Promise<string> => git(dir, args, path, baseEnv);
  const SEP = '\u001f';
  const END = '\u001e';
  return {
    dir: path,
    close: () => rmSync(shadow.root, { recursive: true, force: true }),
    async commitBefore(date, ref = 'HEAD') {
      const sha = (await run(['rev-list', '-1', '--first-parent', `--before=${date}`, ref])).trim();
      return sha === '' ? undefined : sha;
    },
    async listFiles(commit) {
      // read as bytes: a name git stores that is not UTF-8 must not become U+FFFD (two would collide)
      const raw = await new Promise<Buffer>((resolveBytes, reject) => {
        execFile(
          'git',
          ['--git-dir', dir, ...SAFE_GIT_CONFIG, 'ls-tree', '-r', '-z', '-l', commit],
          { maxBuffer: 1 << 30, encoding: 'buffer', env: safeGitEnv(baseEnv) },
          (err, stdout, stderr) =>
            err === null
              ? resolveBytes(stdout)
              : reject(new CorebError('IO', `git ls-tree failed in ${path}: ${stderr.toString().trim() || err.message}`, { file: path, cause: err })),
        );
      });
      const out: GitFile[] = [];
      let at = 0;
      while (at < raw.length) {
        const end = raw.indexOf(0, at);
        const rec = raw.subarray(at, end < 0 ? raw.length : end);
        at = end < 0 ? raw.length : end + 1;
        if (rec.length === 0) continue;
        const tab = rec.indexOf(9);
        const [mode, , blob, size] = rec.subarray(0, tab).toString('latin1').split(/\s+/);
        const name = decodeGitPath(rec.subarray(tab + 1));
        const f: GitFile = { path: name.path, mode, blob, size: size === '-' ? 0 : Number(size) };
        if (name.nonUtf8) f.nonUtf8Name = true;
        out.push(f);
      }
      return out;
    },
    readBlobs(blobs) {
      return new Promise((resolve, reject) => {
        const child = spawn('git', ['--git-dir', dir, ...SAFE_GIT_CONFIG, 'cat-file', '--batch'], {
          stdio: ['pipe', 'pipe', 'pipe'],
          env: safeGitEnv(baseEnv),
        });
        const chunks: Buffer[] = [];
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => chunks.push(d));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', (e) => reject(new CorebError('TOOLCHAIN', `cannot run git (${e.message})`, { cause: e })));
        child.on('close', (code) => {
          if (code !== 0) {
            reject(new CorebError('IO', `git cat-file failed in ${path}: ${stderr.trim()}`, { file: path }));
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
      const text = await run(args);
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
      const parts = (await run(['diff', '-M', '--no-textconv', '--no-ext-diff', '--name-status', '-z', from, to])).split('\0');
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
    async changedFiles(from, to) {
      const raw = await new Promise<Buffer>((resolveBytes, reject) => {
        execFile(
          'git',
          ['--git-dir', dir, ...SAFE_GIT_CONFIG, 'diff-tree', '-r', '-z', '--no-renames', from, to],
          { maxBuffer: 1 << 30, encoding: 'buffer', env: safeGitEnv(baseEnv) },
          (err, stdout, stderr) =>
            err === null
              ? resolveBytes(stdout)
              : reject(
                  new CorebError('IO', `git diff-tree failed in ${path}: ${stderr.toString().trim() || err.message}`, { file: path, cause: err }),
                ),
        );
      });
      // records `:oldmode newmode oldblob newblob status\0path\0`
      const out: ChangedFile[] = [];
      let at = 0;
      while (at < raw.length) {
        const headEnd = raw.indexOf(0, at);
        if (headEnd < 0) break;
        const head = raw.subarray(at, headEnd).toString('latin1');
        const pathEnd = raw.indexOf(0, headEnd + 1);
        const name = decodeGitPath(raw.subarray(headEnd + 1, pathEnd < 0 ? raw.length : pathEnd));
        at = pathEnd < 0 ? raw.length : pathEnd + 1;
        const [oldMode, newMode, oldBlob, newBlob, status] = head.replace(/^:/, '').split(' ');
        const deleted = status === 'D';
        const f: ChangedFile = { path: name.path, deleted, mode: deleted ? oldMode : newMode, blob: deleted ? oldBlob : newBlob };
        if (name.nonUtf8) f.nonUtf8Name = true;
        out.push(f);
      }
      return out;
    },
    async diff(from, to, paths, options = {}) {
      const args = ['diff', '-M', '--unified=0', '--no-color', '--no-ext-diff', '--no-textconv'];
      if (options.ignoreLineEnds === true) args.push('--ignore-cr-at-eol', '--ignore-space-at-eol');
      args.push(from, to);
      if (paths !== undefined && paths.length > 0) args.push('--', ...paths);
      return parseGitDiff(await run(args));
    },
  };
}
