/**
 * Agreement of judge results with reference labels (CoREB's `meta_passed`, an independent harness's
 * pass/fail), per language: how often the judge's `passed` equals the reference, with the confusion
 * counts, rendered as a table. Used by the real-data suite and `bench/sandbox-agreement.ts`.
 */
import { renderTable } from '../core/table.js';

/** One judged program as far as agreement needs it. */
export interface JudgedProgram {
  id: string;
  language: string;
  passed: boolean;
}

/** Agreement of one language (or `all`). */
export interface AgreementRow {
  language: string;
  /** Programs with both a judge result and a reference label. */
  n: number;
  /** Judge and reference agree. */
  agree: number;
  /** Judge passes, reference fails. */
  judgeOnly: number;
  /** Reference passes, judge fails. */
  referenceOnly: number;
  /** `agree / n` (0 when n is 0). */
  rate: number;
}

/** Per-language agreement of `judged` with `reference` (id -> passed), sorted by language, `all` last. */
export function computeAgreement(judged: readonly JudgedProgram[], reference: ReadonlyMap<string, boolean>): AgreementRow[] {
  const rows = new Map<string, AgreementRow>();
  const row = (language: string): AgreementRow => {
    let r = rows.get(language);
    if (r === undefined) {
      r = { language, n: 0, agree: 0, judgeOnly: 0, referenceOnly: 0, rate: 0 };
      rows.set(language, r);
    }
    return r;
  };
  for (const j of judged) {
    const ref = reference.get(j.id);
    if (ref === undefined) continue;
    for (const r of [row(j.language), row('all')]) {
      r.n++;
      if (ref === j.passed) r.agree++;
      else if (j.passed) r.judgeOnly++;
      else r.referenceOnly++;
    }
  }
  const out = [...rows.values()].filter((r) => r.language !== 'all').sort((a, b) => (a.language < b.language ? -1 : 1));
  const all = rows.get('all');
  if (all) out.push(all);
  for (const r of out) r.rate = r.n === 0 ? 0 : r.agree / r.n;
  return out;
}

/** Renders agreement tables side by side: one column group per named reference. */
export function renderAgreement(tables: Readonly<Record<string, AgreementRow[]>>): string {
  const names = Object.keys(tables);
  const langs = [...new Set(names.flatMap((n) => tables[n].map((r) => r.language)))].sort((a, b) =>
    a === 'all' ? 1 : b === 'all' ? -1 : a < b ? -1 : 1,
  );
  const head = ['language', 'n', ...names.flatMap((n) => [`agree ${n}`, 'judge+ ref-', 'judge- ref+'])];
  const body = langs.map((l) => {
    const cells = [l];
    const first = names.map((n) => tables[n].find((r) => r.language === l)).find((r) => r !== undefined);
    cells.push(String(first?.n ?? 0));
    for (const n of names) {
      const r = tables[n].find((x) => x.language === l);
      cells.push(r ? `${(100 * r.rate).toFixed(1)}%` : '-', String(r?.judgeOnly ?? '-'), String(r?.referenceOnly ?? '-'));
    }
    return cells;
  });
  return renderTable({ header: head, rows: body });
}
