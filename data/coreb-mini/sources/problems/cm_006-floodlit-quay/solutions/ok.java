import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        int n = (int) next(in);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            long a = next(in), b = next(in);
            keys[i] = a * 2000000001L + b;
        }
        Arrays.sort(keys);
        long total = 0;
        long start = keys[0] / 2000000001L, end = keys[0] % 2000000001L;
        for (int i = 1; i < n; i++) {
            long a = keys[i] / 2000000001L, b = keys[i] % 2000000001L;
            if (a <= end) {
                end = Math.max(end, b);
            } else {
                total += end - start;
                start = a;
                end = b;
            }
        }
        total += end - start;
        System.out.println(total);
    }

    private static long next(DataInputStream in) throws IOException {
        int c = in.read();
        while (c < '0' || c > '9') c = in.read();
        long v = 0;
        while (c >= '0' && c <= '9') {
            v = v * 10 + (c - '0');
            c = in.read();
        }
        return v;
    }
}
