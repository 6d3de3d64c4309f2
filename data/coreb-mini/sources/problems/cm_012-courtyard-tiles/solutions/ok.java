import java.io.*;
import java.util.*;

public class Main {
    static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int q = Integer.parseInt(br.readLine().trim());
        StringBuilder sb = new StringBuilder();
        for (int j = 0; j < q; j++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            long w = Long.parseLong(st.nextToken()), h = Long.parseLong(st.nextToken());
            long g = gcd(w, h);
            sb.append(g).append(' ').append((w / g) * (h / g)).append('\n');
        }
        System.out.print(sb);
    }
}
