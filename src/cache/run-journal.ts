/**
 * A journal of single program runs keyed by content (program, input, expected output, judge
 * settings): one JSON line per run appended to one file, read back whole when opened. The
 * execution-aware reranker asks it before running anything, so a second identical run executes
 * nothing and an interrupted one resumes. A torn last line (a killed process) is skipped.
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CorebError } from '../core/errors.js';

/** The journal's folder under the cache root. */
export const RUN_JOURNAL_LAYOUT = 'exec-runs-v1';

/** One recorded run: its verdict and what it cost. */
export interface JournalRun {
  /** The judge's verdict of this one run (`compile_error` when the program did not build). */
  verdict: string;
  /** CPU time of the run, milliseconds (-1 unknown; 0 when nothing ran). */
  cpuMs: number;
}

/** A run journal. */
export interface RunJournal {
  /** The journal file. */
  readonly file: string;
  /** Runs it holds. */
  readonly size: number;
  get(key: string): JournalRun | undefined;
  /** Records a run (appended at once; not synced). */
  put(key: string, run: JournalRun): void;
  close(): void;
}

/**
 * Opens (creating when absent) the journal `<root>/exec-runs-v1/<name>.jsonl`.
 * @throws CorebError `CACHE` when it cannot be read or written, naming the file.
 */
export function openRunJournal(root: string, name = 'runs'): RunJournal {
  const file = join(root, RUN_JOURNAL_LAYOUT, `${name}.jsonl`);
  const runs = new Map<string, JournalRun>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new CorebError('CACHE', `cannot read the run journal (${(e as Error).message})`, { file, cause: e });
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const r = JSON.parse(line) as { k?: unknown; v?: unknown; c?: unknown };
      if (typeof r.k === 'string' && typeof r.v === 'string' && typeof r.c === 'number') runs.set(r.k, { verdict: r.v, cpuMs: r.c });
    } catch {
      // a torn line of a killed run: that run is simply done again
    }
  }
  let fd: number | undefined;
  return {
    file,
    get size() {
      return runs.size;
    },
    get: (key) => runs.get(key),
    put(key, run) {
      runs.set(key, run);
      try {
        if (fd === undefined) {
          mkdirSync(dirname(file), { recursive: true });
          fd = openSync(file, 'a');
          // A torn last line of an earlier run must not swallow the first new record.
          if (text !== '' && !text.endsWith('\n')) writeSync(fd, '\n');
        }
        writeSync(fd, `${JSON.stringify({ k: key, v: run.verdict, c: run.cpuMs })}\n`);
      } catch (e) {
        throw new CorebError('CACHE', `cannot append to the run journal (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
          file,
          cause: e,
        });
      }
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
