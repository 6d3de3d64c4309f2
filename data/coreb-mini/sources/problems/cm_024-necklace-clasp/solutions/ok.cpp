#include <bits/stdc++.h>
using namespace std;

// Booth's algorithm: failure function over the doubled string
static int leastRotation(const string &s) {
    string t = s + s;
    int n = (int)t.size();
    vector<int> f(n, -1);
    int k = 0;
    for (int j = 1; j < n; ++j) {
        char c = t[j];
        int i = f[j - k - 1];
        while (i != -1 && c != t[k + i + 1]) {
            if (c < t[k + i + 1]) k = j - i - 1;
            i = f[i];
        }
        if (c != t[k + i + 1]) {
            if (c < t[k]) k = j;
            f[j - k] = -1;
        } else {
            f[j - k] = i + 1;
        }
    }
    return k;
}

int main() {
    int n;
    string s;
    if (!(cin >> n >> s)) return 0;
    int k = leastRotation(s) % n;
    cout << k + 1 << "\n" << s.substr(k) + s.substr(0, k) << "\n";
    return 0;
}
