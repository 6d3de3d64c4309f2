/**
 * The text of a repository benchmark's queries: commit messages and issues as a developer would
 * search with them, without what decides a lexical ranking but says nothing of the change (URLs,
 * trailers such as `Signed-off-by:` or `Co-authored-by:`, a squash merge's `(#123)`), and the rule
 * that keeps commits out whose message describes no change a search could find (a version bump,
 * "Polishing", a lint or formatting pass). Pure.
 */

/** Trailer keys (git's `Key: value` lines of a message's last paragraph) that are taken out. */
export const TRAILER_KEYS = [
  'Signed-off-by',
  'Co-authored-by',
  'Co-Authored-By',
  'Reviewed-by',
  'Acked-by',
  'Tested-by',
  'Reported-by',
  'Suggested-by',
  'Helped-by',
  'Requested-by',
  'Approved-by',
  'Cc',
  'Change-Id',
  'Reviewed-on',
  'Bug',
  'Issue',
  'Fixes',
  'Closes',
  'Resolves',
  'Refs',
  'See',
  'PR-URL',
  'Pull-Request',
  'Link',
] as const;

const TRAILER_LINE = new RegExp(`^\\s*(${TRAILER_KEYS.join('|')})\\s*:.*$`, 'i');
const URL = /<?\bhttps?:\/\/[^\s)>\]]+>?/g;
const MARKDOWN_LINK = /\[([^\]]*)\]\(\s*https?:\/\/[^)]*\)/g;
const IMAGE = /!\[[^\]]*\]\([^)]*\)/g;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;

/**
 * Cleans commit or issue text for use as a query: trailer lines out (anywhere, and the whole last
 * paragraph when every line of it is a `Key: value` trailer), markdown images and HTML comments out,
 * markdown links reduced to their text, bare URLs out, a trailing `(#123)` of the subject out, runs
 * of blank lines and trailing spaces collapsed.
 */
export function cleanQueryText(text: string): string {
  let t = text.replace(/\r\n?/g, '\n').replace(HTML_COMMENT, '').replace(IMAGE, '').replace(MARKDOWN_LINK, '$1');
  const paragraphs = t.split(/\n\s*\n/);
  const last = paragraphs[paragraphs.length - 1];
  if (paragraphs.length > 1 && last.split('\n').every((l) => l.trim() === '' || /^\s*[A-Za-z][\w-]*\s*:\s*\S/.test(l))) paragraphs.pop();
  t = paragraphs
    .join('\n\n')
    .split('\n')
    .filter((l) => !TRAILER_LINE.test(l))
    .map((l) => l.replace(URL, '').replace(/[ \t]+$/, ''))
    .join('\n');
  const [subject, ...rest] = t.split('\n');
  t = [subject.replace(/\s*\(#\d+\)\s*$/, ''), ...rest].join('\n');
  return t.replace(/\n{3,}/g, '\n\n').trim();
}

/** One rule of {@link noiseReason}: its name and the subject pattern it matches (the whole subject, trimmed). */
export const NOISE_RULES: ReadonlyArray<{ reason: string; subject: RegExp }> = [
  // "0.73.0", "v2.1", "Release 1.2.3", "Bump version to 5.0.1", "Prepare 3.1.0", "Next development version"
  {
    reason: 'version-bump',
    subject:
      /^(v?\d+(\.\d+)+([-.+][\w.]+)?|(release|releasing|prepare|preparing|bump|bumped|update|set|upgrade)( (the )?version)?( to| for)? v?\d+(\.\d+)+([-.+][\w.]+)?( release)?|(start |back to )?next (development|dev) (version|iteration)( .*)?|\[(maven-release-plugin|gradle-release-plugin)\].*)\.?$/i,
  },
  // "Polishing", "Polish", "Polishing (contribution)", "Polish contribution", "Polish PR #123", "Polish tests"
  {
    reason: 'polishing',
    subject: /^polish(ing|ed)?( \(?(contribution|pr|pull request|code|tests?|javadoc|docs?|#\d+)\)?)?( #?\d+)?( \(#?\d+\))?\.?$/i,
  },
  // "Fix lint", "Lint", "Format code", "Apply spotless", "Fix checkstyle violations", "Fix Error Prone warnings"
  {
    reason: 'lint-or-format',
    subject:
      /^(fix(es|ed)? )?(lint(ing)?|linter|format(ting)?( code)?|reformat(ted)?( code)?|code style|style|whitespace|checkstyle|spotless|prettier|eslint|gofmt|black|rubocop|clang-format|error[- ]?prone|javadoc)( (errors?|warnings?|violations?|issues?|fix(es)?|changes?|apply|applied|cleanup))*\.?$|^(apply|run|update) (spotless|prettier|black|gofmt|rubocop|clang-format|eslint)( .*)?$/i,
  },
  // "Typo", "Fix typo", "Fix typos in docs"
  { reason: 'typo', subject: /^(fix(es|ed)? )?typos?( (in|on) .{0,40})?\.?$/i },
];

/** The noise rule a commit's subject matches (`version-bump`, `polishing`, `lint-or-format`, `typo`), else undefined. */
export function noiseReason(subject: string): string | undefined {
  const s = subject.trim();
  return NOISE_RULES.find((r) => r.subject.test(s))?.reason;
}

/** GitHub's closing keywords before an issue reference (`Fixes #12`, `closes owner/repo#12` in the same repository). */
const CLOSING = /\b(close[sd]?|fix(e[sd])?|resolve[sd]?)\b:?\s+(?:[\w.-]+\/[\w.-]+)?#(\d+)\b/gi;

/** Issue numbers a commit message closes (`Fixes #N`, `Closes #N`, `Resolves #N`, GitHub's keywords), in order. */
export function closedIssues(message: string): number[] {
  return [...new Set([...message.matchAll(CLOSING)].map((m) => Number(m[3])))];
}
