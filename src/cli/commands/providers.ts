/**
 * `coreb providers`: lists embedding providers and model presets, and `coreb providers embed`
 * encodes a JSONL file of texts through any provider spec with the cache (resumable after kill -9).
 */
import { resolve } from 'node:path';
import { saveAtomic, saveLinesAtomic } from '../../dataset/atomic-write.js';
import { parseJsonLenient } from '../../dataset/jsonl.js';
import { forEachLine } from '../../dataset/text-file.js';
import { npyIdsPath, writeIdsFile, writeNpy } from '../../dataset/npy.js';
import { createDenseEmbedder, resolveDenseInputs } from '../../eval/dense-embedder.js';
import { embedDataset } from '../../eval/embed-dataset.js';
import { TASK_SHORT, TASK_SHORT_NAME, TASKS, type TaskName } from '../../core/dataset.js';
import { CorebError } from '../../core/errors.js';
import { nameList } from '../../core/table.js';
import { CHAT_PROVIDERS } from '../../providers/chat/registry.js';
import { CHAT_SPEC_PARAMS } from '../../providers/chat/config.js';
import { embedInputKey, SPEC_PARAMS, taskDependentTasks } from '../../providers/config.js';
import { MODEL_PRESETS } from '../../providers/presets.js';
import { PROVIDERS } from '../../providers/registry.js';
import { RERANKERS } from '../../providers/rerank/registry.js';
import { opt, parseOptions, type OptionValues } from '../options.js';
import type { Command, CommandContext } from '../command.js';
import { createProgressBar } from '../progress-bar.js';

const USAGE = `Usage: coreb providers [--json]
       coreb providers embed --spec SPEC --input TEXTS.jsonl --out VECTORS.jsonl [options]
       coreb providers embed --spec SPEC --data RELEASE --out VECTORS.jsonl[.gz] [--tasks ..]

Without a subcommand: lists the embedding providers, the spec parameters and the model presets
(pooling, instruction templates and limits, each with its source).

embed: encodes every text of TEXTS.jsonl (plain or .gz; one JSON object per line with "text"
and optional "id"/"_id", or one JSON string per line; UTF-8, ids unique, as the dataset loaders) and writes VECTORS.jsonl ({"id", "kind", "vector"} per
line, input order; kind = query or doc, so a queries file and a corpus file concatenated are an
embeddings file for \`coreb eval --retriever embeddings:FILE\`). Vectors are cached
(COREB_CACHE_DIR, else $XDG_CACHE_HOME/coreb or ~/.cache/coreb): a rerun after an interruption
requests only what is missing; an identical rerun requests nothing.

embed --data: embeds a CoREB release's (or BEIR directory's) queries and corpus into one
embeddings file for \`coreb eval --retriever embeddings:FILE\`, through the same encoder as
\`--retriever dense:SPEC\`: each task's queries with that task's instruction template, each corpus
once (documents as title + text), so the file holds the vectors dense: computes. The dataset is
checked as \`coreb eval\` checks it.

One instruction rule: a text is embedded with the template (and provider input type) of its role
and task, the template \`dense:\` applies for that task. For a model whose instructions depend on
the task (Qwen3-Embedding, jina-code-embeddings, ...), --input therefore needs --task: without it
the call is refused rather than silently using a generic instruction no dense: run uses.

Options (embed):
  --spec SPEC        dense:<provider>:<model>[?key=value&...] or a named entry of coreb.config.json,
                     e.g. dense:openai:my-model?baseUrl=http://127.0.0.1:8000/v1&apiKeyEnv=MY_KEY
  --input FILE       texts (JSONL)
  --data DIR         a CoREB release or BEIR directory instead of --input (see above)
  --split NAME       with --data: the parquet split or BEIR qrels split
  --tasks LIST       with --data: t2c,c2t,c2c (default: all)
  --out FILE         vectors (JSONL; .gz gzipped), written atomically
  --role R           query | document (default document)
  --task T           t2c | c2t | c2c (or text2code, ...): the instruction template dense: uses
                     for that task (required when the model's instructions depend on the task)
  --config FILE      config file with named embedders (default ./coreb.config.json if present)
  --cache-dir DIR    cache root (default from COREB_CACHE_DIR / XDG_CACHE_HOME / HOME)
  --no-cache         do not read or write the cache
  --json             print a JSON summary (counts, cache hits) on stdout
  --format F         jsonl (default) | npy: a NumPy matrix OUT (C order) plus OUT's ids file (the
                     name with .npy replaced by .ids, one id per line); default npy when OUT ends
                     in .npy. Write docs.npy and queries.npy into one directory for
                     \`--retriever embeddings:DIR\`
  --dtype T          float32 (default) | float16 (npy only; half the size, rounded to nearest)

Exit status: 0 ok, 2 usage/config, 3 file not found, 6 provider or HTTP failure, 130 interrupted.
`;

function listText(): string {
  const lines = ['Providers:'];
  lines.push(...nameList(Object.entries(PROVIDERS).map(([name, p]) => [name, `${p.summary}${'apiKeyEnv' in p ? ` (key: $${p.apiKeyEnv})` : ''}`])));
  lines.push('', 'Spec: dense:<provider>:<model>[?key=value&...]; keys: ' + Object.keys(SPEC_PARAMS).join(', '));
  lines.push(
    '',
    'A Hugging Face Hub model run locally by its id (what `mteb run -m ORG/NAME` does), its ONNX export fetched once into the transformers.js cache:',
    "  coreb eval --retriever 'dense:onnx:ORG/NAME?allowRemoteModels=true'     e.g. ORG/NAME = jinaai/jina-embeddings-v2-base-code",
    '  (the repository needs onnx/model.onnx; a preset sets pooling and prompts; offline: dense:onnx:./DIR)',
  );
  lines.push('', 'Chat providers (coreb build, docs/build.md):');
  lines.push(
    ...nameList(Object.entries(CHAT_PROVIDERS).map(([name, p]) => [name, `${p.summary}${'apiKeyEnv' in p ? ` (key: $${p.apiKeyEnv})` : ''}`])),
  );
  lines.push('', 'Chat spec: <provider>:<model>[?key=value&...]; keys: ' + Object.keys(CHAT_SPEC_PARAMS).join(', '));
  lines.push('', 'Rerankers (--reranker PROVIDER:MODEL[?key=value&...]; see docs/rerank.md):');
  lines.push(...nameList(Object.entries(RERANKERS).map(([name, r]) => [name, r.summary])));
  lines.push('', 'Presets (matched from the model name; preset=<id> to force, preset=none to disable):');
  for (const p of MODEL_PRESETS) {
    const facts = [
      p.pooling && `pooling ${p.pooling}`,
      p.normalize !== undefined && `normalize ${p.normalize}`,
      p.maxTokens && `max ${p.maxTokens} tokens`,
      p.dimensions && `dim ${p.dimensions}`,
      Object.keys(p.templates).length > 0 && 'instruction templates',
      p.inputTypes && `input types (${Object.keys(p.inputTypes).join(', ')})`,
    ].filter(Boolean);
    lines.push(`  ${p.id}${p.aliases.length ? ` (also ${p.aliases.join(', ')})` : ''}`);
    lines.push(`      ${facts.join('; ') || 'no instructions'}`);
    lines.push(`      source: ${p.source}`);
  }
  return lines.join('\n') + '\n';
}

function parseTask(v: string | undefined): TaskName | undefined {
  if (v === undefined) return undefined;
  if (v in TASK_SHORT) return TASK_SHORT[v as keyof typeof TASK_SHORT];
  if ((TASKS as readonly string[]).includes(v)) return v as TaskName;
  throw new CorebError('USAGE', `--task must be one of t2c, c2t, c2c, ${TASKS.join(', ')}; got \`${v}\``);
}

/**
 * Reads the texts to embed with the dataset loaders' rules: plain or gzip (by content), strict
 * UTF-8 (an error naming the line, never silent replacement), a BOM ignored, blank lines skipped,
 * and every id unique.
 */
async function readTexts(file: string): Promise<{ ids: string[]; texts: string[] }> {
  const ids: string[] = [];
  const texts: string[] = [];
  const seen = new Map<string, number>();
  await forEachLine(file, (line, n) => {
    if (!line.trim()) return;
    let v: unknown;
    try {
      v = parseJsonLenient(line);
    } catch {
      throw new CorebError('PARSE', 'not valid JSON; every line must be a JSON object with "text" or a JSON string', { file, line: n });
    }
    const rec = v as { text?: unknown; id?: unknown; _id?: unknown };
    const text = typeof v === 'string' ? v : rec?.text;
    if (typeof text !== 'string') throw new CorebError('VALIDATION', 'a string `text` is required', { file, line: n, field: 'text' });
    const id = String(typeof v === 'object' && v !== null ? (rec.id ?? rec._id ?? texts.length) : texts.length);
    const first = seen.get(id);
    if (first !== undefined) {
      throw new CorebError('VALIDATION', `duplicate id \`${id}\` (first on line ${first}); every text needs its own id`, {
        file,
        line: n,
        field: rec.id !== undefined ? 'id' : '_id',
      });
    }
    seen.set(id, n);
    ids.push(id);
    texts.push(text);
  });
  return { ids, texts };
}

/** The options of `coreb providers embed`. */
const EMBED_OPTIONS = {
  spec: opt.required('SPEC', '; see --help'),
  input: opt.string(),
  data: opt.string(),
  split: opt.string(),
  tasks: opt.strings(),
  out: opt.required('FILE', '; see --help'),
  role: opt.choice(['query', 'document'] as const, undefined),
  task: opt.string(),
  config: opt.string(),
  'cache-dir': opt.string(),
  'no-cache': opt.flag(),
  json: opt.flag(),
  format: opt.choice(['jsonl', 'npy'] as const, undefined),
  dtype: opt.choice(['float32', 'float16'] as const, 'float32'),
};
type EmbedValues = OptionValues<typeof EMBED_OPTIONS>;

/** The cache directory of an embed run: false with --no-cache, else --cache-dir or the default. */
function embedCacheDir(ctx: CommandContext, values: EmbedValues): string | false | undefined {
  if (values['no-cache']) return false;
  return values['cache-dir'] === undefined ? undefined : resolve(ctx.cwd, values['cache-dir']);
}

async function embedCommand(ctx: CommandContext, argv: string[]): Promise<number> {
  const { values } = parseOptions('providers embed', argv, EMBED_OPTIONS);
  const either = 'coreb providers embed: give --input TEXTS.jsonl or --data DIR (one of them); see --help';
  if (values.data !== undefined) {
    if (values.input !== undefined) throw new CorebError('USAGE', either);
    return embedDataCommand(ctx, values, values.data);
  }
  if (values.input === undefined) throw new CorebError('USAGE', either);
  if (values.split !== undefined) throw new CorebError('USAGE', 'coreb providers embed: --split goes with --data');
  if (values.tasks.length > 0) throw new CorebError('USAGE', 'coreb providers embed: --tasks goes with --data');
  const { dtype, spec } = values;
  const role = values.role ?? 'document';
  const task = parseTask(values.task);
  const format = values.format ?? (values.out.endsWith('.npy') ? 'npy' : 'jsonl');
  if (dtype !== 'float32' && format !== 'npy') throw new CorebError('USAGE', '--dtype float16 needs --format npy');
  const input = resolve(ctx.cwd, values.input);
  const out = resolve(ctx.cwd, values.out);
  if (task === undefined) {
    const inputs = await resolveDenseInputs(spec, { env: ctx.env, cwd: ctx.cwd, configFile: values.config });
    const dependent = taskDependentTasks(inputs, role);
    if (dependent.length > 0) {
      throw new CorebError(
        'USAGE',
        `${inputs.model}: ${role} instructions depend on the task (${dependent.map((t) => TASK_SHORT_NAME[t]).join(', ')} differ from the generic one); ` +
          "coreb eval --retriever dense: always embeds with its task's, so give --task t2c|c2t|c2c, or embed a whole release with --data DIR",
      );
    }
  }
  const { ids, texts } = await readTexts(input);
  const cacheDir = embedCacheDir(ctx, values);
  const embedder = await createDenseEmbedder(spec, {
    env: ctx.env,
    cacheDir,
    configFile: values.config,
    cwd: ctx.cwd,
    logger: ctx.logger,
    signal: ctx.signal,
  });
  const started = performance.now();
  try {
    const m = await embedder.embed(texts, {
      role,
      task,
      signal: ctx.signal,
      progress: createProgressBar(ctx.stderr, ctx.interactive),
    });
    const kind = role === 'query' ? 'query' : 'doc';
    if (format === 'npy') {
      await writeNpy(out, m, dtype);
      await writeIdsFile(npyIdsPath(out), ids);
    } else {
      const lines: string[] = [];
      for (let i = 0; i < m.rows; i++) {
        lines.push(JSON.stringify({ id: ids[i], kind, vector: Array.from(m.data.subarray(i * m.dim, (i + 1) * m.dim)) }));
      }
      await saveAtomic(out, lines.join('\n') + (lines.length ? '\n' : ''));
    }
    const c = embedder.counters();
    const summary = {
      embedder: embedder.describe(),
      texts: m.rows,
      dim: m.dim,
      cache: cacheDir === false ? null : c,
      seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
    };
    if (values.json) ctx.stdout.write(JSON.stringify(summary) + '\n');
    else {
      ctx.logger.info(
        `wrote ${m.rows} vectors (dim ${m.dim}) to ${values.out}` +
          (cacheDir === false ? '' : `; cache: ${c.hits} hits, ${c.duplicates} duplicates, ${c.encoded} encoded`),
      );
    }
    return 0;
  } finally {
    embedder.close();
  }
}

/** `providers embed --data DIR`: a dataset's queries and corpus through dense:'s encoder, into one embeddings file. */
async function embedDataCommand(ctx: CommandContext, values: EmbedValues, data: string): Promise<number> {
  for (const k of ['role', 'task'] as const) {
    if (values[k] !== undefined)
      throw new CorebError('USAGE', `coreb providers embed: --${k} goes with --input; --data embeds each task's queries and corpus with their own`);
  }
  const dir = resolve(ctx.cwd, data);
  const out = resolve(ctx.cwd, values.out);
  const { spec, config: configFile } = values;
  const inputs = await resolveDenseInputs(spec, { env: ctx.env, cwd: ctx.cwd, configFile });
  const cacheDir = embedCacheDir(ctx, values);
  const embedder = await createDenseEmbedder(spec, { env: ctx.env, cacheDir, configFile, cwd: ctx.cwd, logger: ctx.logger, signal: ctx.signal });
  const started = performance.now();
  try {
    const e = await embedDataset(embedder, dir, {
      ...(values.split !== undefined ? { split: values.split } : {}),
      ...(values.tasks.length > 0 ? { tasks: values.tasks } : {}),
      inputKey: (role, task) => embedInputKey(inputs, role, task),
      signal: ctx.signal,
      progress: createProgressBar(ctx.stderr, ctx.interactive),
      logger: ctx.logger,
    });
    await saveLinesAtomic(out, e.lines, ctx.signal);
    const c = embedder.counters();
    const summary = {
      embedder: embedder.describe(),
      data: dir,
      queries: e.queries,
      docs: e.docs,
      dim: e.dim,
      corpora: e.corpora,
      cache: cacheDir === false ? null : c,
      seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
    };
    if (values.json) ctx.stdout.write(JSON.stringify(summary) + '\n');
    else {
      ctx.logger.info(
        `wrote ${e.queries} query and ${e.docs} document vectors (dim ${e.dim}) to ${values.out}; use --retriever embeddings:${values.out}` +
          (cacheDir === false ? '' : `; cache: ${c.hits} hits, ${c.duplicates} duplicates, ${c.encoded} encoded`),
      );
    }
    return 0;
  } finally {
    embedder.close();
  }
}

const command: Command = {
  summary: 'list embedding providers, presets and rerankers; `providers embed` encodes texts (cached, resumable)',
  usage: USAGE,
  async run(ctx) {
    const [sub, ...rest] = ctx.argv;
    if (sub === 'embed') return embedCommand(ctx, rest);
    const { values } = parseOptions('providers', ctx.argv, { json: opt.flag() });
    if (values.json) {
      ctx.stdout.write(
        JSON.stringify({
          providers: Object.fromEntries(
            Object.entries(PROVIDERS).map(([k, p]) => [k, { summary: p.summary, kind: p.kind, apiKeyEnv: 'apiKeyEnv' in p ? p.apiKeyEnv : null }]),
          ),
          specParams: Object.keys(SPEC_PARAMS),
          chatProviders: Object.fromEntries(
            Object.entries(CHAT_PROVIDERS).map(([k, p]) => [k, { summary: p.summary, apiKeyEnv: 'apiKeyEnv' in p ? p.apiKeyEnv : null }]),
          ),
          chatSpecParams: Object.keys(CHAT_SPEC_PARAMS),
          rerankers: Object.fromEntries(Object.entries(RERANKERS).map(([k, r]) => [k, { summary: r.summary, kind: r.kind }])),
          presets: MODEL_PRESETS,
        }) + '\n',
      );
    } else ctx.stdout.write(listText());
    return 0;
  },
};
export default command;
