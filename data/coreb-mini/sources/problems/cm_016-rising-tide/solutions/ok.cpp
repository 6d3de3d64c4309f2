#include <bits/stdc++.h>
using namespace std;

int main() {
    int r, c;
    if (!(cin >> r >> c)) return 0;
    vector<string> g(r);
    for (auto &row : g) cin >> row;
    vector<int> dist(r * c, -1);
    vector<int> q;
    q.reserve(r * c);
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j)
            if (g[i][j] == 'W') { dist[i * c + j] = 0; q.push_back(i * c + j); }
    const int dr[4] = {1, -1, 0, 0}, dc[4] = {0, 0, 1, -1};
    for (size_t head = 0; head < q.size(); ++head) {
        int cur = q[head], i = cur / c, j = cur % c;
        for (int d = 0; d < 4; ++d) {
            int ni = i + dr[d], nj = j + dc[d];
            if (ni < 0 || nj < 0 || ni >= r || nj >= c) continue;
            if (g[ni][nj] != '.' || dist[ni * c + nj] >= 0) continue;
            dist[ni * c + nj] = dist[cur] + 1;
            q.push_back(ni * c + nj);
        }
    }
    int hours = 0, dry = 0;
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j) {
            if (g[i][j] != '.') continue;
            if (dist[i * c + j] < 0) ++dry; else hours = max(hours, dist[i * c + j]);
        }
    cout << hours << " " << dry << "\n";
    return 0;
}
