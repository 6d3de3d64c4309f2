import java.io.*;
import java.util.*;

public class Main {
    static int n, k;
    static long[] a;

    static int stages(long limit) {
        int days = 1;
        long cur = 0;
        for (long x : a) {
            if (cur + x > limit) { days++; cur = x; } else { cur += x; }
        }
        return days;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        n = Integer.parseInt(st.nextToken());
        k = Integer.parseInt(st.nextToken());
        a = new long[n];
        long lo = 0, hi = 0;
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < n; i++) {
            a[i] = Long.parseLong(st.nextToken());
            lo = Math.max(lo, a[i]);
            hi += a[i];
        }
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (stages(mid) <= k) hi = mid; else lo = mid + 1;
        }
        System.out.println(lo);
    }
}
