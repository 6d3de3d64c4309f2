#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long k;
    if (scanf("%d %lld", &n, &k) != 2) return 0;
    // sort all prefix sums and count equal pairs with a binary search per position
    vector<long long> prefix(n + 1, 0);
    for (int i = 1; i <= n; ++i) {
        long long x;
        scanf("%lld", &x);
        prefix[i] = prefix[i - 1] + x;
    }
    vector<pair<long long, int>> sorted(n + 1);
    for (int i = 0; i <= n; ++i) sorted[i] = {prefix[i], i};
    sort(sorted.begin(), sorted.end());
    long long count = 0;
    for (int j = 1; j <= n; ++j) {
        long long want = prefix[j] - k;
        auto lo = lower_bound(sorted.begin(), sorted.end(), make_pair(want, 0));
        auto hi = lower_bound(sorted.begin(), sorted.end(), make_pair(want, j));
        count += hi - lo;
    }
    printf("%lld\n", count);
    return 0;
}
