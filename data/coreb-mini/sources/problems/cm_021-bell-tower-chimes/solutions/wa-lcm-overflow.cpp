#include <bits/stdc++.h>
using namespace std;

int main() {
    int m;
    long long lo, hi;
    if (!(cin >> m >> lo >> hi)) return 0;
    vector<long long> a(m);
    for (auto &x : a) cin >> x;
    long long total = 0;
    for (int mask = 1; mask < (1 << m); ++mask) {
        long long l = 1;
        for (int i = 0; i < m; ++i)
            if (mask >> i & 1) l = l * a[i] / __gcd(l, a[i]);
        if (l <= 0 || l > hi) continue;
        long long cnt = hi / l - (lo - 1) / l;
        total += (__builtin_popcount(mask) % 2 == 1) ? cnt : -cnt;
    }
    cout << total << "\n";
    return 0;
}
