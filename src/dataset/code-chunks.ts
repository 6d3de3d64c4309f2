/**
 * Source files cut into retrievable chunks the way code-search tools cut them: functions, methods and
 * classes found by tree-sitter (the grammars VS Code ships as WebAssembly in @vscode/tree-sitter-wasm,
 * loaded only when a file of that language is chunked), with line windows for the code between
 * definitions and for files of languages without a grammar. Each chunk knows its path, 1-based line
 * range, symbol and language, so a repository benchmark can judge chunks against what a commit changed.
 */
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { CorebError } from '../core/errors.js';

/** One chunk of a source file. */
export interface CodeChunk {
  /** Path of the file, as given. */
  path: string;
  /** Language of the file (`python`, `javascript`, `typescript`, `tsx`, `go`, `java`, `cpp`, `c`, `ruby`, `rust`, `csharp`, `php`, or the extension). */
  language: string;
  /** `function`, `method`, `class` (a class's lines outside its methods, or the whole class without methods) or `window`. */
  kind: 'function' | 'method' | 'class' | 'window';
  /** `name`, `Class.method` (Go: `Receiver.method`); '' for windows. */
  symbol: string;
  /** First line, 1-based. */
  startLine: number;
  /** Last line, 1-based, inclusive. */
  endLine: number;
  /** The chunk's lines. */
  text: string;
}

/** How a language is parsed: its grammar file and the node types that make chunks. */
interface GrammarRule {
  /** `tree-sitter-<grammar>.wasm` in @vscode/tree-sitter-wasm. */
  grammar: string;
  functions: readonly string[];
  classes: readonly string[];
}

/** Languages with a grammar, and what is a function and a class in each. */
export const CHUNK_GRAMMARS: Readonly<Record<string, GrammarRule>> = {
  python: { grammar: 'python', functions: ['function_definition'], classes: ['class_definition'] },
  javascript: {
    grammar: 'javascript',
    functions: ['function_declaration', 'generator_function_declaration', 'method_definition'],
    classes: ['class_declaration'],
  },
  typescript: {
    grammar: 'typescript',
    functions: ['function_declaration', 'generator_function_declaration', 'method_definition', 'function_signature'],
    classes: ['class_declaration', 'abstract_class_declaration', 'interface_declaration'],
  },
  tsx: {
    grammar: 'tsx',
    functions: ['function_declaration', 'generator_function_declaration', 'method_definition'],
    classes: ['class_declaration', 'abstract_class_declaration', 'interface_declaration'],
  },
  go: { grammar: 'go', functions: ['function_declaration', 'method_declaration'], classes: ['type_declaration'] },
  java: {
    grammar: 'java',
    functions: ['method_declaration', 'constructor_declaration'],
    classes: ['class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration'],
  },
  cpp: { grammar: 'cpp', functions: ['function_definition'], classes: ['class_specifier', 'struct_specifier'] },
  // No C grammar ships with the package; C parses well enough as C++ for function boundaries.
  c: { grammar: 'cpp', functions: ['function_definition'], classes: ['struct_specifier'] },
  ruby: { grammar: 'ruby', functions: ['method', 'singleton_method'], classes: ['class', 'module'] },
  rust: { grammar: 'rust', functions: ['function_item'], classes: ['impl_item', 'struct_item', 'enum_item', 'trait_item'] },
  csharp: {
    grammar: 'c-sharp',
    functions: ['method_declaration', 'constructor_declaration'],
    classes: ['class_declaration', 'interface_declaration', 'struct_declaration', 'record_declaration'],
  },
  php: {
    grammar: 'php',
    functions: ['function_definition', 'method_declaration'],
    classes: ['class_declaration', 'interface_declaration', 'trait_declaration'],
  },
};

/** File extension -> language (grammar languages and a few window-only ones). */
export const CHUNK_EXTENSIONS: Readonly<Record<string, string>> = {
  '.py': 'python',
  '.pyi': 'python',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.go': 'go',
  '.java': 'java',
  '.c': 'c',
  '.h': 'cpp',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.hh': 'cpp',
  '.hpp': 'cpp',
  '.hxx': 'cpp',
  '.rb': 'ruby',
  '.rs': 'rust',
  '.cs': 'csharp',
  '.php': 'php',
  '.kt': 'kotlin',
  '.scala': 'scala',
  '.swift': 'swift',
  '.sh': 'shell',
  '.lua': 'lua',
  '.pl': 'perl',
  '.r': 'r',
  '.m': 'objc',
};

/** The language of a path by its extension (lower-cased), or undefined for files that are not code. */
export function languageOfPath(path: string): string | undefined {
  return CHUNK_EXTENSIONS[extname(path).toLowerCase()];
}

/** Options of {@link CodeChunker.chunk}. */
export interface ChunkOptions {
  /** Lines per window (code between definitions, files without a grammar). Default 50. */
  windowLines?: number;
  /** A function longer than this many lines is cut into windows of `windowLines` (keeping its symbol). Default 300. */
  maxChunkLines?: number;
}

/** Defaults of {@link ChunkOptions}. */
export const CHUNK_DEFAULTS = { windowLines: 50, maxChunkLines: 300 } as const;

/** A chunker with its grammars loaded on demand. */
export interface CodeChunker {
  /** Cuts one file into chunks (in line order; every non-blank line is in exactly one chunk). */
  chunk(path: string, text: string, options?: ChunkOptions): Promise<CodeChunk[]>;
  /** Languages whose grammar has been loaded so far. */
  loaded(): string[];
}

/** The subset of web-tree-sitter's API used here. */
interface TsNode {
  type: string;
  startPosition: { row: number };
  endPosition: { row: number };
  namedChildren: (TsNode | null)[];
  childForFieldName(name: string): TsNode | null;
  text: string;
}
interface TsParser {
  setLanguage(l: unknown): void;
  parse(text: string): { rootNode: TsNode; delete(): void } | null;
}
interface TreeSitterModule {
  Parser: { init(): Promise<void>; new (): TsParser };
  Language: { load(path: string): Promise<unknown> };
}

let runtime: Promise<{ ts: TreeSitterModule; dir: string }> | undefined;

/** Loads the tree-sitter runtime of @vscode/tree-sitter-wasm once per process. */
function loadRuntime(): Promise<{ ts: TreeSitterModule; dir: string }> {
  runtime ??= (async () => {
    const require = createRequire(import.meta.url);
    let main: string;
    try {
      main = require.resolve('@vscode/tree-sitter-wasm');
    } catch (e) {
      throw new CorebError('TOOLCHAIN', 'code chunking needs the npm package @vscode/tree-sitter-wasm (npm install @vscode/tree-sitter-wasm)', {
        cause: e,
      });
    }
    const ts = require(main) as TreeSitterModule;
    await ts.Parser.init();
    return { ts, dir: dirname(main) };
  })();
  return runtime;
}

/** The name of a definition node: its `name` field, else its first identifier-like child. */
function nameOf(node: TsNode): string {
  const named = node.childForFieldName('name') ?? node.childForFieldName('declarator');
  if (named !== null) {
    // C++ declarators nest (`pointer_declarator` > `function_declarator` > `identifier`).
    let n: TsNode | null = named;
    for (let i = 0; i < 4 && n !== null && /declarator$/.test(n.type); i++) n = n.childForFieldName('declarator') ?? n.childForFieldName('name');
    if (n !== null) return n.text.split('(')[0].trim().slice(0, 200);
  }
  if (node.type === 'type_declaration') {
    const spec = node.namedChildren.find((c) => c !== null && c.type === 'type_spec');
    return spec?.childForFieldName('name')?.text ?? '';
  }
  if (node.type === 'impl_item') return node.childForFieldName('type')?.text ?? '';
  return '';
}

/** Go: a method's receiver type (`func (s *Server) Start()` -> `Server`). */
function goReceiver(node: TsNode): string {
  const r = node.childForFieldName('receiver');
  if (r === null) return '';
  const m = /([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)\s*$/.exec(r.text);
  return m?.[1] ?? '';
}

interface Found {
  kind: 'function' | 'method' | 'class';
  symbol: string;
  start: number;
  end: number;
  /** For classes: the rows of their methods (to leave out of the class chunk). */
  inner?: Array<[number, number]>;
}

/** Definitions in `root`: functions (not those nested in functions) and classes with their methods. */
function findDefinitions(root: TsNode, rule: GrammarRule): Found[] {
  const out: Found[] = [];
  const functions = new Set(rule.functions);
  const classes = new Set(rule.classes);
  const visit = (node: TsNode, owner: Found | undefined): void => {
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (functions.has(child.type)) {
        const name = nameOf(child);
        const receiver = child.type === 'method_declaration' && rule.grammar === 'go' ? goReceiver(child) : '';
        const prefix = owner?.symbol || receiver;
        const f: Found = {
          kind: owner !== undefined || receiver !== '' ? 'method' : 'function',
          symbol: prefix ? `${prefix}.${name}` : name,
          start: child.startPosition.row,
          end: child.endPosition.row,
        };
        out.push(f);
        owner?.inner?.push([f.start, f.end]);
        continue; // nested functions belong to this one
      }
      if (classes.has(child.type)) {
        const name = nameOf(child);
        const c: Found = {
          kind: 'class',
          symbol: owner?.symbol ? `${owner.symbol}.${name}` : name,
          start: child.startPosition.row,
          end: child.endPosition.row,
          inner: [],
        };
        out.push(c);
        owner?.inner?.push([c.start, c.end]);
        visit(child, c);
        continue;
      }
      visit(child, owner);
    }
  };
  visit(root, undefined);
  return out;
}

/** Rows `from..to` (0-based, inclusive) as windows of at most `size` rows, blank edges trimmed; blank windows dropped. */
function windows(lines: readonly string[], from: number, to: number, size: number, push: (start: number, end: number) => void): void {
  let a = from;
  while (a <= to) {
    while (a <= to && lines[a].trim() === '') a++;
    if (a > to) break;
    let b = Math.min(to, a + size - 1);
    const next = b + 1;
    while (b > a && lines[b].trim() === '') b--;
    push(a, b);
    a = next;
  }
}

/**
 * Creates a chunker. Grammars load on first use per language; a file whose language has no grammar
 * (or none known) is cut into line windows.
 */
export function createCodeChunker(): CodeChunker {
  const languages = new Map<string, Promise<unknown>>();
  let parser: TsParser | undefined;
  const languageFor = async (rule: GrammarRule): Promise<unknown> => {
    let l = languages.get(rule.grammar);
    if (l === undefined) {
      l = loadRuntime().then(({ ts, dir }) => ts.Language.load(join(dir, `tree-sitter-${rule.grammar}.wasm`)));
      languages.set(rule.grammar, l);
    }
    return l;
  };
  return {
    loaded: () => [...languages.keys()],
    async chunk(path: string, text: string, options: ChunkOptions = {}): Promise<CodeChunk[]> {
      const windowLines = options.windowLines ?? CHUNK_DEFAULTS.windowLines;
      const maxChunkLines = options.maxChunkLines ?? CHUNK_DEFAULTS.maxChunkLines;
      const language = languageOfPath(path) ?? (extname(path).slice(1).toLowerCase() || 'text');
      const lines = text.split(/\r?\n/);
      if (lines.length > 0 && lines[lines.length - 1] === '' && text.endsWith('\n')) lines.pop();
      const chunks: CodeChunk[] = [];
      const emit = (kind: CodeChunk['kind'], symbol: string, a: number, b: number) =>
        chunks.push({ path, language, kind, symbol, startLine: a + 1, endLine: b + 1, text: lines.slice(a, b + 1).join('\n') });
      const rule = CHUNK_GRAMMARS[language];
      const covered = new Uint8Array(lines.length);
      if (rule !== undefined) {
        const { ts } = await loadRuntime();
        parser ??= new ts.Parser();
        parser.setLanguage(await languageFor(rule));
        const tree = parser.parse(text);
        if (tree !== null) {
          try {
            for (const d of findDefinitions(tree.rootNode, rule)) {
              const end = Math.min(d.end, lines.length - 1);
              if (d.kind === 'class' && d.inner !== undefined && d.inner.length > 0) {
                // The class's own lines: what its methods do not cover.
                const own = new Uint8Array(end - d.start + 1).fill(1);
                for (const [a, b] of d.inner) for (let r = Math.max(a, d.start); r <= Math.min(b, end); r++) own[r - d.start] = 0;
                let r = d.start;
                while (r <= end) {
                  if (own[r - d.start] === 0 || covered[r] === 1) {
                    r++;
                    continue;
                  }
                  let s = r;
                  while (r <= end && own[r - d.start] === 1 && covered[r] === 0) r++;
                  windows(lines, s, r - 1, maxChunkLines, (a, b) => {
                    emit('class', d.symbol, a, b);
                    for (let x = a; x <= b; x++) covered[x] = 1;
                  });
                  s = r;
                }
                continue;
              }
              if (covered[d.start] === 1) continue;
              windows(lines, d.start, end, maxChunkLines, (a, b) => {
                emit(d.kind, d.symbol, a, b);
                for (let x = a; x <= b; x++) covered[x] = 1;
              });
            }
          } finally {
            tree.delete();
          }
        }
      }
      // Everything else (module-level code, files without a grammar) in windows.
      let r = 0;
      while (r < lines.length) {
        if (covered[r] === 1) {
          r++;
          continue;
        }
        const s = r;
        while (r < lines.length && covered[r] === 0) r++;
        windows(lines, s, r - 1, windowLines, (a, b) => emit('window', '', a, b));
      }
      chunks.sort((x, y) => x.startLine - y.startLine);
      return chunks;
    },
  };
}
