/**
 * Functional (LeetCode-style) drivers: the refusals and generated sources as pure functions, then
 * each driver compiled and run with the real toolchains on authored problems covering the types of
 * LiveCodeBench's functional problems (int, long, double, bool, char, string, 1-D and 2-D arrays and
 * lists). The toolchain tests skip (naming packages) unless COREB_REQUIRE_TOOLCHAINS=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExecLanguage, TestCase, Verdict } from '../core/execution.js';
import { createTestJudge, toolchainSkipReason } from '../../test/support/judge.js';
import type { JudgeBackend } from './backend.js';
import { checkFunctional } from './functional.js';
import { go as goLanguage } from './languages/go.js';
import { prepareSource } from './normalise.js';

type Compiled = Exclude<ExecLanguage, 'python'>;
const LANGS: Compiled[] = ['cpp', 'java', 'go', 'ruby'];

test('refusals: no func_name, a missing method (compile_error), unsupported types (sandbox_error); python left alone', () => {
  assert.equal(checkFunctional('cpp', 'class Solution { public: int f(int a) { return a; } };', 'f'), undefined);
  assert.equal(checkFunctional('cpp', 'class Solution {};', '')?.verdict, 'sandbox_error');
  const missing = checkFunctional('cpp', 'class Solution { public: int g(int a) { return a; } };\nint main() { Solution s; s.f(1); }', 'f');
  assert.equal(missing?.verdict, 'compile_error');
  assert.match(missing?.reason ?? '', /defines no method \(in class Solution or top level\) named f/);
  // a call of the method is not a definition
  assert.equal(checkFunctional('java', 'class Solution { int g() { return this.f(1); } }', 'f')?.verdict, 'compile_error');
  assert.equal(checkFunctional('java', 'class Other { public int f(int[] a) { return 0; } }', 'f')?.verdict, 'compile_error');
  // C++ and Ruby also call a top-level function (CoREB's corpus has some); Java needs class Solution
  assert.equal(checkFunctional('cpp', 'int f(int a) { return a; }\nint main() { return f(1); }', 'f'), undefined);
  assert.equal(checkFunctional('go', 'package main\nfunc f(a []int) int { return 0 }', 'f'), undefined);
  assert.equal(checkFunctional('go', 'package main\n// func f(a []int) int\nfunc g() {}', 'f')?.verdict, 'compile_error');
  assert.equal(checkFunctional('ruby', 'def f(a)\n  a\nend\n', 'f'), undefined);
  assert.equal(checkFunctional('ruby', 'class Solution\n  def self.f(a) = a\nend\n', 'f'), undefined);
  assert.equal(checkFunctional('ruby', '# def f(a)\n', 'f')?.verdict, 'compile_error');
  const list = checkFunctional('cpp', 'class Solution {\npublic:\n  ListNode* reverse(ListNode* head) { return head; }\n};', 'reverse');
  assert.equal(list?.verdict, 'sandbox_error');
  assert.match(list?.reason ?? '', /cannot pass a ListNode to reverse/);
  assert.equal(checkFunctional('java', 'class Solution { public int depth(TreeNode root) { return 0; } }', 'depth')?.verdict, 'sandbox_error');
  assert.equal(checkFunctional('go', 'func depth(root *TreeNode) int { return 0 }', 'depth')?.verdict, 'sandbox_error');
  assert.equal(checkFunctional('python', 'class Solution: pass', 'f'), undefined);
});

test('generated sources: the program main is not run; Go and Ruby drivers are files beside the program', () => {
  const cpp = prepareSource('cpp', 'class Solution { public: int f(int a) { return a; } };\nint main() { return 1; }\n', 'functional', 'f');
  assert.match(cpp.text, /^#include <bits\/stdc\+\+\.h>\nusing namespace std;\n#define main coreb_program_main\n/);
  assert.equal(cpp.normalisations.length, 1);
  assert.match(cpp.text, /#undef main\n[\s\S]*&Solution::f\)/);
  const java = prepareSource(
    'java',
    'public class Main { public static void main(String[] a) {} }\nclass Solution { public int f(int a) { return a; } }',
    'functional',
    'f',
  );
  assert.equal(java.fileName, 'Main.java');
  assert.equal(java.mainClass, 'CorebDriver');
  const go = prepareSource('go', 'func f(a int) int { return a }\nfunc main() {}\n', 'functional', 'f');
  assert.match(go.text, /^package main\n[\s\S]*func corebProgramMain\(\) \{\}/);
  assert.deepEqual(
    go.extraFiles?.map((f) => f.name),
    ['coreb_driver.go'],
  );
  assert.match(go.extraFiles?.[0].text ?? '', /corebreflect\.ValueOf\(f\)/);
  assert.match(
    goLanguage.functional('type Solution struct{}\nfunc (s *Solution) f(a int) int { return a }', 'f').extraFiles[0].text,
    /ValueOf\(\(&Solution\{\}\)\.f\)/,
  );
  const rb = prepareSource('ruby', 'def f(a) = a\n', 'functional', 'f');
  assert.equal(rb.fileName, 'coreb_driver.rb');
  assert.deepEqual(rb.extraFiles, [{ name: 'main.rb', text: 'def f(a) = a\n' }]);
  for (const p of [cpp, java, go, rb]) assert.equal(p.normalisations.length >= 1, true);
});

const skip = toolchainSkipReason(['cpp', 'java', 'go', 'ruby']);
const made = skip === undefined ? await createTestJudge({ timeLimitMs: 4000 }) : skip;
const judge: JudgeBackend | undefined = typeof made === 'string' ? undefined : made;
const skipReason = typeof made === 'string' ? made : false;

const fn = (funcName: string, input: string, output: string): TestCase => ({ kind: 'functional', input, outputs: [output], funcName });

/** Authored problems; every program also carries a stdin main (as CoREB's corpus programs do) that must not run. */
const PROBLEMS: Array<{ name: string; tests: TestCase[]; want: Verdict[]; code: Record<Compiled, string> }> = [
  {
    name: 'twoSum: int array and int in, int array out',
    tests: [fn('twoSum', '[2, 7, 11, 15]\n9', '[0, 1]'), fn('twoSum', '[3, 2, 4]\n6', '[1, 2]'), fn('twoSum', '[3, 3]\n6', '[1, 0]')],
    want: ['accepted', 'accepted', 'wrong_answer'],
    code: {
      cpp: `using namespace std;
class Solution {
public:
    vector<int> twoSum(vector<int>& nums, int target) {
        unordered_map<int, int> seen;
        for (int i = 0; i < (int)nums.size(); i++) {
            auto it = seen.find(target - nums[i]);
            if (it != seen.end()) return {it->second, i};
            seen[nums[i]] = i;
        }
        return {};
    }
};
int main() { cout << "not this main" << endl; return 0; }
`,
      java: `import java.util.*;
public class Main {
    public static void main(String[] args) { System.out.println("not this main"); }
}
class Solution {
    public int[] twoSum(List<Integer> nums, int target) {
        Map<Integer, Integer> seen = new HashMap<>();
        for (int i = 0; i < nums.size(); i++) {
            Integer j = seen.get(target - nums.get(i));
            if (j != null) return new int[] {j, i};
            seen.put(nums.get(i), i);
        }
        return new int[0];
    }
}
`,
      go: `package main

import "fmt"

func twoSum(nums []int, target int) []int {
	seen := map[int]int{}
	for i, x := range nums {
		if j, ok := seen[target-x]; ok {
			return []int{j, i}
		}
		seen[x] = i
	}
	return nil
}

func main() { fmt.Println("not this main") }
`,
      ruby: `class Solution
  def twoSum(nums, target)
    seen = {}
    nums.each_with_index do |x, i|
      return [seen[target - x], i] if seen.key?(target - x)
      seen[x] = i
    end
    []
  end
end
if __FILE__ == $0
  puts "not this main"
end
`,
    },
  },
  {
    name: 'total: 2-D int grid and a 64-bit int in, 64-bit int out (free function, static method, top-level def)',
    tests: [fn('total', '[[1, 2], [3, -4]]\n1000000000000', '1000000000002'), fn('total', '[]\n5', '5')],
    want: ['accepted', 'accepted'],
    code: {
      cpp: `#include <vector>
using namespace std;
long long total(const vector<vector<int>>& grid, long long big) {
    long long s = big;
    for (const auto& row : grid) for (int x : row) s += x;
    return s;
}
`,
      java: `class Solution {
    public static long total(int[][] grid, long big) {
        long s = big;
        for (int[] row : grid) for (int x : row) s += x;
        return s;
    }
}
`,
      go: `func total(grid [][]int, big int64) int64 {
	s := big
	for _, row := range grid {
		for _, x := range row {
			s += int64(x)
		}
	}
	return s
}
`,
      ruby: `def total(grid, big)
  grid.flatten.sum + big
end
`,
    },
  },
  {
    name: 'label: strings (escapes, UTF-8), a char grid and a bool in, string list out',
    tests: [
      fn('label', '["ab", "c\\"d", "\\u00e9", "x\\\\y"]\n[["x", "y"], ["z", "."]]\ntrue', '["ab!", "c\\"d!", "é!", "x\\\\y!", "xy", "z."]'),
      fn('label', '["q"]\n[]\nfalse', '["q"]'),
    ],
    want: ['accepted', 'accepted'],
    code: {
      cpp: `class Solution {
public:
    vector<string> label(vector<string> words, vector<vector<char>>& board, bool flag) {
        vector<string> out;
        for (auto& w : words) out.push_back(flag ? w + "!" : w);
        for (auto& row : board) out.push_back(string(row.begin(), row.end()));
        return out;
    }
};
`,
      java: `import java.util.*;
public class Solution {
    public List<String> label(String[] words, char[][] board, boolean flag) {
        List<String> out = new ArrayList<>();
        for (String w : words) out.add(flag ? w + "!" : w);
        for (char[] row : board) out.add(new String(row));
        return out;
    }
    public static void main(String[] args) { System.out.println("not this main"); }
}
`,
      go: `package main

func label(words []string, board [][]byte, flag bool) []string {
	out := []string{}
	for _, w := range words {
		if flag {
			w += "!"
		}
		out = append(out, w)
	}
	for _, row := range board {
		out = append(out, string(row))
	}
	return out
}

func main() {}
`,
      ruby: `class Solution
  def label(words, board, flag)
    words.map { |w| flag ? w + "!" : w } + board.map(&:join)
  end
end
def main
  gets
end
`,
    },
  },
  {
    name: 'mean: double list in, double out',
    tests: [fn('mean', '[1.5, 2.0, 2.25]', '1.9166666666666667'), fn('mean', '[0.1, 0.2]', '0.15000000000000002'), fn('mean', '[4]', '4.0')],
    want: ['accepted', 'accepted', 'accepted'],
    code: {
      cpp: `class Solution {
public:
    double mean(vector<double>& xs) const { return accumulate(xs.begin(), xs.end(), 0.0) / xs.size(); }
};
`,
      java: `import java.util.*;
class Solution {
    public double mean(List<Double> xs) {
        double s = 0;
        for (double x : xs) s += x;
        return s / xs.size();
    }
}
`,
      go: `func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
`,
      ruby: `def mean(xs)
  xs.sum.to_f / xs.size
end
`,
    },
  },
  {
    name: 'isEven: int in, bool out; odd input crashes (runtime_error)',
    tests: [fn('isEven', '4', 'true'), fn('isEven', '7', 'false'), fn('isEven', '-1', 'false')],
    want: ['accepted', 'accepted', 'runtime_error'],
    code: {
      cpp: `class Solution {
public:
    bool isEven(int n) { if (n < 0) { vector<int> v; return v.at(5) > 0; } return n % 2 == 0; }
};
`,
      java: `class Solution {
    public boolean isEven(int n) { if (n < 0) throw new IllegalArgumentException("negative"); return n % 2 == 0; }
}
`,
      go: `func isEven(n int) bool {
	if n < 0 {
		panic("negative")
	}
	return n%2 == 0
}
`,
      ruby: `class Solution
  def isEven(n)
    raise ArgumentError, "negative" if n < 0
    n.even?
  end
end
`,
    },
  },
];

for (const p of PROBLEMS) {
  test(`functional driver, 4 languages: ${p.name}`, { skip: skipReason }, async () => {
    const results = await Promise.all(
      LANGS.map((language) => judge!.judge({ id: `${p.tests[0].funcName}-${language}`, problemId: 'p', language, code: p.code[language] }, p.tests)),
    );
    for (const r of results) {
      const got = r.tests.map((t) => t.verdict);
      assert.deepEqual(got, p.want, `${r.language}: ${JSON.stringify({ verdict: r.verdict, out: r.compileOutput, tests: r.tests })}`);
      assert.ok(
        r.normalisations.some((n) => n.includes('functional driver')),
        r.normalisations.join('; '),
      );
    }
  });
}

test('missing methods and unsupported types are refused before any build, with the reason', { skip: skipReason }, async () => {
  const tests = [fn('twoSum', '[1]\n1', '[0]')];
  const before = judge!.stats().compiles;
  const renamed = await judge!.judge(
    { id: 'r', problemId: 'p', language: 'go', code: 'package main\nfunc twoSumRenamed(a []int, t int) []int { return nil }\n' },
    tests,
  );
  assert.equal(renamed.verdict, 'compile_error');
  assert.match(renamed.compileOutput ?? '', /defines no function named twoSum/);
  const list = await judge!.judge(
    { id: 'l', problemId: 'p', language: 'java', code: 'class Solution { public int[] twoSum(ListNode head, int t) { return null; } }' },
    tests,
  );
  assert.equal(list.verdict, 'sandbox_error');
  assert.match(list.compileOutput ?? '', /cannot pass a ListNode to twoSum/);
  assert.equal(judge!.stats().compiles, before);
});
