/**
 * A fake LLM for `coreb build` tests: a loopback chat server that answers by the `X-Coreb-Stage`
 * and `X-Coreb-Item` headers, in each stage's reply contract, with known solutions per
 * (model, problem/language). It can break a contract once (to exercise the quoted retry) and
 * records every call.
 */
import type { ChatAnswer, ChatCall } from './loopback-chat-server.js';

/** A problem the fake knows. */
export interface FakeProblem {
  title: string;
  statement: string;
  starterCode?: string;
  /** Words the rewrite renames in test I/O (the rewrite then reports ioChanged: true). */
  rename?: Record<string, string>;
}

/** Options of {@link createBuildFake}. */
export interface BuildFakeOptions {
  problems: ReadonlyMap<string, FakeProblem>;
  /** `<model>|<problem id>/<language>` -> program. Missing: the fake answers without code. */
  solutions: ReadonlyMap<string, string>;
  /** `<stage>|<item>` whose first reply breaks the contract. */
  breakOnce?: ReadonlySet<string>;
}

const lastUser = (c: ChatCall): string => [...c.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
const isRetry = (c: ChatCall): boolean => c.messages.some((m) => m.role === 'assistant');

function renameAll(s: string, rename: Record<string, string>): string {
  let out = s;
  for (const [a, b] of Object.entries(rename)) out = out.split(a).join(b);
  return out;
}

function words(n: number, seed: string): string {
  const vocab = ['array', 'count', 'pairs', 'index', 'minimum', 'query', 'segment', 'sorted', 'value', 'graph', 'path', 'string'];
  return Array.from({ length: n }, (_, i) => vocab[(i * 7 + seed.length) % vocab.length]).join(' ');
}

/** The answer callback. */
export function createBuildFake(o: BuildFakeOptions): (call: ChatCall) => ChatAnswer {
  return (call) => {
    const [pid, sub] = call.item.split('/');
    const p = o.problems.get(pid);
    if (p === undefined) return { fault: { status: 400, body: JSON.stringify({ error: `unknown item ${call.item}` }) } };
    const broken = o.breakOnce?.has(`${call.stage}|${call.item}`) === true && !isRetry(call);
    switch (call.stage) {
      case 'rewrite': {
        const body = {
          title: `Counterfactual ${p.title}`,
          statement: `In the harbour of Veltmark, ${p.statement}`,
          starterCode: p.starterCode ?? '',
          ioChanged: p.rename !== undefined,
        };
        return 'Here is the rewrite:\n```json\n' + JSON.stringify(body, null, 2) + '\n```';
      }
      case 'tests': {
        const text = call.messages.find((m) => m.role === 'user' && m.content.includes('Test cases (JSON, in order)'))?.content ?? lastUser(call);
        const m = /Test cases \(JSON, in order\):\n([\s\S]*?)\n\nAnswer with/.exec(text);
        if (m === null) return 'no tests found';
        const tests = JSON.parse(m[1]) as Array<{ input: string; output: string }>;
        const out = tests.map((t) => ({ input: renameAll(t.input, p.rename ?? {}), output: renameAll(t.output, p.rename ?? {}) }));
        return JSON.stringify({ tests: broken ? out.slice(1) : out });
      }
      case 'abbreviate':
        return broken ? 'Too short a summary.' : `${p.title}: ${words(70, pid)}.`;
      case 'solve': {
        const code = o.solutions.get(`${call.model}|${call.item}`);
        if (code === undefined) return 'I am sorry, I cannot write this program.';
        const comment = sub === 'python' || sub === 'ruby' ? '# reads the input and prints the answer' : '// reads the input and prints the answer';
        return `Sure. Here is the program:\n\n\`\`\`${sub}\n${comment}\n${code.trimEnd()}\n\`\`\`\n\nIt runs in linear time.`;
      }
      case 'queries': {
        // The variants asked (`retro_any`, `retro_<language>`) and the count, read from the prompt.
        const text = lastUser(call);
        const keys = [...new Set([...text.matchAll(/"(retro_[a-z]+)"/g)].map((m) => m[1]))];
        const count = Number(/Write (\d+) queries/.exec(text)?.[1] ?? '2');
        const type = sub ?? 'search';
        const out: Record<string, string[]> = {};
        for (const k of keys) {
          const lang = k.slice('retro_'.length);
          // The first language-agnostic title search names the original title (a leak `coreb review` flags).
          out[k] = Array.from({ length: count }, (_, i) =>
            type === 'title_search' && lang === 'any' && i === 0
              ? `${p.title.toLowerCase()} algorithm ${words(4, pid + k)}`
              : `${type} ${i + 1} ${words(6 + i, pid + k)}${lang === 'any' ? '' : ` in ${lang}`}`,
          );
        }
        return JSON.stringify({ queries: out });
      }
      case 'negatives':
        return `Modified Problem Description:\n## ${sub}\nA different task (${sub}) about ${p.title}: ${words(40, pid + sub)}.`;
      default:
        return { fault: { status: 400, body: JSON.stringify({ error: `unknown stage ${call.stage}` }) } };
    }
  };
}
