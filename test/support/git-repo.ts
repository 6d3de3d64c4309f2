/**
 * Git repositories the tests make: a repository with a committer of its own and commits at given
 * dates (for `coreb repo build` and the commands that read its output).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Runs `git -C dir ...args` and returns its stdout (`env` added to this process's). */
export function git(dir: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
}

/** A new repository at `dir` (branch main, a committer of its own). */
export function initRepo(dir: string): void {
  mkdirSync(dir);
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['config', 'user.email', 'dev@example.com']);
  git(dir, ['config', 'user.name', 'Dev']);
}

/** A commit at `date` (ISO 8601) by `author` writing `files` (null deletes); returns its sha. */
export function commit(
  dir: string,
  date: string,
  subject: string,
  files: Record<string, string | null>,
  author = 'Dev <dev@example.com>',
  body = '',
): string {
  for (const [p, text] of Object.entries(files)) {
    if (text === null) git(dir, ['rm', '-q', p]);
    else {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), text);
      git(dir, ['add', p]);
    }
  }
  const env = { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  git(dir, ['commit', '-q', '--allow-empty', `--author=${author}`, '-m', subject, ...(body ? ['-m', body] : [])], env);
  return git(dir, ['rev-parse', 'HEAD']).trim();
}
