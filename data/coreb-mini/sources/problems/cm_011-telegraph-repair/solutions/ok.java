import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        String s = br.readLine().trim();
        String t = br.readLine().trim();
        int n = s.length(), m = t.length();
        int[] prev = new int[m + 1], cur = new int[m + 1];
        for (int j = 0; j <= m; j++) prev[j] = j;
        for (int i = 1; i <= n; i++) {
            cur[0] = i;
            for (int j = 1; j <= m; j++) {
                int replace = prev[j - 1] + (s.charAt(i - 1) == t.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(replace, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] tmp = prev;
            prev = cur;
            cur = tmp;
        }
        System.out.println(prev[m]);
    }
}
