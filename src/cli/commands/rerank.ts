/**
 * `coreb rerank`: reranks an existing TREC run with one or more rerankers and scores both, the run
 * as the first stage and each reranked run beside it (deltas, recall ceiling). The same machinery
 * as `coreb eval --retriever run:FILE --reranker SPEC`, to which it delegates.
 */
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import type { Command, CommandContext } from '../command.js';
import evalCommand from './eval.js';

const USAGE = `Usage: coreb rerank --data DIR --run FILE --reranker SPEC [--reranker SPEC ...] [--out DIR] [options]

Reranks the top --rerank-depth documents of each query of a TREC run and reports the reranked
run beside the original: every measure, the deltas, and the recall ceiling (the run's
Recall@depth). Code-to-code anchors are removed before the cut, so they never take a slot.

Options:
  --data DIR              CoREB release or BEIR directory the run was made on (required).
  --run FILE              TREC run (plain or .gz), e.g. runs/bm25.code2code.trec (required).
  --reranker SPEC         Repeatable (required). vllm|tei|llamacpp|jina|cohere|voyage:MODEL[?...],
                          yesno:openai:MODEL?baseUrl=.., yesno:ollama:MODEL, onnx:DIR (docs/rerank.md).
  --rerank-depth N        Candidates per query (default 128).
  --rerank-fusion F       none (default) | rrf[:k=60,alpha=4].
  --out DIR               Write runs/, results.json and leaderboard.md.
  --tasks, --split, --subtasks, --protocol, --format, --no-per-query, --quiet: as in coreb eval.

Scores are cached (COREB_CACHE_DIR): a second identical run sends nothing; an interrupted run
resumes without re-sending what was answered.
`;

/**
 * The retriever spec of the run: rows are named `run:` and the file as the user would write it from
 * here (relative to the working directory, or the file name when it lies elsewhere), never an
 * absolute path; a spec with its own `?name=` is kept as given.
 */
function runSpec(run: string, cwd: string): string {
  if (run.includes('?')) return `run:${run}`;
  const abs = resolve(cwd, run);
  const rel = relative(cwd, abs);
  const shown = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : basename(abs);
  return shown === run ? `run:${run}` : `run:${run}?name=${encodeURIComponent(`run:${shown}`)}`;
}

const command: Command = {
  summary: 'rerank an existing TREC run with one or more rerankers and score it against the original',
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const argv: string[] = [];
    let run: string | undefined;
    let data = false;
    let reranker = false;
    for (let i = 0; i < ctx.argv.length; i++) {
      const a = ctx.argv[i];
      if (a === '--run' || a.startsWith('--run=')) {
        if (run !== undefined) throw new CorebError('USAGE', '--run given twice; rerank one run at a time');
        run = a === '--run' ? ctx.argv[++i] : a.slice('--run='.length);
        if (run === undefined || run === '') throw new CorebError('USAGE', '--run needs a TREC run file');
        continue;
      }
      if (a === '--retriever' || a.startsWith('--retriever='))
        throw new CorebError('USAGE', 'coreb rerank takes --run FILE, not --retriever; use coreb eval for retrievers');
      if (a === '--data' || a.startsWith('--data=')) data = true;
      if (a === '--reranker' || a.startsWith('--reranker=')) reranker = true;
      argv.push(a);
    }
    if (!data) throw new CorebError('USAGE', 'coreb rerank needs --data DIR (the dataset the run was made on)');
    if (run === undefined) throw new CorebError('USAGE', 'coreb rerank needs --run FILE');
    if (!reranker) throw new CorebError('USAGE', 'coreb rerank needs at least one --reranker SPEC');
    return evalCommand.run({ ...ctx, argv: ['--retriever', runSpec(run, ctx.cwd), ...argv] });
  },
};
export default command;
