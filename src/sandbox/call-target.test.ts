import { test } from 'node:test';
import assert from 'node:assert/strict';
import { declaredFunctions, findCallTarget } from './call-target.js';

test('the function an example calls: arity first, then parameter names, in all five languages', () => {
  const cpp = [
    'class Solution {',
    'public:',
    '    bool check(int k, vector<int>& removed) { return true; }',
    '    int maxRemovals(string playlist, string favoriteSequence, vector<int>& removableIndices) {',
    '        auto f = [&](int k) -> bool { return k > 0; };',
    '        if (f(1)) { return 1; }',
    '        return 0;',
    '    }',
    '};',
    'int main() { Solution s; cout << s.maxRemovals("a", "a", v); }',
  ].join('\n');
  assert.equal(findCallTarget('cpp', cpp, ['playlist', 'favoriteSequence', 'removableIndices']), 'maxRemovals');
  assert.equal(findCallTarget('cpp', cpp, ['k', 'removed']), 'check');
  assert.equal(findCallTarget('cpp', cpp, ['a']), undefined);
  const java =
    'public class Solution {\n  public int[] twoSum(int[] nums, int target) throws Exception { return null; }\n  private static Map<String, List<Integer>> helper(Map<String, List<Integer>> m, int nums) { return m; }\n  public static void main(String[] args) {}\n}';
  assert.equal(findCallTarget('java', java, ['nums', 'target']), 'twoSum');
  assert.deepEqual(
    declaredFunctions('java', java).map((f) => [f.name, f.params]),
    [
      ['twoSum', ['nums', 'target']],
      ['helper', ['m', 'nums']],
    ],
  );
  const go =
    'package main\nfunc helper(a, b int) int { return a }\nfunc maxRemovals(playlist string, favoriteSequence string, removableIndices []int) int { return 0 }\nfunc main() {}';
  assert.equal(findCallTarget('go', go, ['playlist', 'favorite_sequence', 'removable_indices']), 'maxRemovals');
  assert.deepEqual(declaredFunctions('go', go)[0], { name: 'helper', params: ['a', 'b'] });
  const py =
    'class Solution:\n    def dfs(self, i, j):\n        return 0\n    def minPath(self, grid: List[List[int]], k: int = 3) -> int:\n        # def fake(self, grid, k):\n        return 1\n';
  assert.equal(findCallTarget('python', py, ['grid', 'k']), 'minPath');
  const rb = 'def helper x, y\n  x\nend\ndef min_path(grid, k)\n  1\nend\n';
  assert.equal(findCallTarget('ruby', rb, ['grid', 'k']), 'min_path');
  assert.deepEqual(declaredFunctions('ruby', rb)[0], { name: 'helper', params: ['x', 'y'] });
});
