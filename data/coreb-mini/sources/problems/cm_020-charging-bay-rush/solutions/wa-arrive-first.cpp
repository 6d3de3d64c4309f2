#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<pair<long long, int>> events;
    for (int i = 0; i < n; ++i) {
        long long s, e;
        scanf("%lld %lld", &s, &e);
        events.push_back({s, -1});
        events.push_back({e, 1});
    }
    sort(events.begin(), events.end());
    int active = 0, best = 0;
    long long bestTime = 0;
    for (auto [t, kind] : events) {
        active += (kind == -1) ? 1 : -1;
        if (active > best) { best = active; bestTime = t; }
    }
    printf("%d %lld\n", best, bestTime);
    return 0;
}
