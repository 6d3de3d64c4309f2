import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StreamTokenizer st = new StreamTokenizer(br);
        st.nextToken(); int n = (int) st.nval;
        st.nextToken(); int cap = (int) st.nval;
        long[] best = new long[cap + 1];
        for (int i = 0; i < n; i++) {
            st.nextToken(); int w = (int) st.nval;
            st.nextToken(); long v = (long) st.nval;
            for (int c = cap; c >= w; c--) {
                best[c] = Math.max(best[c], best[c - w] + v);
            }
        }
        System.out.println(best[cap]);
    }
}
