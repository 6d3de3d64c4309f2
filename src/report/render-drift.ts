/**
 * Renders the series check of two releases (`coreb drift`, `coreb build --previous`): one table of
 * every compared figure with its change and why it is flagged, or JSON.
 */
import type { DriftReport } from '../core/drift-report.js';

const num = (x: number | null): string => (x === null ? '-' : Number.isInteger(x) ? String(x) : x.toFixed(3));
const signed = (x: number | null): string => (x === null ? '-' : `${x >= 0 ? '+' : '-'}${num(Math.abs(x))}`);

/**
 * The drift report as aligned text (`table`), a markdown table (`markdown`) or JSON. Flagged rows
 * carry `!` and the reason; `onlyFlagged` keeps those alone.
 */
export function renderDriftReport(report: DriftReport, format: 'table' | 'markdown' | 'json' = 'table', onlyFlagged = false): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  const rows = report.rows.filter((r) => !onlyFlagged || r.flag !== null);
  const header = ['', 'figure', report.previous.split, report.current.split, 'change', 'flag'];
  const cells = rows.map((r) => [r.flag === null ? '' : '!', r.figure, num(r.previous), num(r.current), signed(r.delta), r.flag ?? '']);
  const title = `series check: ${report.current.split} (${report.current.dir}) against ${report.previous.split} (${report.previous.dir}); ${report.flagged} of ${report.rows.length} figures outside their band`;
  if (format === 'markdown') {
    return [`### ${title}`, '', `| ${header.join(' | ')} |`, '|---|---|---:|---:|---:|---|', ...cells.map((c) => `| ${c.join(' | ')} |`), ''].join(
      '\n',
    );
  }
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => (i >= 2 && i <= 4 ? x.padStart(widths[i]) : x.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const b = report.bands;
  return [
    title,
    '',
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map(line),
    '',
    `bands: counts ±${b.countRelative * 100}%, positives / hard negatives per query ±${b.perQueryRelative * 100}%, tokens ±${b.tokensRelative * 100}%, verified share ±${b.verifiedAbsolute}, BM25 nDCG@10 ±${b.ndcgAbsolute}, hard negatives in top 10 ±${b.hardNegativesTop10Absolute}, intrusion ±${b.intrusionAbsolute} (docs/build.md)`,
    '',
  ].join('\n');
}
