import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        String s = br.readLine().trim();
        String t = s + s;
        int best = 0;
        for (int i = 1; i < n; i++) {
            char a = t.charAt(i), b = t.charAt(best);
            if (a < b || (a == b && t.charAt(i + 1) < t.charAt(best + 1))) best = i;
        }
        System.out.println(best + 1);
        System.out.println(t.substring(best, best + n));
    }
}
