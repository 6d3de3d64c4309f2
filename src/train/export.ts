/**
 * Exports reranker training records for the Python trainers people use: sentence-transformers
 * CrossEncoder (labeled pairs, labeled lists), FlagEmbedding (query/pos/neg[/prompt]), ms-swift
 * generative rerankers (messages / positive_messages / negative_messages), LLaMA-Factory (Alpaca SFT
 * with the yes/no target) and the paper's balanced yes/no examples. One JSON object per line.
 */
import { createRng, seedFrom } from '../core/random.js';
import { rerankRecordTask, type RerankPassage, type RerankTrainRecord } from '../core/rerank-training.js';
import { CorebError } from '../core/errors.js';
import type { TaskName } from '../core/dataset.js';
import {
  DEFAULT_INSTRUCTIONS,
  QWEN3_SUFFIX_NOTHINK,
  formatPrompt,
  qwen3Pair,
  resolveTemplate,
  type PromptTemplate,
} from '../providers/rerank/template.js';

/** Export formats (see docs/train.md for each trainer's command line). */
export const EXPORT_FORMATS = [
  'sentence-transformers',
  'sentence-transformers-lists',
  'flagembedding',
  'ms-swift',
  'llama-factory',
  'yesno-examples',
] as const;
/** An export format. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The yes/no templates an export can use (the reranking providers' Qwen3-Reranker layouts). */
export const EXPORT_TEMPLATES = ['qwen3', 'qwen3-nothink'] as const;

/**
 * The yes/no layout the exports write: the providers' template (the text a reranker is scored
 * with), the instruction per task, and the assistant turn's text before the answer token (the
 * empty thinking block of `qwen3`, nothing for `qwen3-nothink`).
 */
export interface YesNoLayout {
  template: PromptTemplate;
  instructions: Readonly<Record<TaskName, string>>;
  assistantPrefix: string;
  yes: string;
  no: string;
}

/** The layout of a template name, with the providers' default per-task instructions. */
export function resolveYesNoLayout(name: (typeof EXPORT_TEMPLATES)[number] = 'qwen3'): YesNoLayout {
  const template = resolveTemplate(name);
  return {
    template,
    instructions: DEFAULT_INSTRUCTIONS,
    assistantPrefix: template.suffix.slice(QWEN3_SUFFIX_NOTHINK.length),
    yes: 'yes',
    no: 'no',
  };
}

/** Options of {@link exportLines}. */
export interface ExportOptions {
  /** The yes/no layout (see {@link resolveYesNoLayout}). */
  layout: YesNoLayout;
  /** Seed of the balanced sampling (`llama-factory`, `yesno-examples`). Default 42. */
  seed?: number;
  /** `llama-factory`: every pair instead of the paper's balanced 2 pos / 1 easy / 1 hard. Default false. */
  allPairs?: boolean;
}

/** One (query, document, label) example with where it came from. */
export interface LabeledPair {
  record: RerankTrainRecord;
  doc: RerankPassage;
  /** 1 relevant, 0 not. */
  label: 0 | 1;
  kind: 'pos' | 'hard' | 'easy';
}

/** Every pair of a record: each positive (1), each hard and easy negative (0). */
export function recordPairs(r: RerankTrainRecord): LabeledPair[] {
  return [
    ...r.pos.map((doc) => ({ record: r, doc, label: 1 as const, kind: 'pos' as const })),
    ...r.hardNeg.map((doc) => ({ record: r, doc, label: 0 as const, kind: 'hard' as const })),
    ...r.easyNeg.map((doc) => ({ record: r, doc, label: 0 as const, kind: 'easy' as const })),
  ];
}

/**
 * The paper's balanced examples of one record (§4.3: "doubling positive samples and pairing each
 * with one easy and one hard negative"): every positive twice, plus one hard and one easy negative
 * drawn with a generator seeded by (seed, query id, first positive id). A record without hard
 * negatives gives a second easy one instead, and vice versa, so labels stay balanced when possible.
 */
export function balancedPairs(r: RerankTrainRecord, seed = 42): LabeledPair[] {
  const rng = createRng(seedFrom(seed, r.queryId, r.pos[0]?.id ?? ''));
  const out: LabeledPair[] = [];
  for (const doc of r.pos) out.push({ record: r, doc, label: 1, kind: 'pos' }, { record: r, doc, label: 1, kind: 'pos' });
  const hard = [...r.hardNeg];
  const easy = [...r.easyNeg];
  const draw = (from: RerankPassage[]) => from.splice(rng() % from.length, 1)[0];
  for (const want of ['hard', 'easy'] as const) {
    const pool = want === 'hard' ? (hard.length > 0 ? hard : easy) : easy.length > 0 ? easy : hard;
    if (pool.length === 0) continue;
    out.push({ record: r, doc: draw(pool), label: 0, kind: pool === hard ? 'hard' : 'easy' });
  }
  return out;
}

/** Formats whose rows carry the task's instruction (so every record's task must be T2C, C2T or C2C). */
const NEEDS_INSTRUCTION: ReadonlySet<ExportFormat> = new Set(['flagembedding', 'llama-factory', 'yesno-examples']);

/**
 * Checks, before anything is written, that every record can be exported in `format`.
 * @throws CorebError `VALIDATION` naming the unknown task labels, how many records carry them and the first record.
 */
export function checkExportable(records: readonly RerankTrainRecord[], format: ExportFormat): void {
  if (!NEEDS_INSTRUCTION.has(format)) return;
  const bad = records.filter((r) => rerankRecordTask(r.task) === undefined);
  if (bad.length > 0) {
    const labels = [...new Set(bad.map((r) => r.task))];
    throw new CorebError(
      'VALIDATION',
      `${bad.length} record(s) have a task (${labels.map((l) => `\`${l}\``).join(', ')}; first: ${bad[0].queryId}) that is not T2C, C2T or C2C, so no ${format} instruction applies`,
      { field: 'task' },
    );
  }
}

function instructionFor(t: YesNoLayout, r: RerankTrainRecord): string {
  const task = rerankRecordTask(r.task);
  if (task === undefined) {
    throw new CorebError('VALIDATION', `record ${r.queryId}: task \`${r.task}\` is not T2C, C2T or C2C, so no instruction applies`, {
      field: 'task',
    });
  }
  return t.instructions[task];
}

/**
 * The lines (JSON objects) of an export, in record order.
 * - `sentence-transformers`: `{"query", "passage", "label": 1|0}`, one per distinct (query id,
 *   document id) pair (records of one query share their hard negatives).
 * - `sentence-transformers-lists`: `{"query", "docs": [...], "labels": [...]}` per record.
 * - `flagembedding`: `{"query", "pos": [...], "neg": [hard..., easy...], "prompt": instruction}` per record.
 * - `ms-swift`: `{"messages": [user query], "positive_messages": [[assistant doc]], "negative_messages": [...]}` per record.
 * - `llama-factory`: Alpaca `{"system", "instruction": "<Instruct>: …\n<Query>: …\n<Document>: …", "input": "",
 *   "output": assistantPrefix + "yes"|"no"}`, balanced (or every pair with `allPairs`).
 * - `yesno-examples`: `{"query_id", "doc_id", "task", "instruction", "query", "document", "label": "yes"|"no",
 *   "prompt"}`, balanced; `prompt` is the full template text whose next token is the label.
 */
export function* exportLines(records: Iterable<RerankTrainRecord>, format: ExportFormat, o: ExportOptions): Generator<string> {
  const t = o.layout;
  const seed = o.seed ?? 42;
  const seen = new Set<string>();
  for (const r of records) {
    switch (format) {
      case 'sentence-transformers':
        for (const p of recordPairs(r)) {
          const key = `${r.queryId}\u0000${p.doc.id}`;
          if (seen.has(key)) continue;
          seen.add(key);
          yield JSON.stringify({ query: r.query, passage: p.doc.text, label: p.label });
        }
        break;
      case 'sentence-transformers-lists': {
        const pairs = recordPairs(r);
        yield JSON.stringify({ query: r.query, docs: pairs.map((p) => p.doc.text), labels: pairs.map((p) => p.label) });
        break;
      }
      case 'flagembedding':
        yield JSON.stringify({
          query: r.query,
          pos: r.pos.map((p) => p.text),
          neg: [...r.hardNeg, ...r.easyNeg].map((p) => p.text),
          prompt: instructionFor(t, r),
        });
        break;
      case 'ms-swift': {
        const turn = (p: RerankPassage) => [{ role: 'assistant', content: p.text }];
        yield JSON.stringify({
          messages: [{ role: 'user', content: r.query }],
          positive_messages: r.pos.map(turn),
          negative_messages: [...r.hardNeg, ...r.easyNeg].map(turn),
        });
        break;
      }
      case 'llama-factory': {
        const instruction = instructionFor(t, r);
        for (const p of o.allPairs ? recordPairs(r) : balancedPairs(r, seed)) {
          yield JSON.stringify({
            system: t.template.system,
            instruction: qwen3Pair(instruction, r.query, p.doc.text),
            input: '',
            output: t.assistantPrefix + (p.label === 1 ? t.yes : t.no),
          });
        }
        break;
      }
      case 'yesno-examples': {
        const instruction = instructionFor(t, r);
        for (const p of balancedPairs(r, seed)) {
          yield JSON.stringify({
            query_id: r.queryId,
            doc_id: p.doc.id,
            task: r.task,
            instruction,
            query: r.query,
            document: p.doc.text,
            label: p.label === 1 ? t.yes : t.no,
            prompt: formatPrompt(t.template, instruction, r.query, p.doc.text, undefined).prompt,
          });
        }
        break;
      }
    }
  }
}
