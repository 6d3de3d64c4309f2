import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken()), m = Integer.parseInt(st.nextToken());
        List<List<Integer>> succ = new ArrayList<>();
        for (int i = 0; i <= n; i++) succ.add(new ArrayList<>());
        int[] indeg = new int[n + 1];
        for (int i = 0; i < m; i++) {
            st = new StringTokenizer(br.readLine());
            int a = Integer.parseInt(st.nextToken()), b = Integer.parseInt(st.nextToken());
            succ.get(a).add(b);
            indeg[b]++;
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int v = 1; v <= n; v++) if (indeg[v] == 0) ready.add(v);
        StringJoiner out = new StringJoiner(" ");
        while (!ready.isEmpty()) {
            int v = ready.poll();
            out.add(String.valueOf(v));
            for (int w : succ.get(v)) if (--indeg[w] == 0) ready.add(w);
        }
        System.out.println(out);
    }
}
