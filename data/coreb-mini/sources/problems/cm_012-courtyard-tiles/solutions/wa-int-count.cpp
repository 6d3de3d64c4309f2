#include <cstdio>

int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

int main() {
    int q;
    if (scanf("%d", &q) != 1) return 0;
    while (q--) {
        int w, h;
        scanf("%d %d", &w, &h);
        int g = gcd(w, h);
        int count = (w / g) * (h / g);
        printf("%d %d\n", g, count);
    }
    return 0;
}
