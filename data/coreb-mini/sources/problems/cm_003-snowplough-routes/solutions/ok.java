import java.io.*;

public class Main {
    static final long MOD = 1_000_000_007L;

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        String[] first = br.readLine().trim().split("\\s+");
        int rows = Integer.parseInt(first[0]);
        int cols = Integer.parseInt(first[1]);
        long[][] ways = new long[rows][cols];
        for (int r = 0; r < rows; r++) {
            String line = br.readLine().trim();
            for (int c = 0; c < cols; c++) {
                if (line.charAt(c) == '#') continue;
                if (r == 0 && c == 0) {
                    ways[r][c] = 1;
                    continue;
                }
                long up = r > 0 ? ways[r - 1][c] : 0;
                long left = c > 0 ? ways[r][c - 1] : 0;
                ways[r][c] = (up + left) % MOD;
            }
        }
        System.out.println(ways[rows - 1][cols - 1]);
    }
}
