#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    string s;
    if (!(cin >> n >> s)) return 0;
    int k = min_element(s.begin(), s.end()) - s.begin();
    cout << k + 1 << "\n" << s.substr(k) + s.substr(0, k) << "\n";
    return 0;
}
