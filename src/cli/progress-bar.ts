/**
 * A stderr progress reporter: redraws one line in place on a terminal (items/s and ETA), and
 * otherwise (a log file, CI) prints a start line, a status line every few seconds and a final
 * summary line, so logs stay readable and a long run still shows it is alive.
 */
import type { Progress } from '../core/progress.js';

/** Formats seconds as `1h02m`, `3m05s` or `12.3s`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m${String(Math.floor(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Options of {@link createProgressBar}. */
export interface ProgressBarOptions {
  /** Not interactive: ms between status lines; default 5000. */
  intervalMs?: number;
  /** Clock in ms (tests); default `performance.now`. */
  now?: () => number;
  /**
   * Nothing is written until a step has run this long (ms): a step that ends sooner stays silent,
   * one that takes longer shows its progress from then on and its final line. Default 0 (at once).
   */
  delayMs?: number;
}

/**
 * Creates a progress reporter writing to `out`; `interactive` redraws in place, otherwise a status
 * line is printed at most every `intervalMs` while ticks arrive.
 */
export function createProgressBar(out: NodeJS.WritableStream, interactive: boolean, options: ProgressBarOptions = {}): Progress {
  const intervalMs = options.intervalMs ?? 5000;
  const delayMs = options.delayMs ?? 0;
  const clock = options.now ?? (() => performance.now());
  let label = '';
  let total = 0;
  let done = 0;
  let started = 0;
  let lastDraw = 0;
  /** Whether anything of the current step was written (a delayed step writes nothing until it is late). */
  let shown = false;
  const show = (): void => {
    shown = true;
    if (!interactive) out.write(`${label}: ${total > 0 ? total : 'unknown'} to do\n`);
  };
  const draw = (final: boolean): void => {
    const elapsed = (clock() - started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    const eta = total > 0 && rate > 0 ? (total - done) / rate : NaN;
    const pct = total > 0 ? ` ${((100 * done) / total).toFixed(0).padStart(3)}%` : '';
    const width = 24;
    const bar = total > 0 ? ' [' + '#'.repeat(Math.round((width * done) / total)).padEnd(width, '.') + ']' : '';
    const tail = final
      ? ` in ${formatDuration(elapsed)} (${rate.toFixed(1)}/s)`
      : ` ${rate.toFixed(1)}/s${Number.isFinite(eta) ? ` ETA ${formatDuration(eta)}` : ''}`;
    const line = `${label}${bar}${pct} ${done}${total > 0 ? '/' + total : ''}${tail}`;
    if (interactive) out.write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
    else out.write(line + '\n');
  };
  return {
    start(l, t) {
      label = l;
      total = t;
      done = 0;
      started = clock();
      lastDraw = interactive ? 0 : started;
      shown = false;
      if (delayMs <= 0) show();
    },
    tick(n = 1) {
      done += n;
      const now = clock();
      if (!shown) {
        if (now - started < delayMs) return;
        show();
        lastDraw = 0;
      }
      if (now - lastDraw > (interactive ? 100 : intervalMs)) {
        lastDraw = now;
        draw(false);
      }
    },
    done() {
      if (!shown && clock() - started >= delayMs) show();
      if (shown) draw(true);
    },
  };
}
