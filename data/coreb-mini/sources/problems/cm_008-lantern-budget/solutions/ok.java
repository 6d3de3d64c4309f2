import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        st.nextToken();
        int n = (int) st.nval;
        long[] best = new long[n + 1];
        for (int i = 1; i <= n; i++) {
            st.nextToken();
            long b = (long) st.nval;
            long withIt = (i >= 2 ? best[i - 2] : 0) + b;
            best[i] = Math.max(best[i - 1], withIt);
        }
        System.out.println(best[n]);
    }
}
