#!/usr/bin/env node
// The layer rule of DESIGN.md ("The rooms", "House rules"), enforced: imports in src/ point down only.
//   (the layer map is the one DESIGN.md draws; see readLayerMap)
// Siblings of one layer meet through core types and may not import each other. Across areas an
// import names the file, never the area barrel (<area>/index.ts is for src/index.ts and src/api/ alone). Outside src/cli,
// nothing reads process.argv or process.env. Only tests (*.test.ts) may import from outside src/
// (test/support helpers): the package ships src alone. No import cycle among the modules of src/
// (tests aside; `import type` counts: a circle through a type is still a circle, broken with a
// leaf type module). core/ and metrics/ are pure: no `node:` import outside the files PURE_EXCEPTIONS
// lists with the reason. Exits 1 listing every violation.
//   node scripts/check-layers.mjs [SRC_DIR] [--design DESIGN.md]
// The layer map is read from DESIGN.md ("The rooms": `layer N  room/ room/ ...`); functions in the rooms
// FUNCTION_LINES lists stay within their limit.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const designAt = argv.indexOf('--design');
const designFile = designAt >= 0 ? resolve(argv[designAt + 1]) : join(root, 'DESIGN.md');
const src = resolve(argv.filter((_, i) => designAt < 0 || (i !== designAt && i !== designAt + 1))[0] ?? join(root, 'src'));

/**
 * The layer of each room, read from DESIGN.md's "The rooms" block (`layer N  core/ ...`: the rooms
 * of a layer are the words ending in `/`, and `index.ts`, before the first other word), so the page
 * and the check cannot drift. `api/` is src/api/*.ts (the public API's namespaces), `index.ts` is
 * src/index.ts (key '').
 */
function readLayerMap(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    console.error(`check-layers: cannot read the layer map: ${file}: ${e.message}`);
    process.exit(1);
  }
  const layers = {};
  for (const [i, line] of text.split('\n').entries()) {
    const m = /^layer (\d+)\s+(.*)$/.exec(line);
    if (m === null) continue;
    const rooms = [];
    for (const word of m[2].split(/\s+/)) {
      if (word === 'index.ts') rooms.push('');
      else if (/^[a-z][a-z0-9-]*\/$/.test(word)) rooms.push(word.slice(0, -1));
      else break;
    }
    if (rooms.length === 0) {
      console.error(`check-layers: ${file}:${i + 1}: a \`layer N\` line names no room (rooms end in /, or index.ts): ${line}`);
      process.exit(1);
    }
    for (const room of rooms) layers[room] = Number(m[1]);
  }
  if (Object.keys(layers).length === 0) {
    console.error(`check-layers: ${file} has no layer map (lines \`layer N  room/ room/ ...\` under "The rooms")`);
    process.exit(1);
  }
  return layers;
}

const LAYER = readLayerMap(designFile);

/** Longest function, in lines (its first line to its closing brace), in the rooms listed: composition reads as its steps. */
const FUNCTION_LINES = { eval: 150 };

/** The layers that hold no I/O: shapes, kernels and measures. */
const PURE = new Set(['core', 'metrics']);
/** The few files of a pure layer that may import `node:` modules, and why. */
const PURE_EXCEPTIONS = {
  'core/package-files.ts':
    "node:fs / node:path / node:url: the package's own files found from the module's place, in dist/src/ and in the bundle alike",
  'core/memory.ts': 'node:v8 / node:vm: the heap statistics and the GC trigger the big runs use',
  'core/request-guard.ts': 'node:crypto: constant-time token comparison for the loopback servers',
  'core/version.ts': "node:fs: coreb's own version, read once from its package.json",
};

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
  if (!isTest && from in FUNCTION_LINES) problems.push(...longFunctions(file, lines, from));
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

/**
 * Functions longer than their room's limit. A function's lines run from its declaration (`function`
 * or an arrow function assigned to a `const`) to the first line at its indentation that closes it
 * (the formatter's layout).
 */
function longFunctions(file, lines, room) {
  const out = [];
  const limit = FUNCTION_LINES[room];
  lines.forEach((line, i) => {
    const m =
      /^(\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+([\w$]+)/.exec(line) ??
      /^(\s*)(?:export\s+)?const\s+([\w$]+)\s*=\s*(?:async\s+)?(?:\(.*\)|[\w$]+)(?:\s*:\s*[^=]+)?\s*=>\s*\{$/.exec(line);
    if (m === null) return;
    for (let j = i + 1; j < lines.length; j++) {
      if (lines[j] !== `${m[1]}}` && lines[j] !== `${m[1]}};`) continue;
      if (j - i + 1 > limit)
        out.push(
          `${relative(src, file)}:${i + 1}: \`${m[2]}\` is ${j - i + 1} lines; functions in \`${room}\` stay within ${limit}: name its steps as module functions`,
        );
      break;
    }
  });
  return out;
}

if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} violation(s) of the rules in DESIGN.md:\n` + problems.map((p) => '  ' + p).join('\n'));
  process.exit(1);
}
console.log(`check-layers: ok (${src})`);
