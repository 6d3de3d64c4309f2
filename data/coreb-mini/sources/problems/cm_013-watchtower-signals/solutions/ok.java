import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        st.nextToken();
        int n = (int) st.nval;
        long[] h = new long[n];
        for (int i = 0; i < n; i++) { st.nextToken(); h[i] = (long) st.nval; }
        int[] ans = new int[n];
        int[] stack = new int[n];
        int top = 0;
        for (int i = 0; i < n; i++) {
            while (top > 0 && h[stack[top - 1]] < h[i]) {
                int j = stack[--top];
                ans[j] = i - j;
            }
            stack[top++] = i;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) { if (i > 0) sb.append(' '); sb.append(ans[i]); }
        System.out.println(sb);
    }
}
