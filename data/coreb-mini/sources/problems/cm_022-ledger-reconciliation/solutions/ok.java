import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        st.resetSyntax();
        st.wordChars('0', '9');
        st.wordChars('-', '-');
        st.whitespaceChars(0, ' ');
        st.nextToken(); int n = Integer.parseInt(st.sval);
        st.nextToken(); long k = Long.parseLong(st.sval);
        HashMap<Long, Integer> seen = new HashMap<>();
        seen.put(0L, 1);
        long prefix = 0, count = 0;
        for (int i = 0; i < n; i++) {
            st.nextToken();
            prefix += Long.parseLong(st.sval);
            count += seen.getOrDefault(prefix - k, 0);
            seen.merge(prefix, 1, Integer::sum);
        }
        System.out.println(count);
    }
}
