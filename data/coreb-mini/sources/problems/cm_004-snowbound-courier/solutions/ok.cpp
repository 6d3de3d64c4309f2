#include <iostream>
#include <queue>
#include <string>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int rows, cols;
    std::cin >> rows >> cols;
    std::vector<std::string> grid(rows);
    int start = -1, target = -1;
    for (int r = 0; r < rows; ++r) {
        std::cin >> grid[r];
        for (int c = 0; c < cols; ++c) {
            if (grid[r][c] == 'S') start = r * cols + c;
            if (grid[r][c] == 'T') target = r * cols + c;
        }
    }
    std::vector<int> dist(rows * cols, -1);
    std::queue<int> q;
    dist[start] = 0;
    q.push(start);
    const int dr[] = {1, -1, 0, 0}, dc[] = {0, 0, 1, -1};
    while (!q.empty()) {
        int cur = q.front();
        q.pop();
        if (cur == target) break;
        int r = cur / cols, c = cur % cols;
        for (int k = 0; k < 4; ++k) {
            int nr = r + dr[k], nc = c + dc[k];
            if (nr < 0 || nr >= rows || nc < 0 || nc >= cols) continue;
            int nxt = nr * cols + nc;
            if (grid[nr][nc] == '#' || dist[nxt] >= 0) continue;
            dist[nxt] = dist[cur] + 1;
            q.push(nxt);
        }
    }
    std::cout << dist[target] << "\n";
    return 0;
}
