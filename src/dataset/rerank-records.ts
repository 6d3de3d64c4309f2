/**
 * Reads and writes reranker training records in the published CoREB reranker dataset's shape
 * (`query_id, task, subtask, query, pos[{id,text}], hard_neg[{id,text}], easy_neg[{id,text}]`), as
 * JSONL (coreb's `mine` output, or an export of the dataset) or parquet (the published files).
 */
import type { RerankPassage, RerankTrainRecord } from '../core/rerank-training.js';
import { CorebError } from '../core/errors.js';
import { saveLinesAtomic } from './atomic-write.js';
import { loadJsonlRecords } from './jsonl.js';
import { readParquetRows } from './parquet.js';

/** The wire (file) shape of one record. */
export interface RerankRecordWire {
  query_id: string;
  task: string;
  subtask: string;
  query: string;
  pos: RerankPassage[];
  hard_neg: RerankPassage[];
  easy_neg: RerankPassage[];
}

interface Where {
  file: string;
  line?: number;
  row?: number;
}

function idString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

function passages(v: unknown, field: string, where: Where): RerankPassage[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) throw new CorebError('PARSE', `expected a list of {id, text} objects, got ${typeof v}`, { ...where, field });
  return v.map((p, i) => {
    const o = p as { id?: unknown; text?: unknown } | null;
    const id = idString(o?.id);
    if (o === null || typeof o !== 'object' || id === undefined || typeof o.text !== 'string') {
      throw new CorebError('PARSE', `item ${i} must be {"id": string, "text": string}, got ${JSON.stringify(p)?.slice(0, 120)}`, { ...where, field });
    }
    return { id, text: o.text };
  });
}

/**
 * Converts one raw row (JSON object or parquet row) to a record. `subtask` may be missing or null
 * (read as `''`); ids may be numbers (read as strings); missing negative lists read as empty.
 * @throws CorebError `PARSE` naming the file, line (JSONL) or row (parquet) and the field.
 */
export function parseRerankRecord(raw: unknown, where: Where): RerankTrainRecord {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new CorebError('PARSE', 'expected a JSON object (one record per line)', where);
  const r = raw as Record<string, unknown>;
  const queryId = idString(r.query_id);
  if (queryId === undefined) throw new CorebError('PARSE', `expected a string, got ${JSON.stringify(r.query_id)}`, { ...where, field: 'query_id' });
  for (const f of ['task', 'query'] as const) {
    if (typeof r[f] !== 'string')
      throw new CorebError('PARSE', `expected a string, got ${JSON.stringify(r[f])?.slice(0, 80)}`, { ...where, field: f });
  }
  if (r.subtask !== undefined && r.subtask !== null && typeof r.subtask !== 'string') {
    throw new CorebError('PARSE', `expected a string or null, got ${JSON.stringify(r.subtask)}`, { ...where, field: 'subtask' });
  }
  const pos = passages(r.pos, 'pos', where);
  if (pos.length === 0) throw new CorebError('PARSE', 'a record needs at least one positive', { ...where, field: 'pos' });
  return {
    queryId,
    task: r.task as string,
    subtask: (r.subtask as string | null | undefined) ?? '',
    query: r.query as string,
    pos,
    hardNeg: passages(r.hard_neg, 'hard_neg', where),
    easyNeg: passages(r.easy_neg, 'easy_neg', where),
  };
}

/** A record in its wire shape. */
export function renderRerankRecord(r: RerankTrainRecord): RerankRecordWire {
  return { query_id: r.queryId, task: r.task, subtask: r.subtask, query: r.query, pos: r.pos, hard_neg: r.hardNeg, easy_neg: r.easyNeg };
}

/**
 * Loads records from a `.parquet` file (the published dataset's `train`/`test` files) or JSONL
 * (`.jsonl`, `.jsonl.gz`, anything else), in file order.
 * @throws CorebError `PARSE` at the first bad row or line, `NOT_FOUND`/`IO` when unreadable.
 */
export async function loadRerankRecords(file: string): Promise<RerankTrainRecord[]> {
  if (file.endsWith('.parquet')) {
    const rows = await readParquetRows(file);
    return rows.map((row, i) => parseRerankRecord(row, { file, row: i }));
  }
  return (await loadJsonlRecords(file)).map((rec) => parseRerankRecord(rec.value, { file, line: rec.line }));
}

/** Writes records as JSONL in the wire shape, streamed and atomic (directory created). */
export async function saveRerankRecords(file: string, records: Iterable<RerankTrainRecord>, signal?: AbortSignal): Promise<void> {
  await saveLinesAtomic(
    file,
    (function* () {
      for (const r of records) yield JSON.stringify(renderRerankRecord(r));
    })(),
    signal,
  );
}
