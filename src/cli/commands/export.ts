/**
 * `coreb export mteb`: writes a results file computed with the `mteb` preset in MTEB's results
 * format, ready for a submission to MTEB's results repository.
 */
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { exportMteb, MTEB_FORMAT_VERSION } from '../../report/mteb-export.js';
import { loadEvalResults } from '../../dataset/results-file.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';
import { readOptionFile } from '../model-meta-option.js';

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
                               code2text, code2code or the MTEB task name). Default: MTEB's
                               pinned revisions for release_v2603 (MTEB's CoREB tasks); any other
                               dataset needs one per exported task.
  --model-meta FILE            JSON object of model_meta.json fields (MTEB's names: n_parameters,
                               license, open_weights, ...) over those coreb's model preset fills.
  --overwrite                  Replace an earlier export in the same ORG__NAME/REV folder.
  --mteb-version V             mteb_version written (default ${MTEB_FORMAT_VERSION}).
See docs/report.md for what else a submission needs.
`;

/** Reads `--model-meta FILE`: a JSON object (a UTF-8 BOM is ignored). */
async function loadModelMeta(file: string): Promise<Record<string, unknown>> {
  const text = await readOptionFile(file, '--model-meta');
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new CorebError('PARSE', `--model-meta is not valid JSON (${(e as Error).message}); expected an object of model_meta.json fields`, { file });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CorebError('VALIDATION', '--model-meta must hold a JSON object of model_meta.json fields, e.g. {"n_parameters": 7000000000}', { file });
  }
  return value as Record<string, unknown>;
}

const command: Command = {
  summary: "export mteb: results of the mteb preset in MTEB's results format (for a submission)",
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const [format, ...rest] = ctx.argv;
    if (format !== 'mteb')
      throw new CorebError('USAGE', `coreb export supports one format, \`mteb\`; got \`${format ?? ''}\`. See \`coreb export --help\``);
    const needed = '; see `coreb export --help`';
    const { values, positionals } = parseOptions(
      'export',
      rest,
      {
        out: opt.required('DIR', needed),
        'model-name': opt.required('NAME', needed),
        revision: opt.required('REV', needed),
        retriever: opt.string(),
        'dataset-revision': opt.strings(),
        'mteb-version': opt.string(),
        'model-meta': opt.string(),
        overwrite: opt.flag(),
      },
      true,
    );
    if (positionals.length !== 1) throw new CorebError('USAGE', `coreb export mteb takes one RESULTS.json, got ${positionals.length}`);
    const datasetRevisions: Record<string, string> = {};
    for (const pair of values['dataset-revision']) {
      const m = /^([^=]+)=(.+)$/.exec(pair);
      if (m === null) throw new CorebError('USAGE', `--dataset-revision must be TASK=REV, got \`${pair}\``);
      datasetRevisions[m[1]] = m[2];
    }
    const file = resolve(ctx.cwd, positionals[0]);
    const { results } = await loadEvalResults(file);
    const modelMeta = values['model-meta'] === undefined ? undefined : await loadModelMeta(resolve(ctx.cwd, values['model-meta']));
    const out = await exportMteb(results, {
      outDir: resolve(ctx.cwd, values.out),
      modelName: values['model-name'],
      revision: values.revision,
      resultsFile: file,
      datasetRevisions,
      ...(values.retriever !== undefined ? { retriever: values.retriever } : {}),
      ...(values['mteb-version'] !== undefined ? { mtebVersion: values['mteb-version'] } : {}),
      ...(modelMeta !== undefined ? { modelMeta } : {}),
      overwrite: values.overwrite,
    });
    for (const w of out.warnings) ctx.logger.warn(w);
    for (const f of out.files) ctx.stdout.write(f + '\n');
    return 0;
  },
};
export default command;
