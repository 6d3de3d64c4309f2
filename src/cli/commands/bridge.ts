/**
 * `coreb bridge train`: learns the vocabulary bridge (IBM Model 1 translation tables between
 * statement words and code terms) from a training release's relevant (statement, program) pairs,
 * for `bm25?bridge=FILE`.
 */
import { basename, resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { hashDatasetDir } from '../../dataset/dataset-identity.js';
import { loadRelease } from '../../dataset/release.js';
import { releaseTasks } from '../../dataset/release-tasks.js';
import { collectBridgePairs, saveBridgeFile, trainReleaseBridge } from '../../eval/bridge-release.js';
import { BRIDGE_TRAIN_DEFAULTS } from '../../search/bridge.js';
import { loadProblemSet } from '../../train/mine.js';
import { opt, parseOptions } from '../options.js';
import type { Command } from '../command.js';

const d = BRIDGE_TRAIN_DEFAULTS;
const USAGE = `Usage: coreb bridge train --data DIR --out FILE [options]

Learns a vocabulary bridge from a training release: for every (statement, program) pair the release
judges relevant (text-to-code query and positive program, code-to-text positive text and query
program), IBM Model 1 translation tables P(code term | statement word) and the reverse, with the
BM25 retriever's tokeniser. Use it with \`coreb eval --retriever bm25?bridge=FILE\`: each text query
is expanded into code terms (each code query into statement words) and a second BM25 pass is fused
with the first. Evaluate it on other problems than it was trained on: a release sharing problems
with the training data gets an in-sample warning in every result.

Options:
  --data DIR               The training release (any layout coreb reads).
  --split NAME             Its parquet split (default: the only one).
  --out FILE               The bridge file (JSON) to write.
  --exclude-problems X     Repeatable: leave out the queries of these problems: a release directory
                           (all its problems), a file of problem ids (one per line), or ids
                           separated by commas (train problem-disjoint from a test release).
  --iterations N           EM iterations (default ${d.iterations}).
  --terms-per-doc N        Distinct terms per statement and per program, highest tf-idf first
                           (default ${d.termsPerDoc}).
  --keep N                 Translations kept per term (default ${d.keepPerTerm}).
  --min-pairs N            Terms seen in fewer pairs get no row (default ${d.minPairs}).
See docs/eval.md ("Beyond lexical retrieval without a GPU").
`;

const command: Command = {
  summary: 'learn a vocabulary bridge (statement words <-> code terms) from a training release, for bm25?bridge=FILE',
  usage: USAGE,
  async run(ctx): Promise<number> {
    const [sub, ...rest] = ctx.argv;
    if (sub !== 'train')
      throw new CorebError('USAGE', `coreb bridge: unknown subcommand \`${sub ?? ''}\`; valid: train (see \`coreb bridge --help\`)`);
    const { values } = parseOptions('bridge train', rest, {
      data: opt.string(),
      split: opt.string(),
      out: opt.string(),
      'exclude-problems': opt.strings(),
      iterations: opt.int(d.iterations, 1),
      'terms-per-doc': opt.int(d.termsPerDoc, 1),
      keep: opt.int(d.keepPerTerm, 1),
      'min-pairs': opt.int(d.minPairs, 1),
    });
    if (values.data === undefined || values.out === undefined)
      throw new CorebError('USAGE', 'coreb bridge train needs --data DIR and --out FILE; see `coreb bridge --help`');
    const data = resolve(ctx.cwd, values.data);
    const { release, issues } = await loadRelease(data, values.split !== undefined ? { split: values.split } : {});
    const errors = issues.filter((i) => i.severity === 'error');
    if (errors.length > 0) {
      throw new CorebError('VALIDATION', `${data}: ${errors.length} problem(s), first: ${errors[0].message}. Run \`coreb validate ${data}\``, {
        file: data,
      });
    }
    const excludeValues = values['exclude-problems'].map((v) => (/[/\\]/.test(v) || v.startsWith('.') ? resolve(ctx.cwd, v) : v));
    const excluded = excludeValues.length > 0 ? (await loadProblemSet(excludeValues)).problems : undefined;
    const tasks = new Map(Object.entries(releaseTasks(release)));
    const training = collectBridgePairs(tasks, excluded);
    const t0 = performance.now();
    const { file } = trainReleaseBridge(
      training,
      { dataset: { name: basename(data), split: release.split, sha256: (await hashDatasetDir(data, ctx.signal)).sha256 } },
      {
        iterations: values.iterations,
        termsPerDoc: values['terms-per-doc'],
        keepPerTerm: values.keep,
        minPairs: values['min-pairs'],
      },
    );
    const out = resolve(ctx.cwd, values.out);
    await saveBridgeFile(out, file);
    ctx.stderr.write(
      `coreb bridge train: ${training.pairs.length} (statement, program) pairs of ${training.problems.length} problems${excluded !== undefined ? ` (${excluded.size} problems excluded)` : ''}; ` +
        `${Object.keys(file.textToCode).length} statement words and ${Object.keys(file.codeToText).length} code terms with translations; ${((performance.now() - t0) / 1000).toFixed(1)} s\nwrote ${out}\n`,
    );
    return 0;
  },
};
export default command;
