import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int r = Integer.parseInt(st.nextToken());
        int c = Integer.parseInt(st.nextToken());
        char[][] g = new char[r][];
        for (int i = 0; i < r; i++) g[i] = br.readLine().trim().toCharArray();
        int[][] dist = new int[r][c];
        ArrayDeque<int[]> queue = new ArrayDeque<>();
        int land = 0;
        for (int i = 0; i < r; i++) {
            Arrays.fill(dist[i], -1);
            for (int j = 0; j < c; j++) {
                if (g[i][j] == 'W') { dist[i][j] = 0; queue.add(new int[]{i, j}); }
                else if (g[i][j] == '.') land++;
            }
        }
        int[][] moves = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
        int hours = 0, flooded = 0;
        while (!queue.isEmpty()) {
            int[] cell = queue.poll();
            for (int[] m : moves) {
                int ni = cell[0] + m[0], nj = cell[1] + m[1];
                if (ni < 0 || nj < 0 || ni >= r || nj >= c) continue;
                if (g[ni][nj] != '.' || dist[ni][nj] >= 0) continue;
                dist[ni][nj] = dist[cell[0]][cell[1]] + 1;
                hours = Math.max(hours, dist[ni][nj]);
                flooded++;
                queue.add(new int[]{ni, nj});
            }
        }
        System.out.println(hours + " " + (land - flooded));
    }
}
