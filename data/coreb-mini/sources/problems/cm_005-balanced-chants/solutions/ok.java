import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        br.readLine();
        String chant = br.readLine().trim();
        int n = chant.length();
        // Two sweeps with counters: left to right, then right to left.
        int best = 0, open = 0, close = 0;
        for (int i = 0; i < n; i++) {
            if (chant.charAt(i) == '(') open++; else close++;
            if (open == close) best = Math.max(best, 2 * close);
            else if (close > open) { open = 0; close = 0; }
        }
        open = 0;
        close = 0;
        for (int i = n - 1; i >= 0; i--) {
            if (chant.charAt(i) == '(') open++; else close++;
            if (open == close) best = Math.max(best, 2 * open);
            else if (open > close) { open = 0; close = 0; }
        }
        System.out.println(best);
    }
}
