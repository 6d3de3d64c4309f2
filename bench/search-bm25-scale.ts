/**
 * BM25 at scale: coreb's BM25 index + search against Lucene 8 (Debian liblucene8-java) on corpora of
 * up to 1,000,000 documents derived from the CoREB release's code corpus, measured in the same run.
 *
 * The corpus is derived deterministically (seeded, never committed; written under `--dir`, default
 * /tmp/coreb-bm25-scale): document i takes the lines of a random release code document, replaces
 * each line with a random line of the whole corpus with probability 0.2, and renames up to three of
 * its identifiers to camelCase compounds with another corpus identifier (`count` -> `countVisited`),
 * so the vocabulary keeps growing with the corpus as real code does. Each size is a prefix of the
 * largest. Queries: the release's text-to-code (statements) and code-to-code (programs) queries.
 *
 * Each side runs in its own process per size (peak RSS is the process's): coreb in Node with the
 * default heap (`createBm25Index`, then `search` at depth 100), Lucene in Java (default heap) with
 * `BM25Similarity(k1, b)` (the same k1 and b), a comparable analyzer (words of letters, digits and
 * `_`; WordDelimiterGraphFilter split at case changes and digits with the catenated whole kept;
 * lowercase; coreb's code stop list; EnglishMinimalStemFilter, the same S-stemmer), one segment
 * writer thread, and a BooleanQuery of the query's distinct terms boosted by coreb's saturated
 * query term weight, top 100. Time is CPU seconds of the process (all threads, the fairer figure on
 * a shared machine) and wall seconds; indexing speed is in MB of document text (UTF-8) per CPU
 * second, search speed in queries per CPU second. Lucene's forceMerge(1) (before its search) is
 * timed apart and not counted in its indexing time. coreb loads the corpus as `coreb eval` loads a
 * BEIR directory (`loadBeir` on `DIR/beir-N/`, the first N documents, written once), Lucene streams
 * it from the file: the RSS after loading the corpus is printed beside coreb's peak. A corpus of
 * 256 MiB or more is loaded with its texts left in the file (`loadBeir`'s default), read again
 * in file order by the index build; the
 * bench then runs `coreb eval --retriever bm25` itself on the directory (whole process, under
 * /usr/bin/time) and prints its CPU and peak RSS beside Lucene's. After its search, coreb's
 * on-disk index is timed too, through the steps `coreb eval --index-cache` takes: hashing the corpus
 * (the key), saving the file, reading it back into a searchable index.
 *
 * Usage: node dist/bench/search-bm25-scale.js [--sizes 100000,1000000] [--queries 1000]
 *        [--dir DIR] [--keep] [--generate-only] [--lucene-jars /usr/share/java] [--release DIR]
 * The corpus and queries stay in DIR with --keep (and are reused by the next run).
 * Heavy at 1M documents (minutes of CPU, GBs of RAM): run under the shared lock,
 * `flock /tmp/coreb-heavy.lock nice -n 5 node dist/bench/search-bm25-scale.js`.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { loadBeir } from '../src/dataset/beir.js';
import { createRng } from '../src/core/random.js';
import { openIndexFileStore } from '../src/cache/index-file-store.js';
import { BM25_DEFAULTS, Bm25Index, createBm25Index, resolveBm25Options } from '../src/search/bm25.js';
import { bm25IndexKey, decodeBm25IndexDataAsync, encodeBm25IndexData } from '../src/search/bm25-store.js';
import { CODE_STOP_WORDS } from '../src/search/tokenize.js';
import { readBenchArgs } from './args.js';
import { corebCli } from './support/cli.js';

const args = readBenchArgs({
  script: 'search-bm25-scale',
  about: `coreb's BM25 index + search against Lucene 8 (BM25Similarity, same k1 and b, a comparable
analyzer), measured in the same run, on seeded corpora of up to 1,000,000 documents derived from the
CoREB release's code corpus, each side in its own process: CPU and wall seconds, MB of text per CPU
second, queries per CPU second, peak RSS; then coreb's on-disk index (hash, save, load). Heavy at
1M documents (minutes of CPU, GBs of RAM): run under flock /tmp/coreb-heavy.lock nice -n 5.`,
  options: [
    { name: 'sizes', value: 'LIST', help: 'corpus sizes in documents, comma-separated (default 100000,1000000)' },
    { name: 'queries', value: 'N', help: 'queries searched (default 1000)' },
    { name: 'dir', value: 'DIR', help: 'where the corpus and queries are written (default /tmp/coreb-bm25-scale)' },
    { name: 'keep', help: 'keep DIR (and reuse it on the next run); removed at the end otherwise' },
    { name: 'generate-only', help: 'write the corpus and queries, measure nothing' },
    { name: 'lucene-jars', value: 'DIR', help: 'directory of the Lucene 8 jars (default /usr/share/java)' },
    { name: 'release', value: 'DIR', help: 'the CoREB release the corpus is derived from (default ../shared/data/coreb/release_v2602)' },
    { name: 'child', value: ['BEIR_DIR', 'STORE_DIR'], help: "coreb's side for one size, in its own process", internal: true },
  ],
});
const option = (name: string): string | undefined => args.get(name);

const RELEASE = fileURLToPath(new URL('../../../shared/data/coreb/release_v2602', import.meta.url));
const DEPTH = 100;

type Row = Record<string, unknown>;
const jsonl = (file: string): Row[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row);

/** Streams `count` derived documents (JSONL `{"id","text"}`) to `file`. */
async function generateCorpus(release: string, file: string, count: number): Promise<void> {
  const code = jsonl(join(release, 'code_corpus.jsonl')).map((r) => String(r.code));
  const lines = code.flatMap((c) => c.split('\n'));
  const freq = new Map<string, number>();
  for (const c of code) for (const m of c.matchAll(/[A-Za-z_][A-Za-z0-9_]{2,}/g)) freq.set(m[0], (freq.get(m[0]) ?? 0) + 1);
  const idents = [...freq].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
  const next = createRng(20260201);
  const pick = (n: number) => next() % n;
  const out = createWriteStream(file);
  let chunk = '';
  for (let i = 0; i < count; i++) {
    const src = code[pick(code.length)].split('\n');
    for (let l = 0; l < src.length; l++) if (next() % 5 === 0) src[l] = lines[pick(lines.length)];
    let text = src.join('\n');
    const own = [...new Set(text.match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? [])];
    if (own.length > 0) {
      const rename = new Map<string, string>();
      for (let k = 0; k < 3; k++) {
        const from = own[pick(own.length)];
        const u = next() / 4294967296;
        const partner = idents[Math.floor(idents.length * u * u * u)];
        rename.set(from, from + partner.charAt(0).toUpperCase() + partner.slice(1));
      }
      const re = new RegExp(`\\b(${[...rename.keys()].join('|')})\\b`, 'g');
      text = text.replace(re, (w) => rename.get(w) ?? w);
    }
    chunk += `${JSON.stringify({ id: `d${i}`, text })}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = '';
    }
    if ((i + 1) % 100000 === 0) process.stderr.write(`generated ${i + 1} documents\n`);
  }
  out.write(chunk);
  await new Promise<void>((r) => out.end(() => r()));
}

/** Writes up to `count` release queries (statements and programs, interleaved) as JSONL. */
function generateQueries(release: string, file: string, count: number): void {
  const t2c = jsonl(join(release, 'text2code_queries.jsonl'));
  const c2c = jsonl(join(release, 'code2code_queries.jsonl'));
  const out: string[] = [];
  for (let i = 0; out.length < count && (i < t2c.length || i < c2c.length); i++) {
    if (i < t2c.length) out.push(JSON.stringify({ id: String(t2c[i].query_id), text: String(t2c[i].query) }));
    if (i < c2c.length && out.length < count) out.push(JSON.stringify({ id: String(c2c[i].query_id), text: String(c2c[i].query) }));
  }
  writeFileSync(file, `${out.join('\n')}\n`);
}

/**
 * Writes the first `count` documents of the bench corpus and the queries as a BEIR directory (`_id`
 * instead of `id`, every query judged against `d0`), which the coreb side loads as `coreb eval`
 * does ({@link loadBeir}); kept and reused when it exists.
 */
async function writeBeirPrefix(corpus: string, queriesFile: string, dir: string, count: number): Promise<void> {
  if (existsSync(join(dir, 'qrels', 'test.tsv'))) return;
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const out = createWriteStream(join(dir, 'corpus.jsonl'));
  let written = 0;
  let chunk = '';
  for await (const line of createInterface({ input: createReadStream(corpus), crlfDelay: Number.POSITIVE_INFINITY })) {
    if (written === count) break;
    chunk += `{"_id":${line.slice('{"id":'.length)}\n`;
    written++;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = '';
    }
  }
  out.write(chunk);
  await new Promise<void>((r) => out.end(() => r()));
  const queries = jsonl(queriesFile);
  writeFileSync(join(dir, 'queries.jsonl'), queries.map((q) => JSON.stringify({ _id: q.id, text: q.text })).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), `query-id\tcorpus-id\tscore\n${queries.map((q) => `${String(q.id)}\td0\t1`).join('\n')}\n`);
}

const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const rssMb = (): number => process.resourceUsage().maxRSS / 1024;

interface Measure {
  docs: number;
  mb: number;
  indexCpu: number;
  indexWall: number;
  searchCpu: number;
  searchWall: number;
  queries: number;
  loadRssMb: number;
  peakRssMb: number;
  terms: number;
  /** Lucene: forceMerge(1) after indexing (not part of indexCpu). */
  mergeCpu?: number;
  mergeWall?: number;
  /** coreb: the on-disk index, wall seconds of hashing the corpus, saving and loading, and its size. */
  stored?: { keyWall: number; saveWall: number; loadWall: number; fileMb: number };
}

/** The coreb side, in a child process: load, index, search; prints one JSON line. */
async function corebChild(beirDir: string, storeDir: string): Promise<void> {
  const beir = await loadBeir(beirDir);
  const bad = beir.issues.find((i) => i.severity === 'error');
  if (bad !== undefined) throw new Error(`${bad.file}:${bad.line ?? ''}: ${bad.message}`);
  const docs = beir.task.corpus;
  const queries = beir.task.queries;
  let bytes = 0;
  for (const d of docs) bytes += Buffer.byteLength(d.text);
  const loadRssMb = rssMb();
  let c0 = cpuSeconds();
  let w0 = performance.now();
  const index = createBm25Index(docs);
  const indexCpu = cpuSeconds() - c0;
  const indexWall = (performance.now() - w0) / 1000;
  c0 = cpuSeconds();
  w0 = performance.now();
  const lists = await index.search(queries, DEPTH);
  const searchCpu = cpuSeconds() - c0;
  const searchWall = (performance.now() - w0) / 1000;
  if (lists.size !== queries.length) throw new Error('coreb: a query has no list');
  const peakRssMb = rssMb();
  // The on-disk index (coreb eval --index-cache): key (corpus hash), encode + atomic write, read + decode.
  const options = resolveBm25Options();
  const store = openIndexFileStore(storeDir);
  w0 = performance.now();
  const key = await bm25IndexKey(docs, options);
  const keyWall = (performance.now() - w0) / 1000;
  w0 = performance.now();
  const file = await store.save(key, encodeBm25IndexData(index.data, key));
  const saveWall = (performance.now() - w0) / 1000;
  w0 = performance.now();
  const loaded = await Bm25Index.fromDataAsync(await decodeBm25IndexDataAsync((await store.load(key))?.bytes ?? new Uint8Array(0), key), options);
  const loadWall = (performance.now() - w0) / 1000;
  if (loaded.size !== index.size) throw new Error('coreb: the stored index lost documents');
  const stored = { keyWall, saveWall, loadWall, fileMb: statSync(file).size / 1e6 };
  rmSync(file);
  const m: Measure = {
    docs: docs.length,
    mb: bytes / 1e6,
    indexCpu,
    indexWall,
    searchCpu,
    searchWall,
    queries: queries.length,
    loadRssMb,
    peakRssMb,
    terms: index.vocabulary.size,
    stored,
  };
  process.stdout.write(`${JSON.stringify(m)}\n`);
}

const JAVA = (stops: readonly string[], k1: number, b: number, k3: number) => String.raw`
import java.io.*;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.core.FlattenGraphFilter;
import org.apache.lucene.analysis.en.EnglishMinimalStemFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterGraphFilter;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.util.CharTokenizer;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.search.*;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;

public class LuceneBm25Bench {
  static final String[] STOPS = {${stops.map((s) => `"${s}"`).join(',')}};
  static double cpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
  }
  static double peakRssMb() throws IOException {
    for (String l : Files.readAllLines(Paths.get("/proc/self/status"))) if (l.startsWith("VmHWM:")) return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024.0;
    return -1;
  }
  /** The value of a JSON string field (the bench writes flat objects of strings). */
  static String field(String line, String name) {
    int i = line.indexOf("\"" + name + "\":\"") + name.length() + 4;
    StringBuilder sb = new StringBuilder();
    for (;; i++) {
      char c = line.charAt(i);
      if (c == '"') return sb.toString();
      if (c != '\\') { sb.append(c); continue; }
      char e = line.charAt(++i);
      switch (e) {
        case 'n': sb.append('\n'); break;
        case 't': sb.append('\t'); break;
        case 'r': sb.append('\r'); break;
        case 'b': sb.append('\b'); break;
        case 'f': sb.append('\f'); break;
        case 'u': sb.append((char) Integer.parseInt(line.substring(i + 1, i + 5), 16)); i += 4; break;
        default: sb.append(e);
      }
    }
  }
  static Analyzer analyzer(boolean index) {
    CharArraySet stops = new CharArraySet(Arrays.asList(STOPS), false);
    return new Analyzer() {
      @Override protected TokenStreamComponents createComponents(String f) {
        Tokenizer src = CharTokenizer.fromTokenCharPredicate(c -> Character.isLetterOrDigit(c) || c == '_');
        int flags = WordDelimiterGraphFilter.GENERATE_WORD_PARTS | WordDelimiterGraphFilter.SPLIT_ON_CASE_CHANGE
            | WordDelimiterGraphFilter.SPLIT_ON_NUMERICS | WordDelimiterGraphFilter.CATENATE_ALL;
        TokenStream ts = new WordDelimiterGraphFilter(src, flags, null);
        if (index) ts = new FlattenGraphFilter(ts);
        ts = new LowerCaseFilter(ts);
        ts = new StopFilter(ts, stops);
        ts = new EnglishMinimalStemFilter(ts);
        return new TokenStreamComponents(src, ts);
      }
    };
  }
  public static void main(String[] a) throws Exception {
    String corpus = a[0], queries = a[1], dir = a[2];
    int limit = Integer.parseInt(a[3]);
    BM25Similarity sim = new BM25Similarity(${k1}f, ${b}f);
    double c0 = cpu();
    long w0 = System.nanoTime();
    long bytes = 0;
    int docs = 0;
    double indexCpu, indexWall;
    IndexWriterConfig cfg = new IndexWriterConfig(analyzer(true)).setSimilarity(sim).setRAMBufferSizeMB(256)
        .setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    try (IndexWriter w = new IndexWriter(FSDirectory.open(Paths.get(dir)), cfg);
         BufferedReader r = Files.newBufferedReader(Paths.get(corpus), StandardCharsets.UTF_8)) {
      for (String line; docs < limit && (line = r.readLine()) != null; docs++) {
        String text = field(line, "text");
        bytes += text.getBytes(StandardCharsets.UTF_8).length;
        Document d = new Document();
        d.add(new StoredField("id", field(line, "id")));
        d.add(new TextField("text", text, Field.Store.NO));
        w.addDocument(d);
      }
      w.commit();
      indexCpu = cpu() - c0;
      indexWall = (System.nanoTime() - w0) / 1e9;
      w.forceMerge(1);
      w.commit();
    }
    double mergeCpu = cpu() - c0 - indexCpu, mergeWall = (System.nanoTime() - w0) / 1e9 - indexWall;
    BooleanQuery.setMaxClauseCount(1 << 20);
    Analyzer qa = analyzer(false);
    List<String> qs = Files.readAllLines(Paths.get(queries), StandardCharsets.UTF_8);
    c0 = cpu();
    w0 = System.nanoTime();
    int nq = 0;
    long terms = 0;
    try (DirectoryReader reader = DirectoryReader.open(FSDirectory.open(Paths.get(dir)))) {
      Terms ts0 = MultiTerms.getTerms(reader, "text");
      terms = ts0 == null ? 0 : ts0.size();
      IndexSearcher s = new IndexSearcher(reader);
      s.setSimilarity(sim);
      for (String line : qs) {
        if (line.isEmpty()) continue;
        LinkedHashMap<String, Integer> tf = new LinkedHashMap<>();
        try (TokenStream ts = qa.tokenStream("text", field(line, "text"))) {
          CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
          ts.reset();
          while (ts.incrementToken()) tf.merge(t.toString(), 1, Integer::sum);
          ts.end();
        }
        BooleanQuery.Builder q = new BooleanQuery.Builder();
        for (Map.Entry<String, Integer> e : tf.entrySet()) {
          float qtf = e.getValue();
          q.add(new BoostQuery(new TermQuery(new Term("text", e.getKey())), qtf * (${k3}f + 1) / (${k3}f + qtf)), BooleanClause.Occur.SHOULD);
        }
        TopDocs top = s.search(q.build(), ${DEPTH});
        for (ScoreDoc sd : top.scoreDocs) s.doc(sd.doc).get("id");
        nq++;
      }
    }
    double searchCpu = cpu() - c0, searchWall = (System.nanoTime() - w0) / 1e9;
    System.out.println(String.format(Locale.ROOT,
        "{\"docs\":%d,\"mb\":%f,\"indexCpu\":%f,\"indexWall\":%f,\"mergeCpu\":%f,\"mergeWall\":%f,\"searchCpu\":%f,\"searchWall\":%f,\"queries\":%d,\"loadRssMb\":0,\"peakRssMb\":%f,\"terms\":%d}",
        docs, bytes / 1e6, indexCpu, indexWall, mergeCpu, mergeWall, searchCpu, searchWall, nq, peakRssMb(), terms));
  }
}
`;

/** Compiles the Lucene program; returns its classpath, or a reason it cannot run. */
function buildLucene(dir: string, jarsDir: string): { classpath: string } | { missing: string } {
  const jars = existsSync(jarsDir) ? readdirSync(jarsDir) : [];
  const core = jars.find((j) => /^lucene-core-8[.\d]*\.jar$/.test(j));
  const common = jars.find((j) => /^lucene-analyzers-common-8[.\d]*\.jar$/.test(j));
  if (core === undefined || common === undefined) {
    return {
      missing: `Lucene 8 jars not found in ${jarsDir} (need lucene-core-8.x and lucene-analyzers-common-8.x; Debian: apt-get install liblucene8-java)`,
    };
  }
  const javac = spawnSync('javac', ['-version'], { encoding: 'utf8' });
  if (javac.error !== undefined || javac.status !== 0) return { missing: 'javac not found (Debian: apt-get install default-jdk-headless)' };
  const cp = [join(jarsDir, core), join(jarsDir, common)].join(':');
  const src = join(dir, 'LuceneBm25Bench.java');
  writeFileSync(src, JAVA(CODE_STOP_WORDS, BM25_DEFAULTS.k1, BM25_DEFAULTS.b, BM25_DEFAULTS.k3));
  const r = spawnSync('javac', ['-nowarn', '-cp', cp, '-d', dir, src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`javac failed:\n${r.stderr}`);
  return { classpath: `${cp}:${dir}` };
}

/** `coreb ARGS` under /usr/bin/time: whole-process CPU and wall seconds and peak RSS, or undefined without /usr/bin/time. */
function timeCli(cliArgs: string[]): { cpuS: number; wallS: number; peakRssMb: number } | undefined {
  if (!existsSync('/usr/bin/time')) return undefined;
  const main = corebCli;
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S %M', process.execPath, main, ...cliArgs], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`coreb ${cliArgs.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}`);
  const m = /TIME (\S+) (\S+) (\S+) (\d+)/.exec(r.stderr);
  if (m === null) throw new Error(`no /usr/bin/time line in: ${r.stderr}`);
  return { wallS: Number(m[1]), cpuS: Number(m[2]) + Number(m[3]), peakRssMb: Number(m[4]) / 1024 };
}

function runChild(cmd: string, args: string[]): Measure {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as Measure;
}

async function main(): Promise<void> {
  const sizes = (option('sizes') ?? '100000,1000000').split(',').map(Number);
  const nq = Number(option('queries') ?? 1000);
  const dir = option('dir') ?? '/tmp/coreb-bm25-scale';
  const jarsDir = option('lucene-jars') ?? '/usr/share/java';
  const release = option('release') ?? RELEASE;
  if (!existsSync(join(release, 'code_corpus.jsonl'))) {
    throw new Error(`CoREB release not found at ${release} (give --release DIR with code_corpus.jsonl)`);
  }
  mkdirSync(dir, { recursive: true });
  const max = Math.max(...sizes);
  const corpus = join(dir, `corpus-${max}.jsonl`);
  const queries = join(dir, `queries-${nq}.jsonl`);
  if (!existsSync(corpus)) await generateCorpus(release, `${corpus}.tmp`, max).then(() => spawnSync('mv', [`${corpus}.tmp`, corpus]));
  if (!existsSync(queries)) generateQueries(release, queries, nq);
  if (args.has('generate-only')) return;
  const lucene = buildLucene(dir, jarsDir);
  process.stdout.write(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at start; corpus ${corpus} (${(statSync(corpus).size / 1e9).toFixed(2)} GB for ${max} docs)\n`,
  );
  if ('missing' in lucene) process.stdout.write(`LUCENE NOT RUN: ${lucene.missing}. Only coreb is measured, no ratio is printed.\n`);
  const self = fileURLToPath(import.meta.url);
  const rows: Array<{ n: number; coreb: Measure; lucene?: Measure }> = [];
  const fmt = (name: string, m: Measure) =>
    `  ${name.padEnd(6)} index ${m.indexCpu.toFixed(1)} s CPU / ${m.indexWall.toFixed(1)} s wall (${(m.mb / m.indexCpu).toFixed(1)} MB per CPU s), ` +
    `search ${m.queries} queries ${m.searchCpu.toFixed(2)} s CPU / ${m.searchWall.toFixed(2)} s wall (${(m.queries / m.searchCpu).toFixed(0)} queries per CPU s), peak RSS ${m.peakRssMb.toFixed(0)} MB` +
    (m.loadRssMb > 0 ? ` (${m.loadRssMb.toFixed(0)} MB after loading the corpus), ${m.terms} terms` : '');
  // Search timing note: coreb scores every posting of the query terms (exhaustive term-at-a-time);
  // Lucene 8 skips with block-max WAND once 1,000 hits are counted.
  for (const n of sizes) {
    // Each side's line is printed as soon as it is measured (Lucene at 1M takes long).
    const beir = join(dir, `beir-${n}`);
    await writeBeirPrefix(corpus, queries, beir, n);
    const coreb = runChild(process.execPath, [self, '--child', beir, join(dir, 'index-store')]);
    let out = `${n} documents, ${coreb.mb.toFixed(0)} MB of text:\n${fmt('coreb', coreb)}\n`;
    const st = coreb.stored;
    if (st !== undefined) {
      out += `  coreb on-disk index (--index-cache): ${st.fileMb.toFixed(0)} MB file; corpus hash ${st.keyWall.toFixed(1)} s, save ${st.saveWall.toFixed(1)} s, load ${st.loadWall.toFixed(1)} s wall (vs index ${coreb.indexWall.toFixed(1)} s wall)\n`;
    }
    // What a user runs: the coreb CLI's eval of BM25 on the directory (the leaderboard printed, no
    // files written), whole process, CPU and peak RSS from /usr/bin/time.
    const cli = timeCli(['eval', '--data', beir, '--retriever', 'bm25', '--quiet']);
    if (cli !== undefined)
      out += `  coreb eval --retriever bm25 (the CLI, whole process): ${cli.cpuS.toFixed(1)} s CPU, ${cli.wallS.toFixed(1)} s wall, peak RSS ${cli.peakRssMb.toFixed(0)} MB\n`;
    process.stdout.write(out);
    let luc: Measure | undefined;
    if (!('missing' in lucene)) {
      const indexDir = join(dir, `lucene-${n}`);
      rmSync(indexDir, { recursive: true, force: true });
      luc = runChild('java', ['-cp', lucene.classpath, 'LuceneBm25Bench', corpus, queries, indexDir, String(n)]);
      rmSync(indexDir, { recursive: true, force: true });
      process.stdout.write(
        `${fmt('lucene', luc)}, ${luc.terms} terms; then forceMerge(1) ${luc.mergeCpu?.toFixed(1)} s CPU (not counted above)\n` +
          `  ratios coreb/lucene: index CPU ${(coreb.indexCpu / luc.indexCpu).toFixed(2)}, search CPU ${(coreb.searchCpu / luc.searchCpu).toFixed(2)}, peak RSS ${(coreb.peakRssMb / luc.peakRssMb).toFixed(2)}\n`,
      );
    }
    rows.push({ n, coreb, lucene: luc });
  }
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    const per = (x: number, y: number) => ((y - x) / ((b.n - a.n) / 1e5)).toFixed(2);
    let line = `slope ${a.n} -> ${b.n}: coreb index ${per(a.coreb.indexCpu, b.coreb.indexCpu)} s CPU per 100k docs (x${(b.coreb.indexCpu / a.coreb.indexCpu).toFixed(1)} for x${(b.n / a.n).toFixed(0)} docs), peak RSS +${per(a.coreb.peakRssMb, b.coreb.peakRssMb)} MB per 100k`;
    if (a.lucene !== undefined && b.lucene !== undefined) {
      line += `; lucene index ${per(a.lucene.indexCpu, b.lucene.indexCpu)} s CPU per 100k (x${(b.lucene.indexCpu / a.lucene.indexCpu).toFixed(1)}), peak RSS +${per(a.lucene.peakRssMb, b.lucene.peakRssMb)} MB per 100k`;
    }
    process.stdout.write(`${line}\n`);
  }
  process.stdout.write(
    `load average at end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}\n`,
  );
  if (!args.has('keep')) rmSync(dir, { recursive: true, force: true });
}

const childArgs = args.values('child');
if (childArgs !== undefined) await corebChild(childArgs[0], childArgs[1]);
else await main();
