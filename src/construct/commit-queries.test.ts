import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanQueryText, closedIssues, noiseReason } from './commit-queries.js';

test('query text: trailers, URLs, markdown links and a squash merge number out; the description kept', () => {
  const message = [
    'Fix shell completion for nested groups (#2756)',
    '',
    'Completion skipped subcommands of a group inside a group. See',
    'https://github.com/pallets/click/issues/2755 and [the docs](https://click.palletsprojects.com/en/stable/shell-completion/).',
    '<!-- template -->',
    '![screenshot](https://example.com/a.png)',
    '',
    'Co-authored-by: A Person <a@example.com>',
    'Signed-off-by: Dev <dev@example.com>',
  ].join('\n');
  assert.equal(
    cleanQueryText(message),
    'Fix shell completion for nested groups\n\nCompletion skipped subcommands of a group inside a group. See\n and the docs.',
  );
  // A trailer in the middle of a body goes too; a sentence mentioning a key does not.
  assert.equal(cleanQueryText('Subject\n\nReviewed-by: X\nThe fix: keep the order.'), 'Subject\n\nThe fix: keep the order.');
  assert.equal(cleanQueryText('Only a subject'), 'Only a subject');
});

test('noise: version bumps, polishing, lint and format passes, typo fixes; real changes are not noise', () => {
  const noise: Array<[string, string]> = [
    ['0.73.0', 'version-bump'],
    ['v2.1.3', 'version-bump'],
    ['Release 8.1.7', 'version-bump'],
    ['Bump version to 5.0.1', 'version-bump'],
    ['Next development version (v6.2.1-SNAPSHOT)', 'version-bump'],
    ['[maven-release-plugin] prepare release gson-parent-2.11.0', 'version-bump'],
    ['Polishing', 'polishing'],
    ['Polish contribution', 'polishing'],
    ['Polishing (contribution)', 'polishing'],
    ['Polish PR #123', 'polishing'],
    ['Fix lint', 'lint-or-format'],
    ['Apply spotless', 'lint-or-format'],
    ['Fix Error Prone warnings', 'lint-or-format'],
    ['Fix checkstyle violations', 'lint-or-format'],
    ['Fix typo', 'typo'],
    ['Fix typos in docs', 'typo'],
  ];
  for (const [subject, reason] of noise) assert.equal(noiseReason(subject), reason, subject);
  for (const subject of [
    'Fix NPE in JsonReader when the version is 2.11',
    'Polish the error message of BadParameter for option names',
    'Polish the docs of Option',
    'Format option help with the terminal width',
    'Release the lock before calling the callback',
  ])
    assert.equal(noiseReason(subject), undefined, subject);
});

test('closed issues: GitHub closing keywords only, in order, once each', () => {
  assert.deepEqual(closedIssues('Fix it\n\nFixes #12. Closes #3, resolves owner/repo#12; see #99'), [12, 3]);
  assert.deepEqual(closedIssues('Refs #5 (#6)'), []);
  assert.deepEqual(closedIssues('fixed: #7'), [7]);
});
