/**
 * Renders the series check of two releases (`coreb drift`, `coreb build --previous`): one table of
 * every compared figure with its change and why it is flagged, or JSON.
 */
import type { DriftReport } from '../core/drift-report.js';
import { renderTable, type ColumnAlign } from '../core/table.js';

const num = (x: number | null): string => (x === null ? '-' : Number.isInteger(x) ? String(x) : x.toFixed(3));
const signed = (x: number | null): string => (x === null ? '-' : `${x >= 0 ? '+' : '-'}${num(Math.abs(x))}`);

/**
 * The drift report as aligned text (`table`), a markdown table (`markdown`) or JSON. Flagged rows
 * carry `!` and the reason; `onlyFlagged` keeps those alone.
 */
export function renderDriftReport(report: DriftReport, format: 'table' | 'markdown' | 'latex' | 'json' = 'table', onlyFlagged = false): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  const rows = report.rows.filter((r) => !onlyFlagged || r.flag !== null);
  const header = ['', 'figure', report.previous.split, report.current.split, 'change', 'flag'];
  const cells = rows.map((r) => [r.flag === null ? '' : '!', r.figure, num(r.previous), num(r.current), signed(r.delta), r.flag ?? '']);
  const title = `series check: ${report.current.split} (${report.current.dir}) against ${report.previous.split} (${report.previous.dir}); ${report.flagged} of ${report.rows.length} figures outside their band`;
  const b = report.bands;
  const align: ColumnAlign[] = ['left', 'left', 'right', 'right', 'right', 'left'];
  return renderTable(
    {
      title,
      header,
      rows: cells,
      align,
      notes: [
        `bands: counts ±${b.countRelative * 100}%, positives / hard negatives per query ±${b.perQueryRelative * 100}%, tokens ±${b.tokensRelative * 100}%, verified share ±${b.verifiedAbsolute}, BM25 nDCG@10 ±${b.ndcgAbsolute}, hard negatives in top 10 ±${b.hardNegativesTop10Absolute}, intrusion ±${b.intrusionAbsolute} (docs/build.md)`,
      ],
    },
    format,
  );
}
