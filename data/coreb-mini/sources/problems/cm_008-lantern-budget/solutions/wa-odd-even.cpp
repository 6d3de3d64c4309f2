#include <algorithm>
#include <cstdio>

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    long long odd = 0, even = 0;
    for (int i = 0; i < n; ++i) {
        long long b;
        scanf("%lld", &b);
        if (i % 2 == 0) even += b;
        else odd += b;
    }
    printf("%lld\n", std::max(odd, even));
    return 0;
}
