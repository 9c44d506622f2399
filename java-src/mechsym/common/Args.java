package mechsym.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code --name=value} arguments. Every getter names the argument and what is
 * allowed when the value does not fit; {@link #finish()} rejects names that no
 * getter asked for, so a typo never silently falls back to a default; an
 * argument given twice is refused (which of the two would count is a guess a
 * sweep must never depend on).
 */
public final class Args {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Set<String> used = new TreeSet<>();
    /** Set only by {@link Defaults#of}: every getter's name and fallback, in the order asked. */
    private Map<String, String> fallbacks;

    public Args(final String[] args) {
        for (final String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new BadArgument("argument '" + arg + "': expected --name=value");
            }
            final int eq = arg.indexOf('=');
            final String name = arg.substring(2, eq);
            final String earlier = values.put(name, arg.substring(eq + 1));
            if (earlier != null) {
                throw new BadArgument("--" + name + ": given twice (--" + name + "=" + earlier + " and " + arg
                                      + "); give it once");
            }
        }
    }

    public static Args of(final String... args) {
        return new Args(args);
    }

    /** Record each getter's fallback from now on, and end the body at {@link #finish()} (for {@link Defaults}). */
    Map<String, String> recordFallbacks() {
        fallbacks = new LinkedHashMap<>();
        return fallbacks;
    }

    public boolean has(final String name) {
        return values.containsKey(name);
    }

    public String string(final String name, final String fallback) {
        if (fallbacks != null) {
            fallbacks.putIfAbsent(name, fallback == null ? "" : fallback);
        }
        used.add(name);
        final String v = values.get(name);
        return v == null ? fallback : v;
    }

    /** One of a fixed list of names; an unknown name lists the known ones. */
    public String choice(final String name, final String fallback, final List<String> allowed) {
        final String v = string(name, fallback);
        if (!allowed.contains(v)) {
            throw new BadArgument("--" + name + "=" + v + ": allowed values are " + String.join(", ", allowed));
        }
        return v;
    }

    public long longValue(final String name, final long fallback, final long min, final long max) {
        if (fallbacks != null) {
            fallbacks.putIfAbsent(name, Long.toString(fallback));
        }
        final String v = string(name, null);
        if (v == null) {
            return fallback;
        }
        final long parsed;
        try {
            parsed = Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new BadArgument("--" + name + "=" + v + ": not a whole number (allowed " + min + ".." + max + ")");
        }
        if (parsed < min || parsed > max) {
            throw new BadArgument("--" + name + "=" + v + ": out of range (allowed " + min + ".." + max + ")");
        }
        return parsed;
    }

    public int intValue(final String name, final int fallback, final int min, final int max) {
        return (int) longValue(name, fallback, min, max);
    }

    /**
     * A comma-separated list of CPU ids, or empty for none. Every id must be a
     * CPU that is online ({@code /sys/devices/system/cpu/online}; not checked
     * when that file cannot be read), so that pinning can only fail later for a
     * reason of the machine's, not of the arguments.
     */
    public int[] cpuList(final String name) {
        final String v = string(name, "");
        if (v.isEmpty()) {
            return new int[0];
        }
        final int[] cpus;
        try {
            // split(",", -1) keeps empty items: "," or "0," is refused, not read as "none" or "0"
            cpus = Arrays.stream(v.split(",", -1)).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        } catch (NumberFormatException e) {
            throw new BadArgument("--" + name + "=" + v + ": expected comma-separated CPU ids such as 0,1");
        }
        final String online = onlineCpus();
        for (final int cpu : cpus) {
            if (cpu < 0 || !(online.isEmpty() || listContains(online, cpu))) {
                throw new BadArgument("--" + name + "=" + v + ": CPU " + cpu + " is not online (online CPUs: "
                                      + (online.isEmpty() ? "unknown" : online) + ")");
            }
        }
        return cpus;
    }

    /**
     * No CPU ids, or exactly two (one for each of a kernel's two threads, in
     * the order {@code roles} names them, e.g. "producer, consumer"), each
     * online as for {@link #cpuList}.
     */
    public int[] cpuPair(final String name, final String roles) {
        final int[] cpus = cpuList(name);
        if (cpus.length != 0 && cpus.length != 2) {
            throw new BadArgument("--" + name + "=" + values.get(name) + ": give two CPU ids (" + roles + "), e.g. --"
                                  + name + "=0,1, or none");
        }
        return cpus;
    }

    /** The ids in the form {@link #cpuList} reads (0,1), for messages and CSV cells. */
    public static String join(final int[] ids) {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < ids.length; i++) {
            sb.append(i == 0 ? "" : ",").append(ids[i]);
        }
        return sb.toString();
    }

    /** The content of /sys/devices/system/cpu/online (e.g. "0-1"), or "" when it cannot be read. */
    static String onlineCpus() {
        try {
            return Files.readString(Path.of("/sys/devices/system/cpu/online")).strip();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Whether a Linux CPU list ("0-3,6") holds {@code cpu}; true when the list cannot be parsed. */
    static boolean listContains(final String list, final int cpu) {
        for (final String part : list.split(",")) {
            final String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            final int dash = p.indexOf('-');
            try {
                final int lo = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
                final int hi = dash < 0 ? lo : Integer.parseInt(p.substring(dash + 1));
                if (cpu >= lo && cpu <= hi) {
                    return true;
                }
            } catch (NumberFormatException e) {
                return true;
            }
        }
        return false;
    }

    /** Rejects any argument that no getter asked for. */
    public void finish() {
        if (fallbacks != null) {
            throw Defaults.reached();
        }
        for (final String name : values.keySet()) {
            if (!used.contains(name)) {
                throw new BadArgument("--" + name + ": unknown argument (known: " + String.join(", ", used) + ")");
            }
        }
    }
}
