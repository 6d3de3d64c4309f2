#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    if (!(cin >> n)) return 0;
    vector<long long> h(n);
    for (auto &x : h) cin >> x;
    vector<int> ans(n, 0);
    // scan from the east end, keeping a stack of candidate receivers
    vector<int> st;
    for (int i = n - 1; i >= 0; --i) {
        while (!st.empty() && h[st.back()] <= h[i]) st.pop_back();
        ans[i] = st.empty() ? 0 : st.back() - i;
        st.push_back(i);
    }
    for (int i = 0; i < n; ++i) cout << ans[i] << (i + 1 < n ? ' ' : '\n');
    return 0;
}
