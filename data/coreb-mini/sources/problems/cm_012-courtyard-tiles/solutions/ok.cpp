#include <cstdio>

long long gcd(long long a, long long b) {
    while (b != 0) {
        long long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

int main() {
    int q;
    if (scanf("%d", &q) != 1) return 0;
    while (q--) {
        long long w, h;
        scanf("%lld %lld", &w, &h);
        long long g = gcd(w, h);
        printf("%lld %lld\n", g, (w / g) * (h / g));
    }
    return 0;
}
