// forklab runtime driver for Java: starts the target with ProcessBuilder and times each start to its
// reaping (waitFor), inside the JVM. Speaks the probe protocol (docs/protocol.md) on stdout/stdin.
// Run as a single-file source program (compiling it is part of start-up, before "ready"):
//   java [-Djdk.lang.Process.launchMechanism=VFORK|FORK|POSIX_SPAWN] -XmxNm ForklabDriver.java CASE target=PATH [heap-mb=N]
// Cases: default (no launchMechanism set), vfork, fork, posix_spawn (the property must say the same).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class ForklabDriver {
    static final Set<String> CASES = Set.of("default", "vfork", "fork", "posix_spawn");
    static final Set<String> KEYS = Set.of("target", "heap-mb", "heap-kind");
    static final int MIB = 1024 * 1024;
    static final String PROPERTY = "jdk.lang.Process.launchMechanism";
    /** The heap: byte arrays of 16 MB, one byte of every page written; static so it lives to the end. */
    static final List<byte[]> heap = new ArrayList<>();

    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static void line(String s) {
        System.out.print(s + "\n");
        System.out.flush();
    }

    static void fail(String call, String message) {
        line("{\"type\":\"error\",\"call\":" + json(call) + ",\"errno\":0,\"message\":" + json(message) + "}");
        System.exit(2);
    }

    static long rssKb() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status")))
                if (l.startsWith("VmRSS:")) return Long.parseLong(l.replaceAll("[^0-9]", ""));
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }

    /** A counter of /proc/thread-self/FILE (the thread that spawns), or -1 where it cannot be read. */
    static long threadCounter(String file, String key) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/thread-self/" + file)))
                if (l.startsWith(key)) return Long.parseLong(l.substring(l.indexOf(':') + 1).trim());
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }

    static long[] counters() {
        return new long[] {
            threadCounter("status", "nonvoluntary_ctxt_switches"),
            threadCounter("status", "voluntary_ctxt_switches"),
            threadCounter("sched", "se.nr_migrations"),
        };
    }

    /** The usage line: the spawning thread's switches and migrations since ready; Java cannot read its children's. */
    static void usage(long[] atReady) {
        long[] now = counters();
        if (now[0] < 0 || now[1] < 0 || atReady[0] < 0 || atReady[1] < 0) return;
        String migrations = now[2] >= 0 && atReady[2] >= 0 ? String.valueOf(now[2] - atReady[2]) : "null";
        line("{\"type\":\"usage\",\"nivcsw\":" + (now[0] - atReady[0]) + ",\"nvcsw\":" + (now[1] - atReady[1])
                + ",\"childNivcsw\":null,\"migrations\":" + migrations + "}");
    }

    static long once(ProcessBuilder pb) throws Exception {
        long t0 = System.nanoTime();
        Process p = pb.start();
        int status = p.waitFor();
        long ns = System.nanoTime() - t0;
        if (status != 0) fail("wait", "target exited with status " + status);
        return ns;
    }

    /** The driver's version is its package's: the runner refuses a driver from another forklab. */
    static String packageVersion() throws Exception {
        String file = System.getProperty("jdk.launcher.sourcefile");
        Path src = file != null ? Path.of(file).toAbsolutePath()
                : Path.of(ForklabDriver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String text = Files.readString(src.getParent().resolve("../package.json"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"").matcher(text);
        if (!m.find()) throw new IllegalStateException("no version in package.json");
        return m.group(1);
    }

    public static void main(String[] argv) throws Exception {
        String DRIVER = packageVersion();
        String caseName = argv.length > 0 ? argv[0] : null;
        line("{\"type\":\"hello\",\"protocol\":1,\"probe\":" + json(DRIVER) + ",\"case\":" + (caseName == null ? "null" : json(caseName))
                + ",\"pid\":" + ProcessHandle.current().pid() + "}");
        if (caseName == null || !CASES.contains(caseName)) fail("usage", "unknown case: " + caseName);
        Map<String, String> args = new HashMap<>();
        for (int i = 1; i < argv.length; i++) {
            int eq = argv[i].indexOf('=');
            if (eq <= 0) fail("usage", "expected key=value: " + argv[i]);
            String k = argv[i].substring(0, eq);
            if (!KEYS.contains(k)) fail("usage", "unknown argument: " + k);
            if (args.containsKey(k)) fail("usage", "repeated argument: " + k);
            args.put(k, argv[i].substring(eq + 1));
        }
        String target = args.get("target");
        if (target == null || target.isEmpty()) fail("usage", "missing argument: target");
        if (!args.getOrDefault("heap-kind", "byte-arrays").equals("byte-arrays")) fail("usage", "unknown value: heap-kind");
        long heapMb = -1;
        try {
            heapMb = Long.parseLong(args.getOrDefault("heap-mb", "0"));
        } catch (NumberFormatException e) {
            fail("usage", "not a whole number: heap-mb");
        }
        if (heapMb < 0) fail("usage", "not a whole number: heap-mb");
        String mechanism = System.getProperty(PROPERTY);
        String expected = caseName.equals("default") ? null : caseName.toUpperCase();
        if (expected == null ? mechanism != null : !expected.equals(mechanism))
            fail("usage", "case " + caseName + " needs -D" + PROPERTY + (expected == null ? " unset" : "=" + expected) + ", got " + mechanism);

        for (long left = heapMb; left > 0; left -= 16) {
            byte[] b = new byte[(int) Math.min(16, left) * MIB];
            for (int i = 0; i < b.length; i += 4096) b[i] = 1;
            heap.add(b);
        }
        line("{\"type\":\"info\",\"runtime\":\"java\",\"runtimeVersion\":" + json(System.getProperty("java.version"))
                + ",\"vm\":" + json(System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"))
                + ",\"launchMechanism\":" + (mechanism == null ? "null" : json(mechanism))
                + ",\"heapKind\":\"byte-arrays\",\"heapMb\":" + heapMb + ",\"rssKb\":" + rssKb() + "}");
        line("{\"type\":\"ready\"}");
        long[] atReady = counters();

        ProcessBuilder pb = new ProcessBuilder(target);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String l;
        while ((l = in.readLine()) != null) {
            if (l.startsWith("stop")) break;
            String[] parts = l.trim().split(" ");
            if (parts.length != 2 || !(parts[0].equals("warmup") || parts[0].equals("run")) || !parts[1].matches("[0-9]{1,8}"))
                fail("usage", "unknown command: " + l);
            int n = Integer.parseInt(parts[1]);
            if (n < 1 || n > 10_000_000) fail("usage", "iteration count out of range: " + l);
            StringBuilder ns = new StringBuilder();
            for (int i = 0; i < n; i++) {
                long t;
                try {
                    t = once(pb);
                } catch (java.io.IOException e) {
                    fail("spawn", String.valueOf(e.getMessage()));
                    return;
                }
                ns.append(i == 0 ? "" : ",").append(t);
            }
            String w = parts[0].equals("warmup") ? "true" : "false";
            line("{\"type\":\"samples\",\"series\":" + json(caseName) + ",\"warmup\":" + w + ",\"ns\":[" + ns + "]}");
            line("{\"type\":\"end\",\"warmup\":" + w + "}");
        }
        usage(atReady);
        line("{\"type\":\"done\"}");
        System.exit(0);
    }
}
