#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, k;
    if (scanf("%d %d", &n, &k) != 2) return 0;
    vector<long long> s(n);
    for (auto &x : s) scanf("%lld", &x);
    // compress species ids so counts fit in a plain array
    vector<long long> keys(s);
    sort(keys.begin(), keys.end());
    keys.erase(unique(keys.begin(), keys.end()), keys.end());
    vector<int> id(n);
    for (int i = 0; i < n; ++i) id[i] = lower_bound(keys.begin(), keys.end(), s[i]) - keys.begin();
    vector<int> cnt(keys.size(), 0);
    int distinct = 0, left = 0, bestLen = 0, bestStart = 0;
    for (int right = 0; right < n; ++right) {
        if (cnt[id[right]]++ == 0) ++distinct;
        while (distinct > k) {
            if (--cnt[id[left]] == 0) --distinct;
            ++left;
        }
        if (right - left + 1 > bestLen) {
            bestLen = right - left + 1;
            bestStart = left;
        }
    }
    printf("%d %d\n", bestLen, bestStart + 1);
    return 0;
}
