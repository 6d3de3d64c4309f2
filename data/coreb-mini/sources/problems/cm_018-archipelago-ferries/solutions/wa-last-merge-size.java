import java.io.*;
import java.util.*;

public class Main {
    static int[] parent, size;

    static int find(int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        st.nextToken(); int n = (int) st.nval;
        st.nextToken(); int q = (int) st.nval;
        parent = new int[n + 1];
        size = new int[n + 1];
        for (int i = 0; i <= n; i++) { parent[i] = i; size[i] = 1; }
        int groups = n, largest = 1;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < q; i++) {
            st.nextToken(); int a = find((int) st.nval);
            st.nextToken(); int b = find((int) st.nval);
            if (a != b) {
                if (size[a] < size[b]) { int t = a; a = b; b = t; }
                parent[b] = a;
                size[a] += size[b];
                groups--;
                largest = size[a];
            }
            sb.append(groups).append(' ').append(largest).append('\n');
        }
        System.out.print(sb);
    }
}
