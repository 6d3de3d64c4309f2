/**
 * `coreb download`: fetches an official CoREB release from the Hugging Face Hub (HTTP API, resumable,
 * checked against the Hub's sizes and sha256) into a directory `coreb eval --data` reads.
 */
import { resolve } from 'node:path';
import { COREB_HUB_DATASET, downloadRelease, HUB_ENDPOINT } from '../../dataset/download-release.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';
import { createProgressBar } from '../progress-bar.js';

const USAGE = `Usage: coreb download [--split NAME] [--out DIR] [options]

Downloads the official CoREB release from the Hugging Face Hub dataset ${COREB_HUB_DATASET}
(parquet, 8 tables per split: release_v2602, release_v2603, ...) through the Hub's HTTP API.
Files already present with the right size are skipped, so an interrupted download resumes;
every file is checked against the Hub's size and sha256.

Options:
  --split NAME       only this split (e.g. release_v2602); default every split
  --out DIR          target directory (default ./coreb-data)
  --dataset ID       Hub dataset id (default ${COREB_HUB_DATASET})
  --revision REV     branch, tag or commit (default main)
  --quiet            no progress or informational output

Environment: HF_ENDPOINT (a mirror; default ${HUB_ENDPOINT}), HF_TOKEN (gated or private datasets;
never printed).

Offline, or with the Hugging Face tools instead:
  hf download ${COREB_HUB_DATASET} --repo-type dataset --local-dir DIR
  git lfs install && git clone https://huggingface.co/datasets/${COREB_HUB_DATASET} DIR
then: coreb eval --data DIR --split release_v2602

Exit status: 0 ok, 3 not found / cannot write, 6 the Hub unreachable or an HTTP error.
`;

async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseOptions('download', ctx.argv, {
    split: opt.string(),
    out: opt.string(),
    dataset: opt.string(),
    revision: opt.string(),
    quiet: opt.flag(),
  });
  const outDir = resolve(ctx.cwd, values.out ?? 'coreb-data');
  const token = ctx.env.HF_TOKEN ?? ctx.env.HUGGING_FACE_HUB_TOKEN;
  const r = await downloadRelease({
    outDir,
    ...(values.dataset !== undefined ? { dataset: values.dataset } : {}),
    ...(values.revision !== undefined ? { revision: values.revision } : {}),
    ...(values.split !== undefined ? { split: values.split } : {}),
    ...(ctx.env.HF_ENDPOINT ? { endpoint: ctx.env.HF_ENDPOINT } : {}),
    ...(token ? { token } : {}),
    signal: ctx.signal,
    logger: ctx.logger,
    ...(values.quiet ? {} : { progress: createProgressBar(ctx.stderr, ctx.interactive) }),
  });
  const fetched = r.files.filter((f) => !f.skipped);
  const bytes = fetched.reduce((s, f) => s + f.bytes, 0);
  ctx.stdout.write(
    `${r.dataset}@${r.revision}: ${fetched.length} file(s) downloaded (${(bytes / 1e6).toFixed(1)} MB), ${r.files.length - fetched.length} already present, in ${outDir}\n` +
      `splits: ${r.splits.join(', ')}\n` +
      `next: coreb eval --data ${outDir}${r.splits.length > 0 ? ` --split ${r.splits[r.splits.length - 1]}` : ''}\n`,
  );
  return 0;
}

const command: Command = {
  summary: 'download the official CoREB release from the Hugging Face Hub (resumable, checked)',
  usage: USAGE,
  run,
};
export default command;
