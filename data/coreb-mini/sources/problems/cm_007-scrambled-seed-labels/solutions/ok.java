import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        HashMap<String, Long> groups = new HashMap<>();
        for (int i = 0; i < n; i++) {
            char[] letters = br.readLine().trim().toCharArray();
            Arrays.sort(letters);
            groups.merge(new String(letters), 1L, Long::sum);
        }
        long pairs = 0;
        for (long k : groups.values()) pairs += k * (k - 1) / 2;
        System.out.println(pairs);
    }
}
