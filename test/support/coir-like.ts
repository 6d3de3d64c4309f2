/**
 * A small CoIR-style BEIR directory with planted audit findings (aligned ids, 1-to-1 qrels, a title
 * only on relevant documents, an exact and a near duplicate, Java labelled Python, prose and a bare
 * output labelled as code), written by the audit tests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A CoIR-style BEIR directory: aligned ids qN -> dN, one relevant document each, planted problems. */
export function writeCoirLikeBeir(dir: string): void {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const fn = (name: string, body: string) =>
    `import sys\n\ndef ${name}(values):\n    total = 0\n    for v in values:\n        ${body}\n    return total\n\nif __name__ == "__main__":\n    data = list(map(int, sys.stdin.read().split()))\n    print(${name}(data))\n`;
  const docs: Array<Record<string, unknown>> = [
    { _id: 'd1', title: 'sum_values', text: fn('sum_values', 'total += v'), language: 'python' },
    {
      _id: 'd2',
      title: 'count_even',
      text:
        fn('count_even', 'if v % 2 == 0: total += 1') +
        '\n# counts the even values of a list, skipping odd ones, and returns the total number found in it',
      language: 'python',
    },
    { _id: 'd3', title: 'max_gap', text: fn('max_gap', 'total = max(total, v)'), language: 'python' },
    {
      _id: 'd4',
      title: 'joiner',
      text: 'import java.util.*;\n\npublic class Joiner {\n    public static String join(List<String> parts, String sep) {\n        StringBuilder sb = new StringBuilder();\n        for (int i = 0; i < parts.size(); i++) {\n            if (i > 0) sb.append(sep);\n            sb.append(parts.get(i));\n        }\n        return sb.toString();\n    }\n\n    public static void main(String[] args) {\n        System.out.println(join(Arrays.asList(args), ","));\n    }\n}\n',
      language: 'python',
    },
    { _id: 'd5', title: 'explain', text: 'This function returns the number of distinct words in the input sentence', language: 'python' },
    { _id: 'd6', title: 'output', text: '[3, 4, 5]', language: 'python' },
    { _id: 'd7', text: fn('sum_values', 'total += v').replace(/\n/g, '\n\n'), language: 'python' },
    {
      _id: 'd8',
      text:
        fn('count_even', 'if v % 2 == 0: total += 1') +
        '\n# counts the even values of a list, skipping odd ones, and returns the total number found here',
      language: 'python',
    },
    { _id: 'd9', text: 'def product(values):\n    out = 1\n    for v in values:\n        out *= v\n    return out\n', language: 'python' },
    { _id: 'd10', text: 'def reverse(s):\n    return s[::-1]\n', language: 'python' },
    { _id: 'd11', text: 'def add(a, b):\n    return a + b\n', language: 'python' },
  ];
  writeFileSync(join(dir, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  const queries = [
    ['q1', 'sum values of a list'],
    ['q2', 'count even values'],
    ['q3', 'largest value max gap'],
    ['q4', 'join string parts'],
    ['q5', 'distinct words in a sentence'],
    ['q6', 'three four five'],
  ];
  writeFileSync(join(dir, 'queries.jsonl'), queries.map(([id, text]) => JSON.stringify({ _id: id, text })).join('\n') + '\n');
  writeFileSync(
    join(dir, 'qrels', 'test.tsv'),
    'query-id\tcorpus-id\tscore\n' + queries.map(([id]) => `${id}\td${id.slice(1)}\t1`).join('\n') + '\n',
  );
}
