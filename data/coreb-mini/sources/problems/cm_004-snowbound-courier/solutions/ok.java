import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int rows = Integer.parseInt(st.nextToken());
        int cols = Integer.parseInt(st.nextToken());
        char[][] grid = new char[rows][];
        int start = -1, target = -1;
        for (int r = 0; r < rows; r++) {
            grid[r] = br.readLine().trim().toCharArray();
            for (int c = 0; c < cols; c++) {
                if (grid[r][c] == 'S') start = r * cols + c;
                if (grid[r][c] == 'T') target = r * cols + c;
            }
        }
        int[] dist = new int[rows * cols];
        Arrays.fill(dist, -1);
        int[] queue = new int[rows * cols];
        int head = 0, tail = 0;
        queue[tail++] = start;
        dist[start] = 0;
        int[] dr = {1, -1, 0, 0};
        int[] dc = {0, 0, 1, -1};
        while (head < tail) {
            int cur = queue[head++];
            if (cur == target) break;
            int r = cur / cols, c = cur % cols;
            for (int k = 0; k < 4; k++) {
                int nr = r + dr[k], nc = c + dc[k];
                if (nr < 0 || nr >= rows || nc < 0 || nc >= cols || grid[nr][nc] == '#') continue;
                int next = nr * cols + nc;
                if (dist[next] >= 0) continue;
                dist[next] = dist[cur] + 1;
                queue[tail++] = next;
            }
        }
        System.out.println(dist[target]);
    }
}
