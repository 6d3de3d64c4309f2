#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, cap;
    if (!(cin >> n >> cap)) return 0;
    vector<int> w(n);
    vector<long long> v(n);
    for (int i = 0; i < n; ++i) cin >> w[i] >> v[i];
    // table[i][c]: best value using the first i items within capacity c
    vector<vector<long long>> table(n + 1, vector<long long>(cap + 1, 0));
    for (int i = 1; i <= n; ++i) {
        for (int c = 0; c <= cap; ++c) {
            table[i][c] = table[i - 1][c];
            if (w[i - 1] <= c) table[i][c] = max(table[i][c], table[i - 1][c - w[i - 1]] + v[i - 1]);
        }
    }
    cout << table[n][cap] << "\n";
    return 0;
}
