#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<long long> starts(n), ends(n);
    for (int i = 0; i < n; ++i) scanf("%lld %lld", &starts[i], &ends[i]);
    sort(starts.begin(), starts.end());
    sort(ends.begin(), ends.end());
    int active = 0, best = 0, j = 0;
    long long bestTime = 0;
    for (int i = 0; i < n; ++i) {
        while (j < n && ends[j] <= starts[i]) { --active; ++j; }
        ++active;
        if (active > best) { best = active; bestTime = starts[i]; }
    }
    printf("%d %lld\n", best, bestTime);
    return 0;
}
