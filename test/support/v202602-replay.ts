/**
 * A scripted LLM that answers every stage of `coreb build` with the official v202602 release's own
 * artifacts (../shared/data/coreb/release_v2602 and the LiveCodeBench v5 problems beside it): the
 * rewrite is v202602's text (title, statement; the I/O unchanged, so the tests stage passes the
 * public tests through), the abbreviation its `abbreviated_text`, each solver's program its code for
 * that model and language, each query-writer request the v202602 search queries of that problem,
 * type and variant (an empty list where v202602 has none), each near-miss request the problem's
 * near-miss text of that strategy. Building from it replays v202602's construction through coreb.
 */
import { readFileSync } from 'node:fs';
import { RELEASE_TABLES } from '../../src/core/dataset.js';
import { HARD_NEGATIVE_STRATEGIES } from '../../src/construct/index.js';
import type { ChatAnswer, ChatCall } from './loopback-chat-server.js';
import { sharedPath } from './shared.js';

type Row = Record<string, unknown>;

/** The v202602 tables (JSONL, flattened meta): the 8 of every release. */
export const V202602_TABLES = RELEASE_TABLES;

/** The models of v202602: model A (primary) and model B. */
export const V202602_MODELS = ['claude-4-sonnet', 'gemini-3-flash'] as const;

function readJsonl(file: string): Row[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

/** What {@link loadV202602Replay} gives a test. */
export interface V202602Replay {
  /** The chosen LiveCodeBench v5 problems, as read (write them to the `--problems` file). */
  problems: Row[];
  /** v202602's tables restricted to the chosen problems (qrels to the queries kept and documents present). */
  release: Record<(typeof V202602_TABLES)[number], Row[]>;
  /** The chat server's answer callback. */
  answer: (call: ChatCall) => ChatAnswer;
}

/**
 * Loads the replay for the given LiveCodeBench question ids (default: every AtCoder problem of
 * v202602; its LeetCode-derived programs read stdin in ad-hoc formats while LiveCodeBench tests them
 * as functions, so they cannot pass there).
 */
export function loadV202602Replay(ids?: readonly string[]): V202602Replay {
  const dir = sharedPath('data', 'coreb', 'release_v2602');
  const all = Object.fromEntries(V202602_TABLES.map((t) => [t, readJsonl(`${dir}/${t}.jsonl`)])) as V202602Replay['release'];
  const lcb = readJsonl(sharedPath('data', 'lcb_v5_problems.jsonl'));
  const chosen = lcb.filter((p) => (ids === undefined ? p.platform === 'atcoder' : ids.includes(String(p.question_id))));
  const pids = new Set(chosen.map((p) => `lcb_${p.question_id}`));
  const keepQueries = (rows: Row[]): Row[] => rows.filter((r) => pids.has(String(r.meta_source_problem_id)));
  const code = all.code_corpus.filter((r) => pids.has(String(r.meta_source_problem_id)));
  const text = all.text_corpus.filter((r) => pids.has(String(r.meta_original_problem_id ?? r.meta_source_problem_id)));
  const docs = new Set([...code.map((r) => String(r.code_id)), ...text.map((r) => String(r.text_id))]);
  const release = { code_corpus: code, text_corpus: text } as V202602Replay['release'];
  for (const task of ['text2code', 'code2code', 'code2text'] as const) {
    const queries = keepQueries(all[`${task}_queries`]);
    const qids = new Set(queries.map((q) => String(q.query_id)));
    release[`${task}_queries`] = queries;
    release[`${task}_qrels`] = all[`${task}_qrels`].filter((r) => qids.has(String(r.query_id)) && docs.has(String(r.doc_id)));
  }
  const original = new Map(text.filter((r) => r.meta_is_noise_sample !== true).map((r) => [String(r.meta_source_problem_id), r]));
  const nearMiss = new Map(
    text.filter((r) => r.meta_is_noise_sample === true).map((r) => [`${r.meta_original_problem_id}/${Number(r.meta_noise_variation)}`, r]),
  );
  const programs = new Map(code.map((r) => [`${r.model}|${r.meta_source_problem_id}/${r.language}`, String(r.code)]));
  const searches = release.text2code_queries.filter((q) => String(q.subtask).startsWith('t2c_search_'));
  const starter = new Map(chosen.map((p) => [`lcb_${p.question_id}`, String(p.starter_code ?? '')]));

  const answer = (call: ChatCall): ChatAnswer => {
    const [qid, sub] = call.item.split('/');
    const pid = `lcb_${qid}`;
    const t = original.get(pid);
    if (t === undefined) return { fault: { status: 400, body: JSON.stringify({ error: `v202602 has no text for ${call.item}` }) } };
    switch (call.stage) {
      case 'rewrite': {
        const full = String(t.text);
        const cut = full.indexOf('\n\n');
        const body = { title: full.slice(0, cut).trim(), statement: full.slice(cut + 2), starterCode: starter.get(pid) ?? '', ioChanged: false };
        return JSON.stringify(body);
      }
      case 'abbreviate':
        return String(t.abbreviated_text);
      case 'solve': {
        const code = programs.get(`${call.model}|${pid}/${sub}`);
        return code === undefined ? 'No program.' : `\`\`\`${sub}\n${code.trimEnd()}\n\`\`\``;
      }
      case 'queries': {
        const prompt = [...call.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
        const keys = [...new Set([...prompt.matchAll(/"(retro_[a-z]+)"/g)].map((m) => m[1]))];
        const out: Record<string, string[]> = {};
        for (const k of keys) {
          const variant = `t2c_search_${k.slice('retro_'.length)}`;
          out[k] = searches
            .filter((q) => q.meta_source_problem_id === pid && q.meta_original_query_type === sub && q.subtask === variant)
            .map((q) => String(q.query));
        }
        return JSON.stringify({ queries: out });
      }
      case 'negatives': {
        const k = (HARD_NEGATIVE_STRATEGIES as readonly string[]).indexOf(sub) + 1;
        const n = nearMiss.get(`${pid}/${k}`);
        return n === undefined ? { fault: { status: 400, body: JSON.stringify({ error: `no near-miss ${k} for ${pid}` }) } } : String(n.text);
      }
      default:
        return { fault: { status: 400, body: JSON.stringify({ error: `the replay has no answer for stage ${call.stage}` }) } };
    }
  };
  return { problems: chosen, release, answer };
}
