#include <cstdio>
#include <functional>
#include <queue>
#include <vector>

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    std::vector<std::vector<int>> succ(n + 1);
    std::vector<int> indeg(n + 1, 0);
    for (int i = 0; i < m; ++i) {
        int a, b;
        scanf("%d %d", &a, &b);
        succ[a].push_back(b);
        ++indeg[b];
    }
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int v = 1; v <= n; ++v)
        if (indeg[v] == 0) ready.push(v);
    std::vector<int> order;
    while (!ready.empty()) {
        int v = ready.top();
        ready.pop();
        order.push_back(v);
        for (int w : succ[v])
            if (--indeg[w] == 0) ready.push(w);
    }
    if ((int)order.size() != n) {
        puts("IMPOSSIBLE");
        return 0;
    }
    for (int i = 0; i < n; ++i) printf("%d%c", order[i], i + 1 == n ? '\n' : ' ');
    return 0;
}
