/**
 * The public API as a user gets it: `import ... from 'coreb'` resolves through package.json's
 * `exports` to the built entry. The entry points the CLI's users need are there; internals are not.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Program, ProgramResult, TestCase, Verdict } from 'coreb';
import { projectRoot } from '../test/support/shared.js';

const api: Record<string, unknown> = await import('coreb');

test("'coreb' resolves to the package's built entry (package.json main and exports)", () => {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { main: string; exports: { '.': { import: string } } };
  const entry = fileURLToPath(import.meta.resolve('coreb'));
  assert.equal(entry, join(projectRoot, pkg.exports['.'].import));
  assert.equal(entry, join(projectRoot, pkg.main));
});

/** The value at a dotted path of the API (`metrics.parseMeasures`), or undefined. */
function lookup(path: string): unknown {
  let value: unknown = api;
  for (const part of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

/** The namespaces of the API: every top-level export that is a module namespace object. */
const namespaces = Object.keys(api).filter((n) => Object.prototype.toString.call(api[n]) === '[object Module]');

test('the key entry points are exported: the verbs at the top, the rest in their namespaces', () => {
  const functions = [
    // datasets
    'loadRelease',
    'validateRelease',
    'dataset.releaseTasks',
    'dataset.releaseStats',
    'dataset.saveRelease',
    'loadBeir',
    'loadTrecRunMap',
    'loadTrecQrelsMap',
    'dataset.parseTrecRun',
    'dataset.parseTrecQrels',
    'dataset.saveTrecRun',
    'dataset.saveTrecQrels',
    'dataset.readJsonl',
    'dataset.writeJsonl',
    'dataset.loadLcbProblems',
    'dataset.loadCandidates',
    'dataset.loadEmbeddingsFile',
    // metrics
    'evaluate',
    'metrics.parseMeasures',
    'metrics.renderTrec',
    'metrics.measurePreset',
    // retrieval, providers, cache
    'createBm25Retriever',
    'createDenseRetriever',
    'search.createRrfRetriever',
    'createEmbedder',
    'evaluation.createDenseEmbedder',
    'providers.parseEmbedderSpec',
    'cache.openEmbeddingStore',
    'cache.createCachedEmbedder',
    // judge
    'judge.createLocalJudge',
    'runJudging',
    'judge.compareOutput',
    // evaluation and reports
    'runEval',
    'evaluation.parseRetrieverSpec',
    'createRetriever',
    'evaluation.resolveProtocol',
    'renderResults',
    'report.loadEvalResults',
    'compareResults',
    // construction, errors
    'build.createText2CodeQrels',
    'isCorebError',
  ];
  for (const name of functions) assert.equal(typeof lookup(name), 'function', `${name} is exported as a function`);
  assert.equal(typeof api.CorebError, 'function');
  assert.ok(new (api.CorebError as new (code: string, message: string) => Error)('USAGE', 'x') instanceof Error);
  for (const name of [
    'providers.PROVIDERS',
    'providers.MODEL_PRESETS',
    'core.TASKS',
    'core.LANGUAGES',
    'judge.VERDICTS',
    'evaluation.PROTOCOLS',
    'core.EXIT_CODES',
    'search.BM25_DEFAULTS',
  ]) {
    const value = lookup(name);
    assert.ok(value !== undefined && typeof value === 'object', `${name} is exported`);
  }
  assert.ok((lookup('judge.VERDICTS') as readonly Verdict[]).includes('memory_limit'));
});

test('the top holds about 20 verbs; each namespace is an area of the API', () => {
  const topFunctions = Object.keys(api).filter((n) => typeof api[n] === 'function');
  assert.ok(topFunctions.length >= 15 && topFunctions.length <= 25, `${topFunctions.length} functions at the top: ${topFunctions.join(', ')}`);
  assert.deepEqual(namespaces.sort(), [
    'audit',
    'build',
    'cache',
    'core',
    'dataset',
    'evaluation',
    'judge',
    'metrics',
    'providers',
    'report',
    'search',
    'tensors',
    'train',
  ]);
  // A verb at the top is the same function as in its namespace.
  assert.equal(lookup('metrics.evaluate'), api.evaluate);
  assert.equal(lookup('evaluation.runEval'), api.runEval);
});

test('the judge types are part of the API (compile-time check)', () => {
  const program: Program = { id: 'p', problemId: 'q', language: 'python', code: 'print(1)' };
  const tests: TestCase[] = [{ kind: 'stdin', input: '', outputs: ['1'] }];
  const verdict: Verdict = 'accepted';
  const result: Pick<ProgramResult, 'id' | 'verdict'> = { id: program.id, verdict };
  assert.equal(result.verdict, 'accepted');
  assert.equal(tests.length, 1);
});

test('internals are not exported', () => {
  const internals = [
    // parsing and I/O helpers
    'parseStrtod',
    'IdTable',
    'Interner',
    'codePointRanks',
    'RowChecker',
    'coerceValue',
    'camelCase',
    'parseJsonLenient',
    'firstCrlfLine',
    'parsePickle',
    'parsePythonLiteral',
    'decodeTextFile',
    'splitLines',
    'saveAtomic',
    'saveLinesAtomic',
    // search and metrics internals
    'bm25Idf',
    'bm25TermWeight',
    'TopK',
    'createTieRanks',
    'glibcLog2',
    'discountTable',
    'defaultDenseKernel',
    'sStem',
    // sandbox internals
    'createBwrapArgs',
    'createCommandLine',
    'runProcess',
    'RUN_HELPER_SOURCE',
    'buildRunHelper',
    'buildPch',
    'createSlotPool',
    'prepareSource',
    // HTTP client internals
    'createHttpClient',
    'planBatches',
    'backoffMs',
    'parseRetryAfterMs',
    'redact',
    // eval and report internals
    'slugify',
    'trecRunLines',
    'rankTrec',
    'aggregateQueries',
    'roundHalfEven',
    'logGamma',
    'regularizedBeta',
    'createRng',
    // the coreb-mini planner and test helpers
    'planMiniRelease',
    'renderWireRow',
    'writeTinyModel',
    'startLoopbackServer',
  ];
  const leaked = internals.flatMap((name) => [
    ...(name in api ? [name] : []),
    ...namespaces.filter((ns) => name in (api[ns] as object)).map((ns) => `${ns}.${name}`),
  ]);
  assert.deepEqual(leaked, [], `internal names exported from 'coreb': ${leaked.join(', ')}`);
});

test('src/index.ts and src/api/ list their exports by name (no export * but the namespaces)', () => {
  const source = readFileSync(join(projectRoot, 'src', 'index.ts'), 'utf8');
  assert.doesNotMatch(source, /export\s+(type\s+)?\*(?!\s+as\s+\w+\s+from\s+'\.\/api\/)/, 'src/index.ts re-exports a whole module');
  for (const ns of namespaces) {
    const file = join(projectRoot, 'src', 'api', `${ns}.ts`);
    assert.doesNotMatch(readFileSync(file, 'utf8'), /export\s+(type\s+)?\*/, `src/api/${ns}.ts re-exports a whole module`);
  }
});

/**
 * The public API as a list: every name `import ... from 'coreb'` offers, with its kind, read from the
 * built declarations by the TypeScript compiler. A change to the API is a visible decision: this
 * test fails with the names added and removed until `test/public-api.txt` is regenerated
 * (`COREB_UPDATE_API=1 node --test dist/src/index.test.js`) and committed with the change.
 */
test('the public API matches its snapshot (test/public-api.txt)', async () => {
  const ts = (await import('typescript')).default;
  const entry = join(projectRoot, 'dist', 'src', 'index.d.ts');
  // Export names and kinds need the declarations only: no default lib, no @types (half a second less).
  const program = ts.createProgram([entry], { noResolve: false, skipLibCheck: true, noLib: true, types: [] });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!);
  assert.ok(moduleSymbol !== undefined, 'dist/src/index.d.ts has no module symbol');
  const kindOf = (s: import('typescript').Symbol): string => {
    const d = s.declarations?.[0];
    if (d !== undefined && ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) return 'type-only';
    const t = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    const f = t.flags;
    if (f & ts.SymbolFlags.Class) return 'class';
    if (f & ts.SymbolFlags.Function) return 'function';
    if (f & ts.SymbolFlags.Variable) return 'const';
    if (f & ts.SymbolFlags.Enum) return 'enum';
    if (f & ts.SymbolFlags.Interface) return 'interface';
    if (f & ts.SymbolFlags.TypeAlias) return 'type';
    if (f & ts.SymbolFlags.Module) return 'namespace';
    return 'other';
  };
  const list = (module: import('typescript').Symbol, prefix: string): string[] =>
    checker.getExportsOfModule(module).flatMap((s) => {
      const kind = kindOf(s);
      const line = `${prefix}${s.name} ${kind}`;
      return kind === 'namespace' ? [line, ...list(checker.getAliasedSymbol(s), `${prefix}${s.name}.`)] : [line];
    });
  const lines = list(moduleSymbol, '').sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const file = join(projectRoot, 'test', 'public-api.txt');
  const now = `${lines.join('\n')}\n`;
  if (process.env.COREB_UPDATE_API === '1') writeFileSync(file, now);
  const before = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const added = lines.filter((l) => !before.includes(l));
  const removed = before.filter((l) => !lines.includes(l));
  assert.deepEqual(
    { added, removed },
    { added: [], removed: [] },
    `the public API changed: regenerate test/public-api.txt with COREB_UPDATE_API=1 if that is intended`,
  );
  // Every runtime export is in the list, and the list has no runtime name the module lacks.
  const values = lines.filter((l) => !/ (interface|type|type-only)$/.test(l)).map((l) => l.split(' ')[0]!);
  assert.deepEqual(
    values.filter((n) => lookup(n) === undefined),
    [],
  );
  const runtime = Object.keys(api).flatMap((n) => (namespaces.includes(n) ? [n, ...Object.keys(api[n] as object).map((m) => `${n}.${m}`)] : [n]));
  assert.deepEqual(
    runtime.filter((n) => !values.includes(n)),
    [],
  );
});
