#include <algorithm>
#include <iostream>
#include <string>
#include <unordered_map>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int n;
    std::cin >> n;
    std::unordered_map<std::string, long long> groups;
    for (int i = 0; i < n; ++i) {
        std::string word;
        std::cin >> word;
        std::sort(word.begin(), word.end());
        ++groups[word];
    }
    long long pairs = 0;
    for (const auto &g : groups) pairs += g.second * (g.second - 1) / 2;
    std::cout << pairs << "\n";
    return 0;
}
