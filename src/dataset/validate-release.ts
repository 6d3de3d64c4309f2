/**
 * Cross-table validation of a loaded CoREB release: duplicate ids, qrels that point at unknown
 * queries or documents, unknown subtasks, c2c/c2t anchors missing from the code corpus, and the
 * like. Returns every issue with the file and line (or parquet row) of the offending record.
 */
import type { QueryRecord, Release, ReleaseTable, TaskName } from '../core/dataset.js';
import { LANGUAGES, recordLocation, RELEVANCE, TASK_CORPUS, TASKS } from '../core/dataset.js';
import { trecIdProblem } from '../core/ids.js';
import type { ValidationIssue } from '../core/issues.js';
import { isKnownSubtask, SUBTASK_FAMILIES, SUBTASKS, subtaskFamily, subtaskLanguage, TASK_TABLES } from './release-schema.js';

const KNOWN_LANGUAGES: ReadonlySet<string> = new Set(LANGUAGES);

/** Issue builder bound to a release's table sources. */
class Reporter {
  readonly issues: ValidationIssue[] = [];
  private readonly subtaskOfQuery = new Map<TaskName, Map<string, string>>();
  constructor(private readonly release: Release) {}

  at(table: ReleaseTable, index: number, severity: ValidationIssue['severity'], kind: string, field: string | undefined, message: string): void {
    const subtask = this.subtaskAt(table, index);
    this.issues.push({
      severity,
      kind,
      ...recordLocation(this.release.sources?.[table], index),
      field,
      message,
      table,
      ...(subtask !== undefined ? { subtask } : {}),
    });
  }

  /** The subtask a query or qrels row belongs to (its query's), so `--subtasks` can leave its problems out. */
  private subtaskAt(table: ReleaseTable, index: number): string | undefined {
    for (const task of TASKS) {
      const t = this.release.tasks[task];
      if (table === TASK_TABLES[task].queries) return t.queries[index]?.subtask;
      if (table !== TASK_TABLES[task].qrels) continue;
      let m = this.subtaskOfQuery.get(task);
      if (m === undefined) {
        m = new Map(t.queries.map((q) => [q.queryId, q.subtask]));
        this.subtaskOfQuery.set(task, m);
      }
      const qid = t.qrels[index]?.queryId;
      return qid === undefined ? undefined : m.get(qid);
    }
    return undefined;
  }

  /** The user-visible name of a meta field: `meta.x` for nested meta, `meta_x` for flattened. */
  metaField(table: ReleaseTable, wire: string): string {
    return this.release.sources?.[table]?.metaStyle === 'nested' ? `meta.${wire}` : `meta_${wire}`;
  }

  where(table: ReleaseTable, index: number): string {
    const loc = recordLocation(this.release.sources?.[table], index);
    if (loc.line !== undefined) return `line ${loc.line}`;
    if (loc.row !== undefined) return `row ${loc.row}`;
    return `record ${index}`;
  }
}

/** Indexes ids -> first record index, reporting duplicates at the later record and ids a TREC line cannot hold. */
function indexIds(ids: readonly string[], table: ReleaseTable, field: string, rep: Reporter): Map<string, number> {
  const first = new Map<string, number>();
  ids.forEach((id, i) => {
    const problem = trecIdProblem(id);
    if (problem !== undefined) rep.at(table, i, 'error', 'bad-id', field, `id ${JSON.stringify(id)} ${problem}`);
    const prev = first.get(id);
    if (prev === undefined) first.set(id, i);
    else
      rep.at(table, i, 'error', 'duplicate-id', field, `duplicate id \`${id}\` (first at ${rep.where(table, prev)}); ids must be unique in ${table}`);
  });
  return first;
}

/**
 * Checks a release's consistency and returns all issues (errors and warnings), in table order.
 * The rule (docs/eval.md, "How releases may grow"): an error is only what makes scoring impossible
 * or wrong. Errors: duplicate ids or (query, doc) pairs, ids that are empty or hold whitespace (a
 * TREC line cannot hold them), qrels with unknown query or document ids, c2c queries without an
 * anchor, anchors or c2t `text_id`s missing from the corpora. Warnings (scored all the same): subtasks
 * no known release uses (scored as their own subtask), subtasks with no known family prefix (skipped,
 * see {@link releaseTasks}), subtasks named for another task, queries without qrels or without a
 * positive (except c2t_match negatives), relevance outside {0, 1, 2}, unknown languages, fields that
 * disagree with the subtask, c2t_match labels that disagree with the qrels.
 * @example
 * ```ts
 * const { release } = await loadRelease('data/coreb-mini/release');
 * const errors = validateRelease(release).filter((i) => i.severity === 'error');
 * ```
 */
export function validateRelease(release: Release): ValidationIssue[] {
  const rep = new Reporter(release);
  const codeIndex = indexIds(
    release.codeCorpus.map((r) => r.codeId),
    'code_corpus',
    'code_id',
    rep,
  );
  release.codeCorpus.forEach((r, i) => {
    if (!KNOWN_LANGUAGES.has(r.language)) {
      rep.at('code_corpus', i, 'warning', 'unknown-language', 'language', `\`${r.language}\` is not a CoREB language (${LANGUAGES.join(', ')})`);
    }
  });
  const textIndex = indexIds(
    release.textCorpus.map((r) => r.textId),
    'text_corpus',
    'text_id',
    rep,
  );
  for (const task of TASKS) {
    const { queries: qTable, qrels: rTable } = TASK_TABLES[task];
    const { queries, qrels } = release.tasks[task];
    const corpus = TASK_CORPUS[task] === 'code' ? codeIndex : textIndex;
    const corpusTable: ReleaseTable = TASK_CORPUS[task] === 'code' ? 'code_corpus' : 'text_corpus';
    const queryIndex = indexIds(
      queries.map((q) => q.queryId),
      qTable,
      'query_id',
      rep,
    );
    const perSubtask = new Map<string, number>();
    for (const q of queries) perSubtask.set(q.subtask, (perSubtask.get(q.subtask) ?? 0) + 1);
    const named = new Set<string>();
    queries.forEach((q, i) => {
      // One subtask warning per name (at its first query, with its count), not one per query.
      const first = !named.has(q.subtask);
      named.add(q.subtask);
      checkQuery(release, task, q, i, rep, codeIndex, textIndex, first ? perSubtask.get(q.subtask)! : 0);
    });
    const judged = new Map<string, { count: number; positives: number }>();
    const pairs = new Map<string, number>();
    qrels.forEach((r, i) => {
      const key = `${r.queryId}\u0000${r.docId}`;
      const prev = pairs.get(key);
      if (prev !== undefined) {
        rep.at(
          rTable,
          i,
          'error',
          'duplicate-qrel',
          'doc_id',
          `(\`${r.queryId}\`, \`${r.docId}\`) judged again (first at ${rep.where(rTable, prev)}); each pair is judged once`,
        );
      } else pairs.set(key, i);
      if (!queryIndex.has(r.queryId)) {
        rep.at(rTable, i, 'error', 'dangling-query', 'query_id', `query \`${r.queryId}\` is not in ${qTable}`);
      }
      if (!corpus.has(r.docId)) {
        rep.at(
          rTable,
          i,
          'error',
          'dangling-doc',
          'doc_id',
          `document \`${r.docId}\` is not in ${corpusTable} (${task} ranks the ${TASK_CORPUS[task]} corpus)`,
        );
      }
      if (r.relevance !== RELEVANCE.positive && r.relevance !== RELEVANCE.hardNegative && r.relevance !== 0) {
        rep.at(
          rTable,
          i,
          'warning',
          'unexpected-relevance',
          'relevance',
          `relevance ${r.relevance}; CoREB uses 2 (positive), 1 (hard negative) or 0`,
        );
      }
      const j = judged.get(r.queryId) ?? { count: 0, positives: 0 };
      j.count++;
      if (r.relevance >= RELEVANCE.positive) j.positives++;
      judged.set(r.queryId, j);
      if (task === 'code2text' && r.relevance >= RELEVANCE.positive) {
        const t = textIndex.get(r.docId);
        const q = queries[queryIndex.get(r.queryId) ?? -1];
        if (t !== undefined && q?.subtask.startsWith('c2t_canonical_retro') && release.textCorpus[t].abbreviatedText == null) {
          rep.at(
            rTable,
            i,
            'warning',
            'missing-abbreviated-text',
            'doc_id',
            `canonical_retro positive \`${r.docId}\` has no abbreviated_text (the canonical description)`,
          );
        }
      }
    });
    queries.forEach((q, i) => {
      // A query of no known family is skipped (said once, at its subtask): nothing more to say of it.
      if (subtaskFamily(q.subtask) === undefined) return;
      if (task === 'code2text' && q.subtask === 'c2t_match') checkMatchPair(q, i, pairs, qrels, rep);
      const j = judged.get(q.queryId);
      if (j === undefined)
        rep.at(qTable, i, 'warning', 'no-qrels', 'query_id', `query \`${q.queryId}\` has no qrels in ${rTable}; it cannot be scored`);
      else if (j.positives === 0 && q.subtask !== 'c2t_match') {
        rep.at(qTable, i, 'warning', 'no-positive', 'query_id', `query \`${q.queryId}\` has no relevance-2 document; every measure will be 0`);
      }
    });
  }
  return rep.issues;
}

function checkQuery(
  release: Release,
  task: TaskName,
  q: QueryRecord,
  i: number,
  rep: Reporter,
  codeIndex: Map<string, number>,
  textIndex: Map<string, number>,
  firstOfSubtask: number,
): void {
  const table = TASK_TABLES[task].queries;
  const owner = subtaskFamily(q.subtask);
  // A subtask is named once, at its first query, with its count.
  const warning = firstOfSubtask > 0 ? subtaskWarning(task, q.subtask, firstOfSubtask) : undefined;
  if (warning !== undefined) rep.at(table, i, 'warning', warning.kind, 'subtask', warning.message);
  if (owner === undefined) return;
  if (q.split !== undefined && q.split !== null && q.split !== task) {
    rep.at(table, i, 'warning', 'split-mismatch', 'split', `split \`${q.split}\` in ${table}; expected \`${task}\``);
  }
  const slice = subtaskLanguage(q.subtask);
  if (task === 'text2code') {
    const lc = q.languageConstraint;
    if (lc != null && slice !== undefined && (lc === 'none' ? 'any' : lc) !== slice) {
      rep.at(table, i, 'warning', 'inconsistent-language', 'language_constraint', `\`${lc}\` disagrees with subtask \`${q.subtask}\``);
    }
    return;
  }
  const lang = q.anchorLanguage;
  if (lang != null && !KNOWN_LANGUAGES.has(lang)) {
    rep.at(table, i, 'warning', 'unknown-language', 'anchor_language', `\`${lang}\` is not a CoREB language (${LANGUAGES.join(', ')})`);
  } else if (lang != null && slice !== undefined && slice !== 'any' && slice !== lang) {
    rep.at(table, i, 'warning', 'inconsistent-language', 'anchor_language', `\`${lang}\` disagrees with subtask \`${q.subtask}\``);
  }
  const anchor = q.meta.anchorCodeId;
  if (anchor == null) {
    if (task === 'code2code') {
      rep.at(
        table,
        i,
        'error',
        'missing-anchor',
        rep.metaField(table, 'anchor_code_id'),
        'c2c query has no anchor code id; the anchor must be removed before scoring',
      );
    }
  } else {
    const ci = codeIndex.get(anchor);
    if (ci === undefined) {
      rep.at(table, i, 'error', 'dangling-anchor', rep.metaField(table, 'anchor_code_id'), `anchor \`${anchor}\` is not in code_corpus`);
    } else if (lang != null && release.codeCorpus[ci].language !== lang) {
      rep.at(
        table,
        i,
        'warning',
        'inconsistent-language',
        'anchor_language',
        `\`${lang}\` but anchor \`${anchor}\` is ${release.codeCorpus[ci].language}`,
      );
    }
  }
  if (task === 'code2text' && q.textId != null && !textIndex.has(q.textId)) {
    rep.at(table, i, 'error', 'dangling-doc', 'text_id', `text \`${q.textId}\` is not in text_corpus`);
  }
}

/** c2t_match: a positive pair (label 1) must judge its text_id 2; a negative (label 0) must not. */
function checkMatchPair(q: QueryRecord, i: number, pairs: Map<string, number>, qrels: Release['tasks'][TaskName]['qrels'], rep: Reporter): void {
  const table = TASK_TABLES.code2text.queries;
  if (q.label == null || q.textId == null) return;
  if (q.label !== 0 && q.label !== 1) {
    rep.at(table, i, 'warning', 'unexpected-label', 'label', `label ${q.label}; c2t_match pairs are labelled 1 (positive) or 0 (negative)`);
    return;
  }
  const at = pairs.get(`${q.queryId}\u0000${q.textId}`);
  const rel = at === undefined ? undefined : qrels[at].relevance;
  if (q.label === 1 && rel !== RELEVANCE.positive) {
    rep.at(
      table,
      i,
      'warning',
      'inconsistent-pair',
      'label',
      `positive pair, but text \`${q.textId}\` is ${rel === undefined ? 'not judged' : `judged ${rel}`}; expected relevance 2`,
    );
  } else if (q.label === 0 && rel !== undefined && rel >= RELEVANCE.positive) {
    rep.at(table, i, 'warning', 'inconsistent-pair', 'label', `negative pair, but text \`${q.textId}\` is judged ${rel} (a positive)`);
  }
}

/** The warning a subtask's first query gets: no known family (skipped), another task's family, or a name no known release uses. */
function subtaskWarning(task: TaskName, subtask: string, queries: number): { kind: string; message: string } | undefined {
  const owner = subtaskFamily(subtask);
  const count = queries === 1 ? 'one query is' : `${queries} queries are`;
  if (owner === undefined) {
    const families = Object.keys(SUBTASK_FAMILIES).join(', ');
    return {
      kind: 'unknown-family',
      message: `subtask \`${subtask}\` has no known family prefix (${families}); its ${count} skipped, not scored`,
    };
  }
  if (owner !== task) {
    return {
      kind: 'subtask-task-mismatch',
      message: `subtask \`${subtask}\` is named as ${owner}, but stands in ${TASK_TABLES[task].queries}; its ${count} scored as ${task} (the corpus of its table)`,
    };
  }
  if (isKnownSubtask(subtask)) return undefined;
  return {
    kind: 'unknown-subtask',
    message: `subtask \`${subtask}\` is new to this coreb (known ${task} subtasks: ${describeSubtasks(task)}); its ${count} scored as a ${task} subtask of its own and count in every aggregate`,
  };
}

function describeSubtasks(task: TaskName): string {
  if (task === 'code2code') return SUBTASKS.code2code.join(', ');
  if (task === 'code2text') return 'c2t_{canonical_retro,full_retro}_{any,python,java,cpp,ruby,go} and c2t_match';
  return 't2c_{canonical_retro,full_retro,search}_{any,python,java,cpp,ruby,go}';
}
