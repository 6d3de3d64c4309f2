import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        st.nextToken(); int n = (int) st.nval;
        long[][] cars = new long[n][2];
        for (int i = 0; i < n; i++) {
            st.nextToken(); cars[i][0] = (long) st.nval;
            st.nextToken(); cars[i][1] = (long) st.nval;
        }
        Arrays.sort(cars, (a, b) -> Long.compare(a[0], b[0]));
        PriorityQueue<Long> busyUntil = new PriorityQueue<>();
        int best = 0;
        long bestTime = 0;
        for (long[] car : cars) {
            while (!busyUntil.isEmpty() && busyUntil.peek() <= car[0]) busyUntil.poll();
            busyUntil.add(car[1]);
            if (busyUntil.size() > best) { best = busyUntil.size(); bestTime = car[0]; }
        }
        System.out.println(best + " " + bestTime);
    }
}
