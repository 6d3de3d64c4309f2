#include <bits/stdc++.h>
using namespace std;

struct Dsu {
    vector<int> parent, rank_, size_;
    explicit Dsu(int n) : parent(n + 1), rank_(n + 1, 0), size_(n + 1, 1) {
        iota(parent.begin(), parent.end(), 0);
    }
    int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
    int unite(int a, int b) {
        a = find(a);
        b = find(b);
        if (a == b) return 0;
        if (rank_[a] < rank_[b]) swap(a, b);
        parent[b] = a;
        if (rank_[a] == rank_[b]) ++rank_[a];
        size_[a] += size_[b];
        return size_[a];
    }
};

int main() {
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 0;
    Dsu dsu(n);
    int groups = n, largest = 1;
    string out;
    for (int i = 0; i < q; ++i) {
        int u, v;
        scanf("%d %d", &u, &v);
        int merged = dsu.unite(u, v);
        if (merged > 0) {
            --groups;
            largest = max(largest, merged);
        }
        out += to_string(groups) + " " + to_string(largest) + "\n";
    }
    fputs(out.c_str(), stdout);
    return 0;
}
