#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    int n;
    long long limit;
    if (scanf("%d %lld", &n, &limit) != 2) return 0;
    std::vector<long long> w(n);
    for (auto &x : w) scanf("%lld", &x);
    std::sort(w.begin(), w.end());
    int i = 0, j = n - 1, canoes = 0;
    while (i <= j) {
        if (i < j && w[i] + w[j] <= limit) ++i;
        --j;
        ++canoes;
    }
    printf("%d\n", canoes);
    return 0;
}
