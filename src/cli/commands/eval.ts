/**
 * `coreb eval`: evaluates one or more retrievers on a CoREB release (default: the bundled
 * coreb-mini sample) or a BEIR directory, prints a leaderboard and writes runs + results.json.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packagePath } from '../../core/package-files.js';
import { saveAtomic } from '../../dataset/atomic-write.js';
import { runEval } from '../../eval/run-eval.js';
import { RUN_FILE_FORMATS } from '../../eval/run-files.js';
import { CorebError, EXIT_CODES, type ErrorCode } from '../../core/errors.js';
import { PROTOCOLS, type EvalResults, type ProtocolName } from '../../core/eval-results.js';
import { resolveCacheDir } from '../../cache/cache-dir.js';
import { renderResults } from '../../report/render-results.js';
import { BM25_DEFAULTS, BM25_PRESETS } from '../../search/bm25.js';
import { resolveTokenizerOptions } from '../../search/tokenize.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';
import { readModelMetaOption } from '../model-meta-option.js';
import { createProgressBar } from '../progress-bar.js';
import { corebVersion } from '../../core/version.js';

/** The bundled sample release, relative to the package root. */
const SAMPLE_RELEASE = join('data', 'coreb-mini', 'release');

/** BM25's tuned defaults and tokeniser defaults, named in the help so it cannot drift from the code. */
const D = BM25_DEFAULTS;
const T = resolveTokenizerOptions();

const USAGE = `Usage: coreb eval [--data DIR ...] [--retriever SPEC ...] [options]

Evaluates retrievers under the CoREB protocol and prints a leaderboard.

Options:
  --data DIR              CoREB release (JSONL or parquet) or BEIR directory (corpus.jsonl,
                          queries.jsonl, qrels/test.tsv). Default: the bundled sample
                          ${SAMPLE_RELEASE} (inside the coreb package). Repeatable: every
                          retriever on every release (a matrix, one cell per release, progress
                          per cell); a model's vectors and scores are cached by text, so a
                          document two releases share is encoded once. With --out, each
                          release writes into its own folder OUT/<split> (OUT/<split>-2, ...
                          when two share a split name); --format json prints {"runs": [...]}.
  --retriever SPEC        Repeatable. Default: bm25. Every spec takes name=NAME, the name shown
                          in the leaderboard and results.json and used for run file names
                          (default: the spec itself): bm25?name=lexical, run:my.trec?name=mine,
                          dense:openai:MODEL?baseUrl=..&name=e5, rrf:bm25,run:x.trec,name=hybrid.
                          Names must be distinct. A named embedder of coreb.config.json
                          (dense:NAME) keeps its URL and options in the file. Specs:
                            bm25[?k1=${D.k1}&b=${D.b}&...]             code-aware BM25 (Lucene variant). Its defaults
                                                            were TUNED ON CoREB v202602 (numbers on that
                                                            release are in-sample): k1=${D.k1}, b=${D.b},
                                                            queryTf=${D.queryTf}, k3=${D.k3}, stopwords=${T.stopwords},
                                                            minLength=${T.minLength}, keepNumbers=${T.keepNumbers}, stem=${T.stem},
                                                            splitIdentifiers=${T.splitIdentifiers}, keepWhole=${T.keepWhole},
                                                            fields=${D.fields.join(',')}.
                                                            bm25?preset=classic: textbook k1=${BM25_PRESETS.classic.k1}, b=${BM25_PRESETS.classic.b},
                                                            queryTf=raw (preset=anserini: k1=${BM25_PRESETS.anserini.k1}, b=${BM25_PRESETS.anserini.b});
                                                            parameters beside a preset win.
                                                            fields=title,text,meta.KEY adds fields:
                                                            beware of one present on one label class
                                                            only (meta.abbreviatedText: originals
                                                            only), a label proxy (eval warns)
                            embeddings:FILE                 precomputed vectors, JSONL lines
                                                            {"id","kind":"query"|"doc","vector":[...]}
                                                            or a directory of docs.npy + docs.ids and
                                                            queries.npy + queries.ids (float32/16);
                                                            ?dtype=float16 stores documents in half
                                                            the memory; ?threads=N (default all cores);
                                                            ?memory=SIZE (512MB, 2GB: powers of 1024;
                                                            default half the RAM): a larger docs.npy
                                                            is searched streamed from disk in chunks
                                                            (same results, one pass per task);
                                                            ?kernel=ort scores with onnxruntime SGEMM
                                                            (optional onnxruntime-node; ~5x less CPU,
                                                            scores differ in the last bits)
                            run:FILE                        a TREC run (plain or .gz, any size): read
                                                            once, keeping only the evaluated queries'
                                                            top documents (memory: queries x depth)
                            rrf:SPEC,SPEC[,k=60][,weights=1,1]  reciprocal-rank fusion
                            dense:PROVIDER:MODEL[?...]      a live embedding model (see coreb providers);
                                                            dtype=, threads=, kernel= as for embeddings:
                            top-ranked[:FILE]               fixed MTEB candidate lists (default: the
                                                            data dir's top_ranked.jsonl)
                            es:INDEX[?url=..&fields=..]     an existing Elasticsearch/OpenSearch index
                                                            (BM25 at scale) over HTTP _msearch; INDEX may
                                                            use {task} or {corpus}; apiKeyEnv=VAR or
                                                            userEnv=VAR&passwordEnv=VAR; idField, size,
                                                            batch, name (docs/scale.md)
  --reranker SPEC         Repeatable. Reranks each retriever's top --rerank-depth; every
                          (retriever, reranker) pair is its own row. Specs (docs/rerank.md):
                            vllm|tei|llamacpp|jina|cohere|voyage:MODEL[?baseUrl=..&apiKeyEnv=..]
                            yesno:openai:MODEL?baseUrl=..   P(yes) of a causal LLM via /completions
                            yesno:ollama:MODEL              the same via Ollama /api/generate
                            onnx:DIR                        a local cross-encoder
  --rerank-depth N        Candidates reranked per query (default 128; top-ranked: all).
  --rerank-fusion F       none (default) | rrf[:k=60,alpha=4]: 1/(k+r_rerank) + alpha/(k+r_first).
  --top-ranked N          With --out: also write runs/<retriever>.<task>.top_ranked.jsonl, each
                          query's top N as MTEB candidate lists.
  --split NAME            Parquet release split directory (e.g. release_v2603) or BEIR qrels
                          split (default: the only one there is; BEIR: test).
  --corpus-texts WHERE    BEIR directories: auto (default) | memory | file. file leaves the
                          corpus texts in a plain corpus.jsonl (ids and titles in memory) and
                          reads each text again when it is needed: a BM25 index, an embedder,
                          a reranker's candidates. auto: file from 256 MiB. Leave the file
                          unchanged until the run ends (a change is refused, not read).
  --tasks LIST            t2c,c2t,c2c (default: all). CoREB releases only.
  --subtasks GLOBS        Comma-separated globs over subtask ids, e.g. 't2c_search_*,c2c_*'.
  --depth N               Documents kept per query (default 1000).
  --protocol NAME         coreb (default for releases; the published numbers): level 2,
                          strict nDCG, c2c anchors excluded, c2t_match negatives counted as 0,
                          ranked by the query-weighted overall.
                          mteb: what MTEB reports for its CoREB tasks: rel-2 qrels only (queries
                          without one dropped), anchors kept, level 1, k in 1,3,5,10,20,100,1000,
                          MTEB's MRR and hit rate, 5 decimals, ranked by the task mean.
                          beir (default for BEIR dirs): BEIR's evaluator: level 1, graded trec
                          nDCG, ignore_identical_ids, 5 decimals, ranked by the task mean.
                          Every protocol reports overall (query-weighted) and taskMean.
  --c2t-match-negatives M zero (default) | exclude: coreb only; exclude leaves the c2t_match
                          negative pairs out instead of counting them as 0.
  --out DIR               Write runs/<retriever>.<task>.trec.gz, results.json, leaderboard.md. DIR
                          must be new or empty (earlier results are never replaced silently);
                          temporary files left by a killed run are removed first.
  --runs gz|plain|none    Run files with --out, at --run-depth documents per query (v202602, one
                          BM25 at depth 1000: 2,604 queries, three files):
                            gz (default)  .trec.gz, gzip level 1: 34 MB, 5.2x less (all 1000);
                                          at the default run depth the eval takes ~1.1x the
                                          CPU of one without --out (bench/eval-out);
                                          run:, coreb metrics and compare read it; trec_eval
                                          does not (gzip -dc FILE > FILE.trec first)
                            plain         .trec: 177 MB (four BM25 variants: ~700 MB)
                            none          no run files (results.json and leaderboard.md only;
                                          export mteb then has no nAUCs)
  --run-depth N|all       Documents per query in the run files. Default: as deep as the measures
                          reported read (coreb and beir: 100; mteb: 1000; --measures recall@1000
                          or an uncut one such as map: all), the documents tied with the last one
                          and, for code-to-code, one more (the anchor), so coreb metrics and run:
                          on a file give the reported values exactly; all: every document
                          retrieved (--depth), for measures deeper than those reported
  --measures LIST         Measures beside the protocol's own, comma-separated: any one measure at
                          one cutoff \`coreb metrics\` knows (ndcg@100, recall@1000, p@5, map,
                          ndcg_cut_100); recorded in results.json, columns of the leaderboard
  --results DIR           Keep every scored row in a results store (plain JSON files, one per
                          retriever x dataset x protocol; docs/eval.md "Results store"); a row
                          the store already has is read from it, not scored again
  --force                 With --results: score such rows again and replace their entries
  --model-meta FILE       Model metadata by row name or model id, over coreb's presets (parameters,
                          embedDim, maxTokens, openWeights, license, codeSpecialised, releaseDate,
                          reference; MTEB's model_meta names work too): written into each row's
                          "model" (and so into the store), shown by coreb leaderboard, written by
                          coreb export mteb into model_meta.json
  --overwrite             Replace the results in a non-empty --out DIR (run files of the old
                          results that this run does not write are removed at the end).
  --format F              table (default) | markdown | latex | json  (what goes to stdout; LaTeX:
                          booktabs tabulars, the title and notes as % comments)
  --subtask-tables        Also print per-subtask tables in table format.
  --no-per-query          Leave per-query values out of results.json.
  --quiet                 No progress output on stderr.
  --index-cache DIR       Keep BM25 indexes on disk in DIR/bm25-index-v1 (keyed by the corpus
                          hash and tokeniser options) and reuse them in later runs; a corrupt
                          or mismatched file is rebuilt with a warning. Default: off.

Environment: COREB_CACHE_DIR (embedding and rerank score caches, token statistics), XDG_CACHE_HOME.
Writes are atomic: Ctrl-C leaves no half-written file; a failed write (a full disk) is an error
naming the file (exit 3), with no temporary file left.
See docs/eval.md for the results schema.
`;

const command: Command = {
  summary: 'evaluate retrievers on a CoREB release or BEIR directory (leaderboard, runs, results.json)',
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const { values } = parseOptions('eval', ctx.argv, {
      data: opt.strings(),
      split: opt.string(),
      retriever: opt.strings(),
      tasks: opt.strings(),
      subtasks: opt.string(),
      depth: opt.int(1000, 1),
      reranker: opt.strings(),
      'rerank-depth': opt.optionalInt(1),
      'rerank-fusion': opt.string(),
      'top-ranked': opt.optionalInt(1),
      protocol: opt.choice<ProtocolName, undefined>(PROTOCOLS, undefined),
      'c2t-match-negatives': opt.choice(['zero', 'exclude'] as const, undefined),
      out: opt.string(),
      overwrite: opt.flag(),
      runs: opt.choice(RUN_FILE_FORMATS, 'gz'),
      'run-depth': {
        type: 'string',
        parse(raw, name) {
          const v = typeof raw === 'string' ? raw.trim() : undefined;
          if (v === undefined) return undefined;
          if (v === 'all') return 'all' as const;
          if (!/^\d+$/.test(v) || Number(v) < 1) throw new CorebError('USAGE', `--${name} must be an integer >= 1 or all, got \`${v}\``);
          return Number(v);
        },
      },
      format: opt.format(['table', 'markdown', 'latex', 'json'] as const, 'table'),
      'subtask-tables': opt.flag(),
      'no-per-query': opt.flag(),
      quiet: opt.flag(),
      'index-cache': opt.string(),
      results: opt.string(),
      force: opt.flag(),
      measures: opt.strings(),
      'model-meta': opt.string(),
      'corpus-texts': opt.choice(['auto', 'memory', 'file'] as const, 'auto'),
    });
    if (values.force && values.results === undefined) throw new CorebError('USAGE', '--force needs --results DIR');
    const { format, runs, protocol, 'c2t-match-negatives': negatives } = values;
    const given = values.data;
    const datas: string[] = [];
    if (given.length === 0) {
      const sample = packagePath(SAMPLE_RELEASE);
      if (!existsSync(sample)) {
        throw new CorebError('NOT_FOUND', `the bundled sample release is missing at ${sample}; pass --data DIR`);
      }
      datas.push(sample);
    }
    for (const d of given) {
      const data = resolve(ctx.cwd, d);
      if (!existsSync(data)) throw new CorebError('NOT_FOUND', `--data ${data}: no such directory`);
      if (datas.includes(data)) throw new CorebError('USAGE', `--data ${d} is given twice`);
      datas.push(data);
    }
    const progress = values.quiet ? undefined : createProgressBar(ctx.stderr, ctx.interactive);
    const outRoot = values.out === undefined ? undefined : resolve(ctx.cwd, values.out);
    const storeDir = values.results === undefined ? undefined : resolve(ctx.cwd, values.results);
    const modelMeta =
      values['model-meta'] === undefined ? undefined : await readModelMetaOption(ctx.cwd, values['model-meta'], (m) => ctx.logger.warn(m));
    const matrix = datas.length > 1;
    const usedOut = new Set<string>();
    const all: EvalResults[] = [];
    let exit = 0;
    for (const [cell, data] of datas.entries()) {
      if (matrix) ctx.stderr.write(`coreb eval: release ${cell + 1} of ${datas.length}: ${data}\n`);
      let outDir = outRoot;
      if (outRoot !== undefined && matrix) {
        const base = releaseFolderName(data, values.split);
        let name = base;
        for (let k = 2; usedOut.has(name); k++) name = `${base}-${k}`;
        usedOut.add(name);
        outDir = join(outRoot, name);
      }
      const { results, store } = await runEval({
        data,
        retrievers: values.retriever,
        ...(values.split !== undefined ? { split: values.split } : {}),
        corpusTexts: values['corpus-texts'],
        ...(values.tasks.length > 0 ? { tasks: values.tasks } : {}),
        subtasks: values.subtasks ?? null,
        depth: values.depth,
        rerankers: values.reranker,
        ...(values['rerank-depth'] !== undefined ? { rerankDepth: values['rerank-depth'] } : {}),
        ...(values['rerank-fusion'] !== undefined ? { rerankFusion: values['rerank-fusion'] } : {}),
        ...(values['top-ranked'] !== undefined ? { topRanked: values['top-ranked'] } : {}),
        ...(protocol !== undefined ? { protocol } : {}),
        ...(negatives !== undefined ? { c2tMatchNegatives: negatives } : {}),
        ...(outDir !== undefined ? { outDir, overwrite: values.overwrite, runs } : {}),
        ...(values['run-depth'] !== undefined ? { runDepth: values['run-depth'] } : {}),
        ...(storeDir !== undefined ? { resultsStore: { dir: storeDir, force: values.force } } : {}),
        ...(values.measures.length > 0 ? { measures: values.measures } : {}),
        ...(modelMeta !== undefined ? { modelMeta } : {}),
        perQuery: !values['no-per-query'],
        baseDir: ctx.cwd,
        corebVersion: corebVersion(),
        env: ctx.env,
        ...(ctx.env.COREB_CACHE_DIR ? { cacheDir: ctx.env.COREB_CACHE_DIR } : {}),
        statsCacheDir: resolveCacheDir(ctx.env),
        // The descriptive statistics (cl100k token lengths: ~1.5 s on v202602 when not cached) live in
        // results.json for `coreb report`: only worked out when results are kept or printed as JSON.
        datasetStats: outDir !== undefined || storeDir !== undefined || format === 'json',
        ...(values['index-cache'] !== undefined ? { indexCacheDir: resolve(ctx.cwd, values['index-cache']) } : {}),
        signal: ctx.signal,
        ...(progress !== undefined ? { progress } : {}),
        logger: ctx.logger,
      });
      all.push(results);
      const subtasks = values['subtask-tables'];
      if (outDir !== undefined) {
        await saveAtomic(join(outDir, 'leaderboard.md'), renderResults(results, { format: 'markdown' }));
      }
      if (format !== 'json') {
        if (matrix && cell > 0) ctx.stdout.write('\n');
        ctx.stdout.write(renderResults(results, { format, subtasks: subtasks || format === 'markdown' }));
      }
      if (outDir !== undefined) {
        ctx.logger.info(
          `wrote ${join(outDir, 'results.json')}${runs === 'none' ? '' : `, runs/ (${runs === 'gz' ? '.trec.gz' : '.trec'})`} and leaderboard.md`,
        );
      }
      if (store !== undefined) {
        ctx.stderr.write(
          `results store ${store.dir}: ${store.added.length} row(s) scored and added, ${store.reused.length} already there and read from it` +
            (store.reused.length > 0 ? ' (not scored again; --force recomputes)' : '') +
            '\n',
        );
      }
      exit = Math.max(exit, reportFailures(ctx, results, outDir));
    }
    if (format === 'json') ctx.stdout.write(JSON.stringify(matrix ? { runs: all } : all[0], null, 2) + '\n');
    return exit;
  },
};

/** The folder a release of a matrix run writes into: its split, else its directory's name. */
function releaseFolderName(data: string, split: string | undefined): string {
  const name = split ?? data.split(/[\\/]/).filter(Boolean).slice(-2).join('-');
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'release';
}

/** Prints the failed rows of one run; the exit status they call for (0 when none failed). */
function reportFailures(ctx: CommandContext, results: EvalResults, outDir: string | undefined): number {
  const failed = results.failed ?? [];
  if (failed.length === 0) return 0;
  for (const f of failed) ctx.stderr.write(`coreb: retriever \`${f.name}\` failed (${f.code}): ${f.error}\n`);
  ctx.stderr.write(
    `coreb: ${failed.length} of ${failed.length + results.retrievers.length} retriever(s) failed; the others' results are complete` +
      (outDir !== undefined ? ` and written, the failures recorded under "failed" in ${join(outDir, 'results.json')}` : '') +
      '\n',
  );
  return EXIT_CODES[failed[0].code as ErrorCode] ?? EXIT_CODES.INTERNAL;
}
export default command;
