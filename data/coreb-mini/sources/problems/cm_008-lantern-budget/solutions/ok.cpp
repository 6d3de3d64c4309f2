#include <algorithm>
#include <cstdio>

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    long long prev2 = 0, prev1 = 0;
    for (int i = 0; i < n; ++i) {
        long long b;
        scanf("%lld", &b);
        long long cur = std::max(prev1, prev2 + b);
        prev2 = prev1;
        prev1 = cur;
    }
    printf("%lld\n", prev1);
    return 0;
}
