/**
 * Ruby: run from source with `ruby` (no compile step); functional tests run a driver file that
 * requires the program as `main.rb` and calls the method on `Solution.new`, `Solution` or the top level.
 */
import { BASE_LIMITS } from './tools.js';
import { appendLine, interpretedCommands, type JudgeLanguage } from './language.js';

/** Ruby, run with `ruby main.rb`. */
export const ruby: JudgeLanguage = {
  id: 'ruby',
  label: 'Ruby',
  tools: ['ruby'],
  limits: BASE_LIMITS,
  treeAllowanceMb: 64,
  residentMemoryIsLimit: true,
  fileName: 'main.rb',
  comments: 'hash',
  endTests: (test, token, env) => appendLine(test, `$stdout.write("\\n" + ${token ?? `ENV.fetch('${env}', '')`} + "\\n")\n$stdout.flush\n`),
  declaration: (name) => new RegExp(`\\bdef\\s+(self\\.)?${name}\\b[^\\n]*`),
  declarationPlace: 'method (in class Solution or top level)',
  functional: (code, funcName) => ({
    fileName: 'coreb_driver.rb',
    text: functionalDriver(funcName),
    extraFiles: [{ name: 'main.rb', text: code }],
    note: `ruby: functional driver coreb_driver.rb requiring main.rb and calling ${funcName} added`,
  }),
  ...interpretedCommands('ruby', 'Ruby'),
};

/** Ruby driver for `functional` tests: JSON argument lines on stdin, JSON result on stdout. */
function functionalDriver(funcName: string): string {
  return String.raw`require 'json'
$coreb_input = STDIN.read
require_relative 'main'
coreb_args = $coreb_input.split("\n").reject { |l| l.strip.empty? }.map { |l| JSON.parse(l) }
coreb_name = :${funcName}
coreb_target =
  if defined?(Solution) && Solution.is_a?(Module) && (Solution.method_defined?(coreb_name) || Solution.private_method_defined?(coreb_name))
    Solution.new
  elsif defined?(Solution) && Solution.respond_to?(coreb_name)
    Solution
  else
    self
  end
coreb_result = coreb_target.send(coreb_name, *coreb_args)
coreb_result = coreb_result.to_a if defined?(Set) && coreb_result.is_a?(Set)
STDOUT.write(JSON.generate(coreb_result))
STDOUT.flush
`;
}
