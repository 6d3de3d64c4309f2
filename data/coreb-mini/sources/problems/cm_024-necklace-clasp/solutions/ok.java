import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        String s = br.readLine().trim();
        String t = s + s;
        int i = 0, j = 1, k = 0;
        while (i < n && j < n && k < n) {
            char a = t.charAt(i + k), b = t.charAt(j + k);
            if (a == b) { k++; continue; }
            if (a > b) i += k + 1; else j += k + 1;
            if (i == j) j++;
            k = 0;
        }
        int start = Math.min(i, j);
        System.out.println(start + 1);
        System.out.println(s.substring(start) + s.substring(0, start));
    }
}
