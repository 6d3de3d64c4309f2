import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        int n = next(in), m = next(in);
        int[] head = new int[n + 1], nxt = new int[m], to = new int[m], indeg = new int[n + 1];
        Arrays.fill(head, -1);
        for (int i = 0; i < m; i++) {
            int a = next(in), b = next(in);
            to[i] = b;
            nxt[i] = head[a];
            head[a] = i;
            indeg[b]++;
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int v = 1; v <= n; v++) if (indeg[v] == 0) ready.add(v);
        StringBuilder sb = new StringBuilder();
        int count = 0;
        while (!ready.isEmpty()) {
            int v = ready.poll();
            if (count++ > 0) sb.append(' ');
            sb.append(v);
            for (int e = head[v]; e != -1; e = nxt[e]) {
                if (--indeg[to[e]] == 0) ready.add(to[e]);
            }
        }
        System.out.println(count == n ? sb.toString() : "IMPOSSIBLE");
    }

    private static int next(DataInputStream in) throws IOException {
        int c = in.read();
        while (c < '0' || c > '9') c = in.read();
        int v = 0;
        while (c >= '0' && c <= '9') {
            v = v * 10 + (c - '0');
            c = in.read();
        }
        return v;
    }
}
