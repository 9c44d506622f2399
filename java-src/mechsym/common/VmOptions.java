package mechsym.common;

import java.lang.management.ManagementFactory;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * The HotSpot options this JVM actually runs with, as the kernels record them
 * beside their numbers (a flag the launcher passed may have been ignored or
 * overridden, and a flag it did not pass has a default worth knowing).
 */
public final class VmOptions {
    private VmOptions() {
    }

    /** A HotSpot option's value (e.g. "true", "10000"), or "absent" when this JVM has no such option. */
    public static String value(final String option) {
        try {
            return ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(option).getValue();
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return "absent";
        }
    }
}
