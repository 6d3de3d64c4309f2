/**
 * A stderr progress reporter: redraws one line in place on a terminal (items/s and ETA), and
 * prints a start line and a final summary line otherwise so logs stay readable.
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

/** Creates a progress reporter writing to `out`; `interactive` redraws in place. */
export function createProgressBar(out: NodeJS.WritableStream, interactive: boolean): Progress {
  let label = '';
  let total = 0;
  let done = 0;
  let started = 0;
  let lastDraw = 0;
  const draw = (final: boolean): void => {
    const elapsed = (performance.now() - started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    const eta = total > 0 && rate > 0 ? (total - done) / rate : NaN;
    const pct = total > 0 ? ` ${((100 * done) / total).toFixed(0).padStart(3)}%` : '';
    const width = 24;
    const bar =
      total > 0 ? ' [' + '#'.repeat(Math.round((width * done) / total)).padEnd(width, '.') + ']' : '';
    const tail = final
      ? ` in ${formatDuration(elapsed)} (${rate.toFixed(1)}/s)`
      : ` ${rate.toFixed(1)}/s${Number.isFinite(eta) ? ` ETA ${formatDuration(eta)}` : ''}`;
    const line = `${label}${bar}${pct} ${done}${total > 0 ? '/' + total : ''}${tail}`;
    if (interactive) out.write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
    else if (final) out.write(line + '\n');
  };
  return {
    start(l, t) {
      label = l;
      total = t;
      done = 0;
      started = performance.now();
      lastDraw = 0;
      if (!interactive) out.write(`${label}: ${total > 0 ? total : 'unknown'} to do\n`);
    },
    tick(n = 1) {
      done += n;
      const now = performance.now();
      if (interactive && now - lastDraw > 100) {
        lastDraw = now;
        draw(false);
      }
    },
    done() {
      draw(true);
    },
  };
}
