#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

int main() {
    std::string s, t;
    std::cin >> s >> t;
    int n = s.size(), m = t.size();
    std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
    for (int i = 1; i <= n; ++i)
        for (int j = 1; j <= m; ++j)
            lcs[i][j] = s[i - 1] == t[j - 1] ? lcs[i - 1][j - 1] + 1 : std::max(lcs[i - 1][j], lcs[i][j - 1]);
    std::cout << n + m - 2 * lcs[n][m] << "\n";
    return 0;
}
