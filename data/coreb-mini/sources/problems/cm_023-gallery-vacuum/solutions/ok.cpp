#include <bits/stdc++.h>
using namespace std;

int main() {
    int r, c;
    if (!(cin >> r >> c)) return 0;
    vector<string> g(r);
    for (auto &row : g) cin >> row;
    string cmds;
    cin >> cmds;
    int row = 0, col = 0;
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j)
            if (g[i][j] == 'S') { row = i; col = j; }
    const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
    const char *names = "NESW";
    int facing = 0;
    vector<char> seen(r * c, 0);
    seen[row * c + col] = 1;
    int cleaned = 1;
    for (char ch : cmds) {
        if (ch == 'L') facing = (facing + 3) % 4;
        else if (ch == 'R') facing = (facing + 1) % 4;
        else if (ch == 'F') {
            int nr = row + dr[facing], nc = col + dc[facing];
            if (nr < 0 || nc < 0 || nr >= r || nc >= c || g[nr][nc] == '#') continue;
            row = nr;
            col = nc;
            if (!seen[row * c + col]) { seen[row * c + col] = 1; ++cleaned; }
        }
    }
    cout << cleaned << " " << row + 1 << " " << col + 1 << " " << names[facing] << "\n";
    return 0;
}
