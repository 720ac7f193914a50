// A small two-thread program for the JFR tests: one thread computes (CPU samples),
// the other allocates (allocation samples); both run for the seconds given.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

public class TwoThreads {
    static volatile long sink;

    static long spin(long deadline) {
        long x = 0;
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 10000; i++)
                x += (x ^ i) * 31 + i;
        }
        return x;
    }

    static int allocate(long deadline) {
        int n = 0;
        List<Object> keep = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            HashMap<Integer, String> m = new HashMap<>();
            for (int i = 0; i < 200; i++)
                m.put(i, "v" + i);
            keep.add(new byte[1024 + (n % 7) * 512]);
            if (keep.size() > 1000)
                keep.clear();
            n += m.size();
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        Thread cpu = new Thread(() -> sink += spin(deadline), "cpu-worker");
        Thread alloc = new Thread(() -> sink += allocate(deadline), "alloc-worker");
        cpu.start();
        alloc.start();
        cpu.join();
        alloc.join();
    }
}
