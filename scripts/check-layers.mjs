#!/usr/bin/env node
// The layer rule of DESIGN.md ("The rooms", "House rules"), enforced: imports in src/ point down only.
//   core <- {dataset, metrics, search, providers, cache, sandbox, tensors} <- {eval, construct, report, train} <- cli
// Siblings of one layer meet through core types and may not import each other. Across areas an
// import names the file, never the area barrel (<area>/index.ts is for src/index.ts and src/api/ alone). Outside src/cli,
// nothing reads process.argv or process.env. Only tests (*.test.ts) may import from outside src/
// (test/support helpers): the package ships src alone. No import cycle among the modules of src/
// (tests aside; `import type` counts: a circle through a type is still a circle, broken with a
// leaf type module). core/ and metrics/ are pure: no `node:` import outside the files PURE_EXCEPTIONS
// lists with the reason. Exits 1 listing every violation.
//   node scripts/check-layers.mjs [SRC_DIR]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const LAYER = {
  core: 0,
  dataset: 1,
  metrics: 1,
  search: 1,
  providers: 1,
  cache: 1,
  sandbox: 1,
  tensors: 1,
  eval: 2,
  construct: 2,
  report: 2,
  train: 2,
  cli: 3,
  api: 4, // src/api/*.ts: the public API's namespaces, re-exported by src/index.ts
  '': 5, // src/index.ts
};

/** The layers that hold no I/O: shapes, kernels and measures. */
const PURE = new Set(['core', 'metrics']);
/** The few files of a pure layer that may import `node:` modules, and why. */
const PURE_EXCEPTIONS = {
  'core/memory.ts': 'node:v8 / node:vm: the heap statistics and the GC trigger the big runs use',
  'core/request-guard.ts': 'node:crypto: constant-time token comparison for the loopback servers',
  'core/version.ts': "node:fs: coreb's own version, read once from its package.json",
};

const src = resolve(process.argv[2] ?? join(fileURLToPath(new URL('..', import.meta.url)), 'src'));

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function areaOf(file) {
  const rel = relative(src, file).split(sep);
  return rel.length === 1 ? '' : rel[0];
}

const problems = [];
/** module -> the modules of src/ it imports (tests left out), for the cycle rule. */
const graph = new Map();
for (const file of walk(src, [])) {
  const from = areaOf(file);
  if (!(from in LAYER)) {
    problems.push(`${relative(src, file)}: folder \`${from}\` is not a known layer (${Object.keys(LAYER).filter(Boolean).join(', ')})`);
    continue;
  }
  const isTest = file.endsWith('.test.ts');
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const edges = new Set();
  if (!isTest) graph.set(file, edges);
  lines.forEach((line, i) => {
    const where = `${relative(src, file)}:${i + 1}`;
    if (PURE.has(from) && !isTest && !(relative(src, file).split(sep).join('/') in PURE_EXCEPTIONS)) {
      for (const m of line.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](node:[^'"]+)['"]/g)) {
        problems.push(
          `${where}: \`${from}\` is pure (shapes, kernels, measures) but imports ${m[1]}; do the I/O a layer up, or list the file in PURE_EXCEPTIONS with why`,
        );
      }
    }
    for (const m of line.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = resolve(dirname(file), m[1]);
      if (!isTest) edges.add(target.replace(/\.js$/, '.ts'));
      const outside = relative(src, target);
      if (outside.startsWith('..') || isAbsolute(outside)) {
        if (!isTest)
          problems.push(
            `${where}: \`${from || 'index.ts'}\` imports ${m[1]}, outside src/; only tests may (move shared code into src/, test helpers stay in test/support)`,
          );
        continue;
      }
      const to = areaOf(target);
      if (to === from || !(to in LAYER)) continue;
      // One import rule: across areas, name the file. The area barrels (core/index.ts, …) are the
      // public API's building blocks for src/index.ts alone; importing them elsewhere loads a whole
      // area where one file was needed (slower start-up for small runs) and hides where a name lives.
      if (from !== '' && from !== 'api' && relative(src, target) === join(to, 'index.js')) {
        problems.push(`${where}: \`${from}\` imports the barrel of \`${to}\` (${m[1]}); across areas import the file that defines the name`);
      }
      if (LAYER[to] >= LAYER[from]) {
        const kind = LAYER[to] === LAYER[from] ? 'a sibling layer' : 'a higher layer';
        problems.push(
          `${where}: \`${from || 'index.ts'}\` imports ${kind} \`${to}\` (${m[1]}); imports must point down to ${
            Object.keys(LAYER)
              .filter((k) => LAYER[k] < LAYER[from])
              .join(', ') || 'nothing'
          }`,
        );
      }
    }
    if (from !== 'cli' && !isTest && /process\.(argv|env)\b/.test(line) && !/^\s*(\/\/|\*)/.test(line)) {
      problems.push(`${where}: \`${from || 'index.ts'}\` reads process.argv/env; only src/cli may (pass values in as options)`);
    }
  });
}

// Import cycles: strongly connected components of the module graph (Tarjan), each named with one
// circle through it.
{
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v)?.has(v) ?? false)) components.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  for (const component of components) {
    const members = new Set(component);
    // One circle: from the first module, follow imports inside the component back to it.
    const start = [...members].sort()[0];
    const path = [start];
    const seen = new Set([start]);
    let at = start;
    for (;;) {
      const next = [...(graph.get(at) ?? [])].filter((w) => members.has(w)).sort();
      const back = next.find((w) => w === start);
      if (back !== undefined) break;
      const step = next.find((w) => !seen.has(w)) ?? next[0];
      if (step === undefined || seen.has(step)) break;
      path.push(step);
      seen.add(step);
      at = step;
    }
    const rel = (f) => relative(src, f);
    problems.push(
      `import cycle (${component.length} modules): ${[...path, start].map(rel).join(' -> ')}; move the shared shape into a leaf module both import`,
    );
  }
}

if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} violation(s) of the rules in DESIGN.md:\n` + problems.map((p) => '  ' + p).join('\n'));
  process.exit(1);
}
console.log(`check-layers: ok (${src})`);
