import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        st.nextToken();
        int n = (int) st.nval;
        st.nextToken();
        long limit = (long) st.nval;
        long[] w = new long[n];
        for (int k = 0; k < n; k++) {
            st.nextToken();
            w[k] = (long) st.nval;
        }
        Arrays.sort(w);
        int i = 0, j = n - 1, canoes = 0;
        while (i <= j) {
            if (i < j && w[i] + w[j] <= limit) i++;
            j--;
            canoes++;
        }
        System.out.println(canoes);
    }
}
