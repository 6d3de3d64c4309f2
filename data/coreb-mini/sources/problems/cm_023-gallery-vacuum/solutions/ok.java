import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int r = Integer.parseInt(st.nextToken());
        int c = Integer.parseInt(st.nextToken());
        char[][] g = new char[r][];
        int row = 0, col = 0;
        for (int i = 0; i < r; i++) {
            g[i] = br.readLine().trim().toCharArray();
            for (int j = 0; j < c; j++) if (g[i][j] == 'S') { row = i; col = j; }
        }
        String line = br.readLine();
        String cmds = line == null ? "" : line.trim();
        int[] dr = {-1, 0, 1, 0}, dc = {0, 1, 0, -1};
        String names = "NESW";
        int facing = 0;
        boolean[][] seen = new boolean[r][c];
        seen[row][col] = true;
        int cleaned = 1;
        for (char ch : cmds.toCharArray()) {
            switch (ch) {
                case 'L': facing = (facing + 3) % 4; break;
                case 'R': facing = (facing + 1) % 4; break;
                case 'F': {
                    int nr = row + dr[facing], nc = col + dc[facing];
                    if (nr >= 0 && nc >= 0 && nr < r && nc < c && g[nr][nc] != '#') {
                        row = nr;
                        col = nc;
                        if (!seen[row][col]) { seen[row][col] = true; cleaned++; }
                    }
                    break;
                }
                default: break;
            }
        }
        System.out.println(cleaned + " " + (row + 1) + " " + (col + 1) + " " + names.charAt(facing));
    }
}
