/**
 * `coreb repo build` on a repository that plants commands everywhere git looks for one: a tracked
 * `.gitattributes` and `.git/info/attributes` naming diff textconv drivers, filters (clean, smudge,
 * process) and an external diff driver, `.git/config` defining them with fsmonitor, hooksPath, pager,
 * editor, sshCommand, credential helper and `diff.external`, the same again through `include.path`,
 * executable hooks, and the user's and the system's configuration through the environment
 * (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `HOME`, `GIT_CONFIG_PARAMETERS`, `GIT_EXTERNAL_DIFF`,
 * `GIT_PAGER`). Plain git runs the planted commands (the test checks that first, so it can fail);
 * `coreb repo build` runs none of them and builds the same benchmark as on the clean repository.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../support/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-repo-hostile-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const marks = join(tmp, 'marks');
mkdirSync(marks);

function git(dir: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A shell command that leaves a mark named `name` (and passes its input through, for filters and textconv). */
function planted(name: string): string {
  const script = join(tmp, `plant-${name}.sh`);
  writeFileSync(script, `#!/bin/sh\ntouch '${join(marks, name)}'\nif [ -n "$1" ] && [ -f "$1" ]; then cat "$1"; else cat; fi\n`);
  chmodSync(script, 0o755);
  return script;
}

function makeRepo(dir: string): void {
  mkdirSync(dir);
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['config', 'user.email', 'dev@example.com']);
  git(dir, ['config', 'user.name', 'Dev']);
  const commit = (date: string, subject: string, files: Record<string, string>): void => {
    for (const [p, text] of Object.entries(files)) {
      writeFileSync(join(dir, p), text);
      git(dir, ['add', p]);
    }
    git(dir, ['commit', '-q', '-m', subject], { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
  };
  // the tracked attributes name drivers; a clean configuration defines none of them
  commit('2024-01-01T10:00:00Z', 'Initial calculator', {
    '.gitattributes': '*.py diff=tconv filter=flt\n',
    'calc.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n',
  });
  commit('2024-02-02T10:00:00Z', 'Fix add: it subtracted', { 'calc.py': 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n' });
  commit('2024-02-03T10:00:00Z', 'Make mul handle floats', {
    'calc.py': 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return float(a) * float(b)\n',
  });
}

/** Plants every command git may run into `dir`'s configuration, attributes and hooks. */
function plant(dir: string): void {
  const gitDir = join(dir, '.git');
  writeFileSync(join(gitDir, 'info', 'attributes'), '*.py filter=proc\n*.txt diff=extdiff\n');
  const included = join(tmp, 'included.cfg');
  writeFileSync(included, `[diff "tconv"]\n\ttextconv = ${planted('include-textconv')}\n[core]\n\tpager = ${planted('include-pager')}\n`);
  const hooks = join(tmp, 'hooks');
  mkdirSync(hooks, { recursive: true });
  for (const h of ['post-checkout', 'pre-commit', 'post-merge', 'reference-transaction', 'post-index-change']) {
    writeFileSync(join(hooks, h), `#!/bin/sh\ntouch '${join(marks, `hook-${h}`)}'\n`);
    chmodSync(join(hooks, h), 0o755);
    writeFileSync(join(gitDir, 'hooks', h), `#!/bin/sh\ntouch '${join(marks, `own-hook-${h}`)}'\n`);
    chmodSync(join(gitDir, 'hooks', h), 0o755);
  }
  const cfg = [
    `[include]\n\tpath = ${included}`,
    `[diff "tconv"]\n\ttextconv = ${planted('textconv')}`,
    `[diff "extdiff"]\n\tcommand = ${planted('diff-driver')}`,
    `[filter "flt"]\n\tclean = ${planted('clean')}\n\tsmudge = ${planted('smudge')}\n\trequired = true`,
    `[filter "proc"]\n\tprocess = ${planted('filter-process')}`,
    `[diff]\n\texternal = ${planted('diff-external')}`,
    `[core]\n\tfsmonitor = ${planted('fsmonitor')}\n\thooksPath = ${hooks}\n\tpager = ${planted('pager')}\n\teditor = ${planted('editor')}\n\tsshCommand = ${planted('ssh')}`,
    `[credential]\n\thelper = !${planted('credential')}`,
  ];
  writeFileSync(join(gitDir, 'config'), `${readFileSync(join(gitDir, 'config'), 'utf8')}\n${cfg.join('\n')}\n`);
}

/** The user's and the system's configuration, and git's variables, all planting commands. */
function hostileEnv(): NodeJS.ProcessEnv {
  const home = join(tmp, 'home');
  mkdirSync(home, { recursive: true });
  const userCfg = `[diff "tconv"]\n\ttextconv = ${planted('user-textconv')}\n[core]\n\tpager = ${planted('user-pager')}\n[diff]\n\texternal = ${planted('user-diff-external')}\n`;
  writeFileSync(join(home, '.gitconfig'), userCfg);
  const globalCfg = join(tmp, 'global.cfg');
  writeFileSync(globalCfg, userCfg.replace(/user-/g, 'global-'));
  const systemCfg = join(tmp, 'system.cfg');
  writeFileSync(systemCfg, userCfg.replace(/user-/g, 'system-'));
  return {
    ...process.env,
    HOME: home,
    GIT_CONFIG_GLOBAL: globalCfg,
    GIT_CONFIG_SYSTEM: systemCfg,
    GIT_CONFIG_PARAMETERS: `'diff.tconv.textconv'='${planted('parameters-textconv')}'`,
    GIT_EXTERNAL_DIFF: planted('env-external-diff'),
    GIT_PAGER: planted('env-pager'),
  };
}

/** The benchmark files of a build, minus what records when and where it ran. */
function benchmarkOf(out: string, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const e of readdirSync(out, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
    if (e.name === 'manifest.json') continue;
    if (e.isDirectory()) Object.assign(files, benchmarkOf(join(out, e.name), `${prefix}${e.name}/`));
    else files[`${prefix}${e.name}`] = readFileSync(join(out, e.name), 'utf8');
  }
  return files;
}

test('coreb repo build runs no command a repository, its attributes or the user configuration name, and builds the same benchmark', (t) => {
  const dir = join(tmp, 'calc');
  makeRepo(dir);
  const clean = join(tmp, 'clean-out');
  const a = runCli(['repo', 'build', '--repo', dir, '--since', '2024-02-01', '--until', '2024-03-01', '--out', clean]);
  assert.equal(a.status, 0, a.stderr);
  assert.deepEqual(readdirSync(marks), [], 'nothing planted yet');

  plant(dir);
  const env = hostileEnv();
  // the plants are live: the diff coreb used to run (`git -C DIR diff --no-ext-diff`) runs a textconv
  // driver, plain git status runs fsmonitor and a filter
  git(dir, ['diff', '-M', '--unified=0', '--no-color', '--no-ext-diff', 'HEAD~1', 'HEAD'], env);
  assert.ok(
    readdirSync(marks).some((m) => m.endsWith('textconv')),
    `the old diff ran a textconv driver (${readdirSync(marks).join(', ') || 'none ran'})`,
  );
  git(dir, ['status', '--porcelain'], env);
  const live = readdirSync(marks);
  t.diagnostic(`plain git ran: ${live.join(', ')}`);
  for (const m of readdirSync(marks)) rmSync(join(marks, m));

  const hostile = join(tmp, 'hostile-out');
  const b = runCli(['repo', 'build', '--repo', dir, '--since', '2024-02-01', '--until', '2024-03-01', '--out', hostile], { env });
  assert.equal(b.status, 0, b.stderr);
  assert.deepEqual(readdirSync(marks), [], `coreb ran planted commands (plain git ran: ${live.join(', ')})`);
  assert.deepEqual(benchmarkOf(hostile), benchmarkOf(clean));
  const qrels = benchmarkOf(hostile);
  assert.ok(Object.values(qrels).join('').includes('calc.py'), 'the benchmark has the repository in it');
  // the repository itself is left as it was: no shadow, no lock, no new file in .git
  assert.equal(existsSync(join(dir, '.git', 'index.lock')), false);
  assert.equal(existsSync(join(dir, '.git', 'objects', 'info', 'alternates')), false);
});
