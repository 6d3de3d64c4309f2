/**
 * Label proxies: document fields whose presence (or one value) tells the label classes apart, so a
 * retriever that reads them reads the label. Shared by `coreb audit`, `coreb validate` (warnings)
 * and `coreb eval` (a warning when a BM25 spec indexes such a field). Pure.
 */
import type { Doc, RetrievalTask } from '../../core/dataset.js';
import type { LabelProxy } from '../../core/audit-report.js';
import type { ValidationIssue } from '../../core/issues.js';

function present(v: unknown): boolean {
  return v !== null && v !== undefined && v !== '';
}

/** Field -> value of a document, for the label-proxy check (`title` and `meta.<key>`). */
function docFields(d: Doc): Map<string, unknown> {
  const m = new Map<string, unknown>();
  if (d.title !== undefined) m.set('title', d.title);
  for (const [k, v] of Object.entries(d.meta ?? {})) m.set(`meta.${k}`, v);
  return m;
}

/**
 * Fields present on one label class only, or with a value found on one class only: a field is
 * reported when its share is >= 0.95 on one class and <= 0.05 on the other (each class >= 5 docs).
 */
export function findLabelProxies(positives: readonly Doc[], others: readonly Doc[], against: LabelProxy['against']): LabelProxy[] {
  if (positives.length < 5 || others.length < 5) return [];
  const pf = positives.map(docFields);
  const of = others.map(docFields);
  const names = new Set<string>([...pf, ...of].flatMap((m) => [...m.keys()]));
  const out: LabelProxy[] = [];
  const separates = (a: number, b: number) => (a >= 0.95 && b <= 0.05) || (b >= 0.95 && a <= 0.05);
  for (const name of [...names].sort()) {
    const share = (ms: Map<string, unknown>[], f: (v: unknown) => boolean) => ms.filter((m) => f(m.get(name))).length / ms.length;
    const p = share(pf, present);
    const o = share(of, present);
    if (separates(p, o)) {
      out.push({ field: name, kind: 'presence', positives: p, others: o, against });
      continue;
    }
    const values = new Set<unknown>();
    for (const m of [...pf, ...of]) {
      const v = m.get(name);
      if (typeof v === 'boolean' || typeof v === 'number' || (typeof v === 'string' && v.length <= 40)) values.add(v);
    }
    if (values.size === 0 || values.size > 12) continue;
    for (const v of values) {
      const pv = share(pf, (x) => x === v);
      const ov = share(of, (x) => x === v);
      if (separates(pv, ov)) {
        out.push({ field: name, kind: 'value', value: v as string | number | boolean, positives: pv, others: ov, against });
        break;
      }
    }
  }
  return out;
}

/** One task's proxies against its hard negatives, with the task and corpus they were found in. */
export interface TaskLabelProxy extends LabelProxy {
  task: string;
}

/**
 * Fields that separate each task's positives (documents labelled >= 2 for some query) from its
 * hard negatives (documents judged 1 and never >= 2), per {@link findLabelProxies}; computed from
 * the qrels, whatever the field. Tasks with fewer than 5 documents in either class (e.g. binary
 * BEIR qrels, which have no hard negatives) report nothing.
 */
export function findTaskLabelProxies(tasks: Iterable<[string, RetrievalTask]>): TaskLabelProxy[] {
  const out: TaskLabelProxy[] = [];
  for (const [name, task] of tasks) {
    const best = new Map<string, number>();
    for (const labels of task.qrels.values()) {
      for (const [d, v] of labels) best.set(d, Math.max(best.get(d) ?? -Infinity, v));
    }
    const positives: Doc[] = [];
    const hardNegatives: Doc[] = [];
    for (const d of task.corpus) {
      const v = best.get(d.id);
      if (v === undefined) continue;
      if (v >= 2) positives.push(d);
      else if (v === 1) hardNegatives.push(d);
    }
    for (const p of findLabelProxies(positives, hardNegatives, 'judged-negatives')) out.push({ task: name, ...p });
  }
  return out;
}

/** Renders one proxy as `meta.abbreviatedText is present on 100% of positives and 0% of hard negatives`. */
export function describeLabelProxy(p: TaskLabelProxy): string {
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const what = p.kind === 'presence' ? `\`${p.field}\` is present on` : `\`${p.field}\` = ${JSON.stringify(p.value)} on`;
  return `${p.task}: ${what} ${pct(p.positives)} of the positive documents (label 2) and ${pct(p.others)} of the hard negatives (label 1)`;
}

/**
 * {@link findTaskLabelProxies} as validation warnings (kind `label-proxy`), located at the corpus
 * table (`corpus` names it per task) and the field.
 */
export function labelProxyIssues(tasks: Iterable<[string, RetrievalTask]>, corpus: (task: string) => string): ValidationIssue[] {
  return findTaskLabelProxies(tasks).map((p) => ({
    severity: 'warning',
    kind: 'label-proxy',
    file: corpus(p.task),
    field: p.field,
    message: `${describeLabelProxy(p)}: a retriever that reads this field reads the label (coreb's BM25 indexes only title and text unless told otherwise)`,
  }));
}
