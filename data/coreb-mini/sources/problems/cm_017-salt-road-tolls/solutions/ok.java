import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        st.nextToken(); int n = (int) st.nval;
        st.nextToken(); int m = (int) st.nval;
        int[] head = new int[n + 1];
        Arrays.fill(head, -1);
        int[] next = new int[2 * m], to = new int[2 * m];
        long[] cost = new long[2 * m];
        for (int i = 0; i < m; i++) {
            st.nextToken(); int u = (int) st.nval;
            st.nextToken(); int v = (int) st.nval;
            st.nextToken(); long w = (long) st.nval;
            to[2 * i] = v; cost[2 * i] = w; next[2 * i] = head[u]; head[u] = 2 * i;
            to[2 * i + 1] = u; cost[2 * i + 1] = w; next[2 * i + 1] = head[v]; head[v] = 2 * i + 1;
        }
        long[] dist = new long[n + 1];
        Arrays.fill(dist, Long.MAX_VALUE);
        dist[1] = 0;
        PriorityQueue<long[]> pq = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        pq.add(new long[]{0, 1});
        while (!pq.isEmpty()) {
            long[] top = pq.poll();
            int u = (int) top[1];
            if (top[0] != dist[u]) continue;
            for (int e = head[u]; e != -1; e = next[e]) {
                long nd = top[0] + cost[e];
                if (nd < dist[to[e]]) {
                    dist[to[e]] = nd;
                    pq.add(new long[]{nd, to[e]});
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            if (i > 1) sb.append(' ');
            sb.append(dist[i] == Long.MAX_VALUE ? -1 : dist[i]);
        }
        System.out.println(sb);
    }
}
