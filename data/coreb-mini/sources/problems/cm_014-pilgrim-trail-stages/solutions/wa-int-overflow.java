import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        int k = Integer.parseInt(st.nextToken());
        int[] a = new int[n];
        int lo = 0, hi = 0;
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < n; i++) {
            a[i] = Integer.parseInt(st.nextToken());
            lo = Math.max(lo, a[i]);
            hi += a[i];
        }
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            int days = 1, cur = 0;
            for (int x : a) {
                if (cur + x > mid) { days++; cur = x; } else { cur += x; }
            }
            if (days <= k) hi = mid; else lo = mid + 1;
        }
        System.out.println(lo);
    }
}
