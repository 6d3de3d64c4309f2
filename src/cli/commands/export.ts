/**
 * `coreb export mteb`: writes a results file computed with the `mteb` preset in MTEB's results
 * format, ready for a submission to MTEB's results repository.
 */
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { exportMteb, loadEvalResults, MTEB_FORMAT_VERSION } from '../../report/index.js';
import { parseCommandArgs } from '../args.js';
import type { Command, CommandContext } from '../command.js';

const USAGE = `Usage: coreb export mteb RESULTS.json --out DIR --model-name ORG/NAME --revision REV [options]

Writes DIR/ORG__NAME/REV/CorebT2CRetrieval.json, CorebC2TRetrieval.json, CorebC2CRetrieval.json
(Coreb*Reranking.json for a reranked entry) in MTEB's results format — ndcg, map, recall,
precision, mrr and hit_rate at k = 1, 3, 5, 10, 20, 100, 1000, accuracy, MTEB's abstention nAUCs
(from the run files), main_score, hf_subset "default", languages, evaluation_time — plus
model_meta.json and run_settings.jsonl.

Only results computed with \`coreb eval --protocol mteb\` can be exported (MTEB's qrels, anchors
and cut-offs); anything else is refused.

Options:
  --out DIR                    Output root (required).
  --model-name ORG/NAME        Model id on the Hugging Face hub (required).
  --revision REV               Model revision / commit (required).
  --retriever NAME             Retriever of the results to export (default: the only one).
  --dataset-revision TASK=REV  MTEB's dataset revision per task (repeatable; TASK = text2code,
                               code2text, code2code or the MTEB task name). Default: coreb's
                               dataset sha256 (replace it with MTEB's before submitting).
  --mteb-version V             mteb_version written (default ${MTEB_FORMAT_VERSION}).
See docs/report.md for what else a submission needs.
`;

const command: Command = {
  summary: "export mteb: results of the mteb preset in MTEB's results format (for a submission)",
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const [format, ...rest] = ctx.argv;
    if (format !== 'mteb')
      throw new CorebError('USAGE', `coreb export supports one format, \`mteb\`; got \`${format ?? ''}\`. See \`coreb export --help\``);
    const { values, positionals } = parseCommandArgs(
      'export',
      rest,
      {
        out: { type: 'string' },
        'model-name': { type: 'string' },
        revision: { type: 'string' },
        retriever: { type: 'string' },
        'dataset-revision': { type: 'string', multiple: true },
        'mteb-version': { type: 'string' },
      },
      true,
    );
    if (positionals.length !== 1) throw new CorebError('USAGE', `coreb export mteb takes one RESULTS.json, got ${positionals.length}`);
    for (const name of ['out', 'model-name', 'revision'] as const) {
      if (values[name] === undefined) throw new CorebError('USAGE', `coreb export mteb needs --${name}; see \`coreb export --help\``);
    }
    const datasetRevisions: Record<string, string> = {};
    for (const pair of (values['dataset-revision'] as string[] | undefined) ?? []) {
      const m = /^([^=]+)=(.+)$/.exec(pair);
      if (m === null) throw new CorebError('USAGE', `--dataset-revision must be TASK=REV, got \`${pair}\``);
      datasetRevisions[m[1]] = m[2];
    }
    const file = resolve(ctx.cwd, positionals[0]);
    const { results } = await loadEvalResults(file);
    const out = await exportMteb(results, {
      outDir: resolve(ctx.cwd, values.out as string),
      modelName: values['model-name'] as string,
      revision: values.revision as string,
      resultsFile: file,
      datasetRevisions,
      ...(values.retriever !== undefined ? { retriever: values.retriever as string } : {}),
      ...(values['mteb-version'] !== undefined ? { mtebVersion: values['mteb-version'] as string } : {}),
    });
    for (const f of out.files) ctx.stdout.write(f + '\n');
    return 0;
  },
};
export default command;
