#include <iostream>
#include <string>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    const long long MOD = 1000000007LL;
    int rows, cols;
    std::cin >> rows >> cols;
    std::vector<long long> ways(cols, 0);
    for (int r = 0; r < rows; ++r) {
        std::string line;
        std::cin >> line;
        for (int c = 0; c < cols; ++c) {
            if (line[c] == '#') ways[c] = 0;
            else if (r == 0 && c == 0) ways[c] = 1;
            else if (c > 0) ways[c] = (ways[c] + ways[c - 1]) % MOD;
        }
    }
    std::cout << ways[cols - 1] << "\n";
    return 0;
}
