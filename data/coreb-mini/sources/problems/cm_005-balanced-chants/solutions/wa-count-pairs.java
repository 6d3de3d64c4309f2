import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        br.readLine();
        String chant = br.readLine().trim();
        int depth = 0, pairs = 0;
        for (char ch : chant.toCharArray()) {
            if (ch == '(') {
                depth++;
            } else if (depth > 0) {
                depth--;
                pairs++;
            }
        }
        System.out.println(2 * pairs);
    }
}
