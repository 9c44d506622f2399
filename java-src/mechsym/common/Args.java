package mechsym.common;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code --name=value} arguments. Every getter names the argument and what is
 * allowed when the value does not fit; {@link #finish()} rejects names that no
 * getter asked for, so a typo never silently falls back to a default.
 */
public final class Args {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Set<String> used = new TreeSet<>();

    public Args(final String[] args) {
        for (final String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new BadArgument("argument '" + arg + "': expected --name=value");
            }
            final int eq = arg.indexOf('=');
            values.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
    }

    public static Args of(final String... args) {
        return new Args(args);
    }

    public boolean has(final String name) {
        return values.containsKey(name);
    }

    public String string(final String name, final String fallback) {
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

    /** A comma-separated list of CPU ids, or empty for none. */
    public int[] cpuList(final String name) {
        final String v = string(name, "");
        if (v.isEmpty()) {
            return new int[0];
        }
        try {
            return Arrays.stream(v.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        } catch (NumberFormatException e) {
            throw new BadArgument("--" + name + "=" + v + ": expected comma-separated CPU ids such as 0,1");
        }
    }

    /** Rejects any argument that no getter asked for. */
    public void finish() {
        for (final String name : values.keySet()) {
            if (!used.contains(name)) {
                throw new BadArgument("--" + name + ": unknown argument (known: " + String.join(", ", used) + ")");
            }
        }
    }
}
