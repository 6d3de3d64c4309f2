#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<int> tails;
    for (int i = 0; i < n; ++i) {
        int h;
        scanf("%d", &h);
        auto it = std::lower_bound(tails.begin(), tails.end(), h);
        if (it == tails.end()) tails.push_back(h);
        else *it = h;
    }
    printf("%d\n", (int)tails.size());
    return 0;
}
