#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<std::pair<long long, long long>> spans(n);
    for (auto &s : spans) scanf("%lld %lld", &s.first, &s.second);
    std::sort(spans.begin(), spans.end());
    long long total = 0, start = spans[0].first, end = spans[0].second;
    for (int i = 1; i < n; ++i) {
        if (spans[i].first <= end) {
            end = spans[i].second;
        } else {
            total += end - start;
            start = spans[i].first;
            end = spans[i].second;
        }
    }
    total += end - start;
    printf("%lld\n", total);
    return 0;
}
