import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        String[] first = br.readLine().trim().split("\\s+");
        int rows = Integer.parseInt(first[0]);
        int cols = Integer.parseInt(first[1]);
        long mod = 1_000_000_007L;
        long[][] dp = new long[rows][cols];
        dp[0][0] = 1;
        for (int r = 0; r < rows; r++) {
            String line = br.readLine().trim();
            for (int c = 0; c < cols; c++) {
                if (r == 0 && c == 0) continue;
                if (line.charAt(c) == '#') continue;
                long sum = 0;
                if (r > 0) sum += dp[r - 1][c];
                if (c > 0) sum += dp[r][c - 1];
                dp[r][c] = sum % mod;
            }
        }
        System.out.println(dp[rows - 1][cols - 1]);
    }
}
