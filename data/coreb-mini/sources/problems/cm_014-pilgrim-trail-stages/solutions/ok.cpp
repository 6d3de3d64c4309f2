#include <bits/stdc++.h>
using namespace std;

static bool fits(const vector<long long> &a, long long limit, int k) {
    int days = 1;
    long long cur = 0;
    for (long long x : a) {
        if (x > limit) return false;
        if (cur + x > limit) {
            if (++days > k) return false;
            cur = x;
        } else {
            cur += x;
        }
    }
    return true;
}

int main() {
    int n, k;
    if (!(cin >> n >> k)) return 0;
    vector<long long> a(n);
    long long total = 0;
    for (auto &x : a) { cin >> x; total += x; }
    long long lo = 1, hi = total;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (fits(a, mid, k)) hi = mid; else lo = mid + 1;
    }
    cout << lo << "\n";
    return 0;
}
