/**
 * Renders a `coreb audit` report as aligned text: one table of per-task findings, one of
 * per-corpus findings, then the label-proxy fields and the language-check details.
 */
import type { AuditReport } from '../core/audit-report.js';
import { renderTable, type TableFormat } from '../core/table.js';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const num = (x: number, d = 1) => (Number.isInteger(x) ? String(x) : x.toFixed(d));

/**
 * The audit as tables and findings (trailing newline): aligned text (`table`), markdown (headings,
 * tables, findings as lists) or LaTeX (booktabs tabulars, everything else as % comments).
 */
export function renderAuditTable(report: AuditReport, format: TableFormat = 'table'): string {
  const table = (header: string[], rows: string[][]): string => renderTable({ header, rows, align: 1 }, format).trimEnd();
  const out: string[] = [`coreb audit — ${report.dataset.kind} ${report.dataset.dir} (split ${report.dataset.split})`, ''];
  const tasks = Object.entries(report.tasks);
  out.push('Tasks (relevant = label >= level; lexical = BM25 over title + text, queries with a relevant document)');
  out.push(
    table(
      [
        'task',
        'queries',
        'level',
        'rel/q mean',
        'rel/q max',
        '1-to-1',
        'aligned ids',
        'BM25 rank-1',
        'BM25 nDCG@10',
        'query words (median)',
        'query chars (p90)',
        'label proxies',
      ],
      tasks.map(([name, t]) => [
        name,
        String(t.queries),
        String(t.relevanceLevel),
        t.relevantPerQuery.mean.toFixed(2),
        String(t.relevantPerQuery.max),
        pct(t.oneToOneShare),
        pct(t.alignedIdShare),
        pct(t.lexical.rank1Share),
        t.lexical.ndcg10.toFixed(4),
        num(t.queryLength.words.median),
        num(t.queryLength.chars.p90, 0),
        String(t.labelProxies.length),
      ]),
    ),
  );
  out.push('');
  out.push('Corpora');
  const corpora = Object.entries(report.corpora);
  out.push(
    table(
      [
        'corpus',
        'documents',
        'exact dup',
        'near-dup pairs',
        'near-dup docs',
        'cross-problem',
        'empty',
        'prose-only',
        'no letters',
        'lang disputed',
        'confident',
      ],
      corpora.map(([name, c]) => [
        name,
        String(c.documents),
        String(c.exactDuplicates),
        String(c.nearDuplicates.pairs),
        String(c.nearDuplicates.documents),
        c.nearDuplicates.crossProblemPairs === null ? '-' : String(c.nearDuplicates.crossProblemPairs),
        String(c.empty),
        c.languages === null ? '-' : String(c.proseOnly),
        c.languages === null ? '-' : String(c.noLetters),
        c.languageCheck === null ? '-' : `${c.languageCheck.disagreements}/${c.languageCheck.checked}`,
        c.languageCheck === null ? '-' : String(c.languageCheck.confidentDisagreements),
      ]),
    ),
  );
  const nd = corpora[0]?.[1].nearDuplicates;
  if (nd !== undefined) out.push(`near-duplicates: ${nd.method}`);
  for (const [name, t] of tasks) {
    if (t.labelProxies.length === 0) continue;
    out.push(
      '',
      `${name}: fields that tell positives from ${t.labelProxies[0].against === 'unjudged' ? 'unjudged documents' : 'judged negatives'} (a retriever reading them reads the label)`,
    );
    for (const p of t.labelProxies) {
      const what = p.kind === 'presence' ? `${p.field} present` : `${p.field} = ${JSON.stringify(p.value)}`;
      out.push(`  ${what}: ${pct(p.positives)} of positives, ${pct(p.others)} of others`);
    }
  }
  for (const [name, c] of corpora) {
    const lc = c.languageCheck;
    if (lc === null) continue;
    out.push(
      '',
      `${name}: declared language vs ${lc.detector} (confident = confidence >= ${lc.confidentAt} and the declared language not in its top 3)`,
    );
    for (const [lang, s] of Object.entries(lc.byLanguage)) {
      const others = Object.entries(s.detectedAs)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      out.push(`  ${lang}: ${s.agree}/${s.checked} agree${others ? ` (detected as ${others})` : ''}`);
    }
    for (const [id, declared, detected, conf] of lc.examples) out.push(`  e.g. ${id}: declared ${declared}, detected ${detected} (${conf})`);
  }
  for (const [name, c] of corpora) {
    const lp = c.labelParity;
    if (lp === null || lp === undefined) continue;
    out.push('', `${name}: released labels vs released text (${lp.labelled} labelled, ${lp.passing} passing)`);
    if (lp.findings.length === 0) out.push('  no labelled pass is contradicted by its text');
    for (const f of lp.findings) {
      out.push(
        `  ${f.check}: ${f.programs} ${f.language} program(s) hold the pattern; ${f.labelledPassing} are labelled passing, which their text cannot produce`,
        `    ${f.explanation}`,
      );
      if (f.examples.length > 0) out.push(`    e.g. ${f.examples.join(', ')}`);
    }
  }
  out.push(...labelFindingLines(report));
  if (format === 'table') return out.join('\n') + '\n';
  // Markdown and LaTeX: the tables as rendered; a line of text a heading, an indented line a list item
  // (markdown) or a comment (LaTeX).
  const tables = new Set(out.filter((l) => l.includes('\n')));
  const lines = out.map((l) => {
    if (tables.has(l) || l === '') return l;
    if (format === 'latex')
      return l
        .split('\n')
        .map((x) => `% ${x}`)
        .join('\n');
    const indent = /^ */.exec(l)![0].length;
    if (indent === 0) return `\n### ${l}\n`;
    return `${' '.repeat(Math.max(0, indent - 2))}- ${l.trimStart()}`;
  });
  return lines.join('\n').replace(/\n{3,}/g, '\n\n') + '\n';
}

const f4 = (x: number) => x.toFixed(4);

/** The label findings (duplicate query texts, labels against verdicts, cross-release) as lines. */
function labelFindingLines(report: AuditReport): string[] {
  const out: string[] = [];
  for (const [name, t] of Object.entries(report.tasks)) {
    const d = t.duplicateQueryTexts;
    if (d === undefined || d.conflictingQueries === 0) continue;
    out.push(
      '',
      `${name}: ${d.conflictingQueries} of ${t.queries} queries share their exact text with a query whose qrels differ (${d.conflictingGroups} groups); a retriever that reads only the query text ranks them alike and reaches at most nDCG@10 ${f4(d.ceilingNdcg10)} on the task`,
    );
    for (const [sub, s] of Object.entries(d.bySubtask)) {
      if (s.conflicting === 0) continue;
      out.push(`  ${sub}: ${s.conflicting}/${s.queries} in such groups; text-only ceiling nDCG@10 ${f4(s.ceilingNdcg10)}`);
    }
    for (const e of d.examples) out.push(`  e.g. "${e.text}": ${e.queries.map(([q, s]) => `${q} (${s})`).join(', ')}`);
  }
  for (const [name, t] of Object.entries(report.tasks)) {
    const v = t.labelVerdicts;
    if (v === undefined || v === null) continue;
    const line = (c: typeof v.relevantFailing) =>
      Object.entries(c.byLanguage)
        .map(([l, x]) => `${l} ${x.judgments} (${x.programs} programs)`)
        .join(', ');
    out.push(
      '',
      `${name}: relevance labels vs the released verdicts (meta.passed): relevance >= ${v.level} means verified-correct in the paper's §3, "all solutions for the queried problem" in its §A.3`,
      `  relevance >= ${v.level} on programs labelled failing: ${v.relevantFailing.judgments} judgments, ${v.relevantFailing.programs} programs${v.relevantFailing.judgments > 0 ? `: ${line(v.relevantFailing)}` : ''}`,
    );
    if (v.relevantFailing.examples.length > 0) out.push(`    e.g. ${v.relevantFailing.examples.map(([q, d]) => `${q} -> ${d}`).join(', ')}`);
    out.push(
      `  relevance 1..${v.level - 1} on programs labelled passing: ${v.belowLevelPassing.judgments} judgments, ${v.belowLevelPassing.programs} programs${v.belowLevelPassing.judgments > 0 ? `: ${line(v.belowLevelPassing)}` : ''}`,
    );
    if (v.belowLevelPassing.examples.length > 0) out.push(`    e.g. ${v.belowLevelPassing.examples.map(([q, d]) => `${q} -> ${d}`).join(', ')}`);
  }
  const x = report.crossRelease;
  if (x !== undefined) {
    out.push('', `Shared with ${x.dataset.dir} (split ${x.dataset.split})`);
    for (const [name, c] of Object.entries(x.corpora)) {
      out.push(
        `  corpus ${name}: ${c.sameText} of ${c.documents} documents have the same text (whitespace-normalised) in the other's ${c.otherDocuments}, ${c.sameTextOtherId} of them under another id; ${c.sameId} ids in both`,
      );
      if (c.examples.length > 0) out.push(`    e.g. ${c.examples.map(([a, b]) => (a === b ? a : `${a} = ${b}`)).join(', ')}`);
    }
    for (const [task, q] of Object.entries(x.queries)) {
      out.push(`  ${task} queries: ${q.sameText} of ${q.queries} have the exact text of one of the other's ${q.otherQueries}`);
      if (q.examples.length > 0) out.push(`    e.g. ${q.examples.map(([a, b]) => (a === b ? a : `${a} = ${b}`)).join(', ')}`);
    }
  }
  return out;
}
