#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long k;
    if (scanf("%d %lld", &n, &k) != 2) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    long long count = 0, sum = 0;
    int left = 0;
    for (int right = 0; right < n; ++right) {
        sum += a[right];
        while (left <= right && sum > k) sum -= a[left++];
        if (sum == k && left <= right) ++count;
    }
    printf("%lld\n", count);
    return 0;
}
