/**
 * `coreb soup`: averages PEFT LoRA adapters into one adapter (`linear` or the exact `cat`), and
 * `--check` verifies on sampled modules that `cat` equals the mean of the merged deltas.
 */
import { resolve } from 'node:path';
import { CHECK_FAILED_EXIT, CorebError } from '../../core/errors.js';
import { FLOAT_DTYPES, type FloatDtype } from '../../tensors/safetensors.js';
import { checkSoup, SOUP_METHODS, soupAdapters, type SoupCheckReport } from '../../train/soup.js';
import { opt, parseOptions } from '../options.js';
import type { Command } from '../command.js';
import { createProgressBar } from '../progress-bar.js';
import { corebVersion } from '../../core/version.js';

const USAGE = `Usage: coreb soup ADAPTER_DIR ADAPTER_DIR [...] --out DIR [--method linear|cat] [--weights W,W,...]
       coreb soup ADAPTER_DIR ADAPTER_DIR [...] --check [--out DIR ...] [--sample N]

Averages PEFT LoRA adapter folders (adapter_config.json + adapter_model.safetensors) of one base
model into one adapter folder. The adapters must agree on base model, target modules, rank, alpha
(and rsLoRA, rank/alpha patterns, modules_to_save) and tensor names and shapes.

Methods:
  linear   A = sum w_i A_i, B = sum w_i B_i; rank and alpha kept (the paper's "averaging adapter
           weights"; the merged delta has cross terms). Default.
  cat      A = [A_1; ...; A_n], B = [w_1 s_1 B_1, ..., w_n s_n B_n], rank = sum of ranks, alpha =
           rank: the merged delta is exactly sum w_i s_i B_i A_i (s = alpha/r), PEFT's \`cat\`.

Options:
  --out DIR          Output adapter folder (adapter_config.json with a \`coreb_soup\` record of
                     method, weights, dtype and input SHA-256s; the same record in the
                     safetensors __metadata__).
  --method M         linear (default) | cat
  --weights LIST     One weight per adapter, comma-separated (default: 1/n each).
  --dtype D          same (default: the inputs' dtype, F32 if they mix) | F32 | BF16 | F16 | F64.
                     Values are rounded once, to nearest, ties to even.
  --check            Verify on --sample modules that cat's merged delta equals the weighted mean
                     of the inputs' merged deltas (tolerance relative to max |delta|: F32 1e-6,
                     BF16 2^-7, F16 2^-10) and report how far linear is; with --out, the written
                     adapter is checked too. Exit status 1 when cat is out of tolerance.
  --sample N         Modules checked, evenly spaced over the sorted names (default 8).
  --rows N           Rows of each module's delta checked, evenly spaced (default 512; 0 = all).
  --json             Print the check report as JSON.
  --quiet            No progress or informational output (warnings and errors still print).

See docs/train.md.
`;

function parseWeights(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map((s) => s.trim());
  const out = parts.map(Number);
  if (parts.some((p) => p === '') || !out.every(Number.isFinite))
    throw new CorebError('USAGE', `--weights must be comma-separated numbers, got \`${text}\``);
  return out;
}

function fmt(x: number): string {
  return x === 0 ? '0' : x.toExponential(3);
}

function renderCheck(r: SoupCheckReport): string {
  const labels = Object.keys(r.overall);
  const lines = [
    `soup check (${r.modules.length} modules, ${r.modules.reduce((n, m) => n + m.rowsChecked, 0)} rows of delta, dtype ${r.dtype}, weights ${r.weights.join(',')}); error of each candidate's merged delta against the weighted mean of the inputs' merged deltas`,
  ];
  lines.push(['module', 'max|delta|', ...labels.flatMap((l) => [`${l} max rel`, `${l} rel Frob`])].join('\t'));
  for (const m of r.modules) {
    lines.push([m.name, fmt(m.maxAbsDelta), ...labels.flatMap((l) => [fmt(m.errors[l].maxRelError), fmt(m.errors[l].relFrobeniusError)])].join('\t'));
  }
  lines.push(['overall', '', ...labels.flatMap((l) => [fmt(r.overall[l].maxRelError), fmt(r.overall[l].relFrobeniusError)])].join('\t'));
  lines.push(
    `cat ${r.ok ? 'OK' : 'FAILED'}: max relative error ${fmt(r.overall.cat.maxRelError)} (tolerance ${fmt(r.tolerance)}); linear is ${fmt(r.overall.linear.relFrobeniusError)} away (relative Frobenius)`,
  );
  return lines.join('\n') + '\n';
}

const command: Command = {
  summary: 'average PEFT LoRA adapters (linear or exact cat soup) and check the result',
  usage: USAGE,
  async run(ctx) {
    const { values, positionals } = parseOptions(
      'soup',
      ctx.argv,
      {
        out: opt.string(),
        method: opt.choice(SOUP_METHODS, 'linear'),
        weights: opt.string(),
        dtype: opt.choice<FloatDtype | 'same', 'same'>(['same', ...FLOAT_DTYPES], 'same'),
        check: opt.flag(),
        sample: opt.int(8, 1),
        rows: opt.int(512, 0),
        json: opt.flag(),
        quiet: opt.flag(),
      },
      true,
    );
    if (positionals.length < 2)
      throw new CorebError('USAGE', `coreb soup needs at least two adapter folders, got ${positionals.length}; see \`coreb soup --help\``);
    if (values.out === undefined && !values.check) throw new CorebError('USAGE', 'coreb soup needs --out DIR (or --check); see `coreb soup --help`');
    const { method, dtype } = values;
    const weights = parseWeights(values.weights);
    const adapters = positionals.map((p) => resolve(ctx.cwd, p));
    const progress = values.quiet ? undefined : createProgressBar(ctx.stderr, ctx.interactive);
    let outDir: string | undefined;
    if (values.out !== undefined) {
      outDir = resolve(ctx.cwd, values.out);
      const r = await soupAdapters({
        adapters,
        outDir,
        method,
        ...(weights ? { weights } : {}),
        dtype,
        corebVersion: corebVersion(),
        signal: ctx.signal,
        ...(progress ? { progress } : {}),
      });
      ctx.logger.info(`wrote ${outDir} (${r.method}, rank ${r.r}, ${r.tensors} tensors, ${r.dtype}, weights ${r.weights.join(',')})`);
    }
    if (!values.check) return 0;
    const report = await checkSoup({
      adapters,
      ...(weights ? { weights } : {}),
      dtype,
      ...(outDir !== undefined ? { written: outDir } : {}),
      sample: values.sample,
      rows: values.rows,
      signal: ctx.signal,
      ...(progress ? { progress } : {}),
    });
    ctx.stdout.write(values.json ? JSON.stringify(report, null, 2) + '\n' : renderCheck(report));
    return report.ok ? 0 : CHECK_FAILED_EXIT;
  },
};
export default command;
