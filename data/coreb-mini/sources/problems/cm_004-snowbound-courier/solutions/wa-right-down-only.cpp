#include <iostream>
#include <string>
#include <vector>

int main() {
    int rows, cols;
    std::cin >> rows >> cols;
    std::vector<std::string> grid(rows);
    for (auto &row : grid) std::cin >> row;
    int sr = 0, sc = 0, tr = 0, tc = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            if (grid[r][c] == 'S') sr = r, sc = c;
            if (grid[r][c] == 'T') tr = r, tc = c;
        }
    const int INF = 1 << 29;
    std::vector<std::vector<int>> best(rows, std::vector<int>(cols, INF));
    best[sr][sc] = 0;
    for (int r = sr; r < rows; ++r)
        for (int c = sc; c < cols; ++c) {
            if (grid[r][c] == '#' || best[r][c] == INF) continue;
            if (r + 1 < rows && grid[r + 1][c] != '#') best[r + 1][c] = std::min(best[r + 1][c], best[r][c] + 1);
            if (c + 1 < cols && grid[r][c + 1] != '#') best[r][c + 1] = std::min(best[r][c + 1], best[r][c] + 1);
        }
    std::cout << (best[tr][tc] == INF ? -1 : best[tr][tc]) << "\n";
    return 0;
}
