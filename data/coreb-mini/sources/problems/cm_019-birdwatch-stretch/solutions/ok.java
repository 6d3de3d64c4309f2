import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        int k = Integer.parseInt(st.nextToken());
        long[] s = new long[n];
        int read = 0;
        while (read < n) {
            st = new StringTokenizer(br.readLine());
            while (st.hasMoreTokens() && read < n) s[read++] = Long.parseLong(st.nextToken());
        }
        HashMap<Long, Integer> count = new HashMap<>();
        int left = 0, bestLen = 0, bestStart = 0;
        for (int right = 0; right < n; right++) {
            count.merge(s[right], 1, Integer::sum);
            while (count.size() > k) {
                int c = count.get(s[left]) - 1;
                if (c == 0) count.remove(s[left]); else count.put(s[left], c);
                left++;
            }
            if (right - left + 1 > bestLen) {
                bestLen = right - left + 1;
                bestStart = left;
            }
        }
        System.out.println(bestLen + " " + (bestStart + 1));
    }
}
