/**
 * `coreb metrics`: trec_eval-exact evaluation of a TREC run against TREC qrels, printed exactly as
 * trec_eval 9.0.8 prints it (`--format trec`) or as JSON with full double precision.
 */
import { PROTOCOLS } from '../../core/eval-results.js';
import { didYouMean } from '../../core/suggest.js';
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { turnAndCheck } from '../../core/event-loop-turns.js';
import { loadAnchorsTsv } from '../../dataset/anchors-tsv.js';
import { saveChunksAtomic } from '../../dataset/atomic-write.js';
import { evaluateTrecFiles } from '../../eval/trec-metrics.js';
import { MEASURE_FAMILIES, parseMeasures } from '../../metrics/measures.js';
import { renderTrecChunks } from '../../metrics/trec-format.js';
import { MEASURE_PRESETS, measurePreset, type ColumnarEvaluation, type NdcgMode, type ScorePrecision } from '../../metrics/evaluate.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';

const USAGE = `Usage: coreb metrics --qrels FILE --run FILE [options]

Evaluates a TREC run (qid Q0 docid rank score tag) against TREC qrels (qid iter docid rel),
plain or .gz, with trec_eval 9.0.8 / pytrec_eval semantics: scores rounded to float32, ranked
by score descending, ties by docid descending (UTF-8 bytes). Output matches trec_eval line for line.

Options:
  --qrels FILE              TREC qrels (required)
  --run FILE                TREC run (required)
  -m, --measures LIST       Repeatable, comma lists. trec_eval names (ndcg_cut.10, P.5,10,
                            map_cut.10,100, recall, map, ndcg, recip_rank, Rprec, bpref,
                            iprec_at_recall, 11pt_avg, Rprec_mult, relative_P.5, gm_bpref,
                            binG, G, ndcg_rel, Rndcg, infAP, utility,
                            success.1, set_P, set_relative_P, set_recall,
                            set_map, set_F, num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret,
                            num_q, gm_map, runid) or @-names (ndcg@10, map@10, recall@100, P@5,
                            success@1, mrr@10). A bare number continues the previous measure's
                            cutoffs: ndcg_cut.1,3,recall.10 = nDCG@1, nDCG@3, recall@10.
                            mrr@k / recip_rank_cut.k = RR if the first relevant doc is within k
                            (trec order; = trec_eval -M k -m recip_rank). mrr_beir@k = BEIR's MRR
                            (opt-in: ties in file order on double scores, relevant = label > 0,
                            mean over all qrels queries). Nicknames: all (every supported measure,
                            cutoffs 1,3,5,10,15,20,30,100,200,500,1000), official, all_trec.
                            Default: official (trec_eval's default).
  -l, --relevance-level N   Labels >= N are relevant for binary measures (default 1)
  --ndcg trec|strict        trec: raw linear gains, level ignored (default); strict: labels
                            below the level zeroed first (CoREB)
  --anchors TSV             qid<TAB>anchor_docid: each query's anchor is removed before ranking
  -c, --complete            Average over every qrels query; missing ones count 0 (trec_eval -c)
  -M, --max-docs N          Keep only the first N ranked docs per query (trec_eval -M)
  -q, --per-query           Per-query lines before the summary (trec_eval -q)
  --format trec|json        trec (default): trec_eval's text; json: {"perQuery", "aggregate",
                            "semantics"} with trec_eval names and full double precision
  --scores float32|float64  float32 (default, trec_eval 9.0.8); float64 = trec_eval 10 ordering
  --protocol trec|coreb     The measure part of a protocol: trec (default) = trec_eval's;
                            coreb = that of \`coreb eval --protocol coreb\` (level 2, strict
                            nDCG, --anchors removed). mteb and beir also decide which queries
                            count and how means round: score them with \`coreb eval --retriever
                            run:FILE --protocol mteb|beir\`. Explicit options override it.
  -o, --output FILE         Write the output to FILE instead of stdout, streamed (memory for a
                            piece, not the whole -q output) and atomic: complete or absent

Runs of any size, plain or .gz: a run grouped by query (every query's lines together, as
trec_eval and search engines write them) is evaluated query by query while it is read, in
memory for one query, not the file. A run that is not grouped is split by qid into temporary
files under the OS temp dir (TMPDIR), each evaluated in turn; same numbers, one more pass.
Ctrl-C / SIGTERM stop it within a second, printing nothing and leaving no file.

Exit status: 0 ok, 2 usage or unknown measure, 3 file not found, 4 malformed input
(with file:line), e.g. a duplicate (qid, docid), a NaN score, qrels lines with other
than 4 columns, or an empty run (trec_eval rejects the last two as well).
`;

/** Renders a columnar evaluation as the JSON document of `--format json`. */
function renderJson(result: ColumnarEvaluation, runId: string): string {
  const { columns, values, queryIds } = result;
  const width = columns.length;
  const keys = columns.map((c) => JSON.stringify(c.key));
  const parts: string[] = ['{"perQuery":{'];
  for (let row = 0; row < queryIds.length; row++) {
    let s = (row > 0 ? ',' : '') + JSON.stringify(queryIds[row]) + ':{';
    let first = true;
    for (let c = 0; c < width; c++) {
      if (!columns[c].perQuery) continue;
      const text = result.text.get(c);
      s += (first ? '' : ',') + keys[c] + ':' + JSON.stringify(text !== undefined ? text[row] : values[row * width + c]);
      first = false;
    }
    parts.push(s + '}');
  }
  const aggregate: Record<string, number> = {};
  for (let c = 0; c < width; c++) if (!columns[c].text) aggregate[columns[c].key] = result.aggregate[c];
  const semantics = {
    ...result.semantics,
    runid: runId,
    evaluatedQueries: queryIds.length,
    missingQueries: result.missingQueryIds.length,
    measureNames: 'trec_eval keys; recip_rank_cut_k = MRR@k in trec order; mrr_beir_k = BEIR-style MRR@k',
  };
  parts.push('},"aggregate":' + JSON.stringify(aggregate) + ',"semantics":' + JSON.stringify(semantics) + '}\n');
  return parts.join('');
}

const command: Command = {
  summary: 'trec_eval-exact measures of a TREC run against qrels (trec_eval 9.0.8 output or JSON)',
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const { values } = parseOptions('metrics', ctx.argv, {
      qrels: opt.string(),
      run: opt.string(),
      measures: opt.short('m', opt.strings()),
      'relevance-level': opt.short('l', opt.optionalInt(1)),
      ndcg: opt.choice<NdcgMode, undefined>(['trec', 'strict'], undefined),
      anchors: opt.string(),
      complete: opt.short('c', opt.flag()),
      'max-docs': opt.short('M', opt.optionalInt(1)),
      'per-query': opt.short('q', opt.flag()),
      format: opt.choice(['trec', 'json'] as const, 'trec'),
      scores: opt.choice<ScorePrecision, ScorePrecision>(['float32', 'float64'], 'float32'),
      protocol: opt.choice(MEASURE_PRESETS, 'trec', (v) =>
        (PROTOCOLS as readonly string[]).includes(v)
          ? `--protocol ${v}: coreb metrics scores one run with a protocol's measure semantics (trec, coreb); ${v} also decides which queries count and how means round, which only a whole evaluation knows: use coreb eval --data DIR --retriever run:FILE --protocol ${v}`
          : `--protocol must be one of ${MEASURE_PRESETS.join(', ')} (or, in coreb eval, ${PROTOCOLS.join(', ')}), got \`${v}\`${didYouMean(v, MEASURE_PRESETS)}`,
      ),
      output: opt.short('o', opt.string()),
    });
    const { qrels: qrelsPath, run: runPath, protocol, scores, format, anchors: anchorsPath } = values;
    if (qrelsPath === undefined || runPath === undefined) {
      throw new CorebError('USAGE', 'coreb metrics needs --qrels FILE and --run FILE; see `coreb metrics --help`');
    }
    const preset = measurePreset(protocol);
    const relevanceLevel = values['relevance-level'] ?? preset.relevanceLevel ?? 1;
    const ndcg = values.ndcg ?? preset.ndcg ?? 'trec';
    const specs = parseMeasures(values.measures.length > 0 ? values.measures : ['official']);
    if (protocol === 'coreb' && anchorsPath === undefined) {
      ctx.logger.debug('--protocol coreb without --anchors: no anchor is removed');
    }

    // The run is streamed query by query; only judged and anchor docs get interned ids.
    const anchors = anchorsPath === undefined ? undefined : await loadAnchorsTsv(resolve(ctx.cwd, anchorsPath));
    const { result, runTag } = await evaluateTrecFiles({
      qrels: resolve(ctx.cwd, qrelsPath),
      run: resolve(ctx.cwd, runPath),
      specs,
      relevanceLevel,
      ndcg,
      scores,
      anchors,
      complete: values.complete,
      maxDocs: values['max-docs'],
      signal: ctx.signal,
      onUngrouped: (parts) =>
        ctx.logger.info(`${runPath}: not grouped by query; splitting it by qid into ${parts} temporary files (sort it by qid to skip this pass)`),
    });
    const nonTrec = specs.filter((s) => !MEASURE_FAMILIES[s.family].trec).map((s) => s.family);
    if (format === 'trec' && nonTrec.length > 0) {
      ctx.logger.debug(`measures not in trec_eval (printed in its layout anyway): ${nonTrec.join(', ')}`);
    }
    const { output, 'per-query': perQuery } = values;
    if (output !== undefined) {
      // Rendered piece by piece into a temporary file renamed at the end: memory for one piece.
      const pieces = format === 'json' ? [renderJson(result, runTag)] : renderTrecChunks(result, { perQuery, runId: runTag });
      await saveChunksAtomic(resolve(ctx.cwd, output), pieces, ctx.signal);
      return 0;
    }
    // Rendered in pieces (the event loop turns between them, so a signal stops a huge -q output
    // too) and written only when complete: an interrupted run prints nothing.
    const pieces: Buffer[] = [];
    if (format === 'json') pieces.push(Buffer.from(renderJson(result, runTag), 'utf8'));
    else {
      for (const piece of renderTrecChunks(result, { perQuery, runId: runTag })) {
        pieces.push(piece);
        await turnAndCheck(ctx.signal);
      }
    }
    for (const piece of pieces) await new Promise<void>((done, fail) => ctx.stdout.write(piece, (e) => (e ? fail(e) : done())));
    return 0;
  },
};
export default command;
