import java.util.*;

public class Main {
    static long gcd(long a, long b) {
        while (b != 0) { long t = a % b; a = b; b = t; }
        return a;
    }

    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int m = sc.nextInt();
        long lo = sc.nextLong(), hi = sc.nextLong();
        long[] a = new long[m];
        for (int i = 0; i < m; i++) a[i] = sc.nextLong();
        long total = 0;
        for (int mask = 1; mask < (1 << m); mask++) {
            long l = 1;
            boolean tooBig = false;
            for (int i = 0; i < m; i++) {
                if ((mask >> i & 1) == 0) continue;
                long step = l / gcd(l, a[i]);
                if (step > hi / a[i]) { tooBig = true; break; }
                l = step * a[i];
            }
            if (tooBig) continue;
            long cnt = hi / l - lo / l;
            total += Integer.bitCount(mask) % 2 == 1 ? cnt : -cnt;
        }
        System.out.println(total);
    }
}
