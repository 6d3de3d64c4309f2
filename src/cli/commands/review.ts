/**
 * `coreb review BUILD_DIR`: the local review web app over a build's work folder (see docs/build.md,
 * "Reviewing a build"). Prints the URL with the session token and serves until Ctrl-C.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { loadBuildWork } from '../../construct/review/items.js';
import { startReviewServer } from '../../construct/review/server.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';

const USAGE = `coreb review BUILD_DIR [--port 0] [--host 127.0.0.1] [--reviewer NAME] [--problems FILE]

A local web app to review a build made by coreb build (also one stopped early with --until):
per problem the original and the rewrite side by side with a word-level diff, the tests (kept or
rewritten), the abbreviation and its word count, the solutions with their verdicts, the search
queries and the four near-miss texts, with automatic checks beside each (numbers and sample I/O
kept, abbreviation 50-150 words, queries leaking the id or title, near-miss similarity).

Keys: j/k move, a approve, r reject, e edit the rewritten statement (Ctrl-Enter save, Esc
cancel), 1-4 filter (all, unreviewed, rejected, failing checks). Edit buttons beside the
abbreviation, each query and each near-miss text; "drop" removes a query.

Decisions are appended to BUILD_DIR/review.jsonl (who, when, item, decision, before/after text
of edits), one complete line each. Rerunning the release stage (coreb build ... --stages release)
leaves rejected problems out, uses the edited texts and counts the review in manifest.json, with
no model call.

The server binds 127.0.0.1 and prints http://127.0.0.1:PORT/?token=TOKEN; every API request needs
that session token (the page sends it as X-Coreb-Token). It serves no files. Ctrl-C stops it.

Options:
  --port N          port to listen on (default 0: any free port)
  --host ADDR       address to bind (default 127.0.0.1; anything else exposes the build to the
                    network, protected by the token only)
  --reviewer NAME   recorded as \`who\` in each decision (default $USER, else "unknown")
  --problems FILE   the source problems, only for builds made before coreb review existed
                    (default the manifest's source.problems_file)`;

const command: Command = {
  summary: 'review a build in the browser: diffs, checks, approve/reject/edit into review.jsonl',
  usage: USAGE,
  async run(ctx: CommandContext) {
    const { values, positionals } = parseOptions(
      'review',
      ctx.argv,
      { port: opt.int(0, 0), host: opt.string(), reviewer: opt.string(), problems: opt.string() },
      true,
    );
    if (positionals.length !== 1) throw new CorebError('USAGE', 'coreb review: give exactly one BUILD_DIR; see `coreb review --help`');
    const dir = resolve(ctx.cwd, positionals[0]);
    if (!existsSync(dir)) throw new CorebError('NOT_FOUND', `build folder ${dir} does not exist; give the --out folder of coreb build`);
    const { port } = values;
    if (port > 65535) throw new CorebError('USAGE', `--port must be at most 65535, got \`${port}\``);
    const host = values.host ?? '127.0.0.1';
    const reviewer = values.reviewer ?? ctx.env.USER ?? ctx.env.USERNAME ?? 'unknown';
    const problems = values.problems !== undefined ? resolve(ctx.cwd, values.problems) : undefined;
    const work = await loadBuildWork(dir, problems);
    const server = await startReviewServer({ work, reviewer }, port, host);
    if (!['127.0.0.1', 'localhost', '::1'].includes(host)) {
      ctx.logger.warn(`listening on ${host}: anyone who can reach this address and has the token can change the review`);
    }
    ctx.stdout.write(
      `coreb review: ${work.ids.length} problem(s) of ${dir}\nopen ${server.url}\n(Ctrl-C to stop; decisions go to ${resolve(dir, 'review.jsonl')})\n`,
    );
    await new Promise<void>((done) => {
      if (ctx.signal.aborted) done();
      else ctx.signal.addEventListener('abort', () => done(), { once: true });
    });
    await server.close();
    ctx.stdout.write('coreb review: stopped\n');
    return 0;
  },
};
export default command;
