/**
 * `coreb results ls|show|rm DIR`: the results store `coreb eval --results DIR` keeps (see
 * dataset/results-store.ts and docs/eval.md, "Results store").
 */
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { listEntries, readEntry, removeEntries } from '../../dataset/results-store.js';
import { parseChoiceOption, parseCommandArgs } from '../args.js';
import type { Command, CommandContext } from '../command.js';

const USAGE = `Usage: coreb results ls DIR [--format table|json]
       coreb results show DIR ENTRY
       coreb results rm DIR ENTRY [ENTRY ...]

The results store of \`coreb eval --results DIR\`: one results file per retriever x dataset x
protocol, at DIR/<retriever>__<hash>/<split>__<dataset hash>/<protocol>__<hash>.json.
  ls     every entry: retriever, dataset split, protocol, tasks, queries, overall nDCG@10, path
  show   one entry's results file (JSON), by the path ls prints
  rm     remove entries (folders left empty go too)
`;

const command: Command = {
  summary: 'list, show or remove the rows of a results store (coreb eval --results DIR)',
  usage: USAGE,
  async run(ctx: CommandContext) {
    const { values, positionals } = parseCommandArgs('results', ctx.argv, { format: { type: 'string' } }, true);
    const [verb, dirArg, ...rest] = positionals;
    if (verb === undefined || dirArg === undefined)
      throw new CorebError('USAGE', `coreb results: give a verb and the store (ls|show|rm DIR); see \`coreb results --help\``);
    const dir = resolve(ctx.cwd, dirArg);
    if (verb === 'ls') {
      const format = parseChoiceOption('format', values.format as string | undefined, ['table', 'json'] as const, 'table');
      const entries = await listEntries(dir);
      const rows = entries.map((e) => ({
        path: e.path,
        retriever: e.row.name,
        split: e.results.dataset.split,
        dataset: e.results.dataset.sha256.slice(0, 12),
        protocol: e.results.protocol.name,
        tasks: Object.keys(e.row.tasks),
        queries: e.row.overall.queries,
        ndcg10: e.row.overall.metrics['ndcg@10'] ?? null,
        createdAt: e.results.createdAt,
      }));
      if (format === 'json') {
        ctx.stdout.write(`${JSON.stringify({ store: dir, entries: rows }, null, 2)}\n`);
        return 0;
      }
      if (rows.length === 0) {
        ctx.stdout.write(`${dir}: no entries\n`);
        return 0;
      }
      const table = [['retriever', 'split', 'protocol', 'tasks', 'queries', 'nDCG@10', 'entry']].concat(
        rows.map((r) => [
          r.retriever,
          r.split,
          r.protocol,
          r.tasks.join(','),
          String(r.queries),
          r.ndcg10 === null ? '-' : r.ndcg10.toFixed(4),
          r.path,
        ]),
      );
      const w = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
      ctx.stdout.write(
        `${table
          .map((r) =>
            r
              .map((c, i) => (i === 4 || i === 5 ? c.padStart(w[i]) : c.padEnd(w[i])))
              .join('  ')
              .trimEnd(),
          )
          .join('\n')}\n`,
      );
      ctx.stdout.write(`${rows.length} entr${rows.length === 1 ? 'y' : 'ies'} in ${dir}\n`);
      return 0;
    }
    if (verb === 'show') {
      if (rest.length !== 1) throw new CorebError('USAGE', 'coreb results show DIR ENTRY: give one entry path (as `coreb results ls` prints it)');
      ctx.stdout.write(`${JSON.stringify((await readEntry(dir, rest[0])).results, null, 2)}\n`);
      return 0;
    }
    if (verb === 'rm') {
      if (rest.length === 0)
        throw new CorebError('USAGE', 'coreb results rm DIR ENTRY...: give the entries to remove (as `coreb results ls` prints them)');
      removeEntries(dir, rest);
      ctx.stderr.write(`removed ${rest.length} entr${rest.length === 1 ? 'y' : 'ies'} from ${dir}\n`);
      return 0;
    }
    throw new CorebError('USAGE', `coreb results: unknown verb \`${verb}\`; expected ls, show or rm`);
  },
};
export default command;
