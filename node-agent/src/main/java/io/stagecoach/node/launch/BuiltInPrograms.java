package io.stagecoach.node.launch;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Short names for programs shipped with Stagecoach, resolved to main classes when a job is launched (so the
 * launcher does not depend on the modules that hold them: the benchmarks, and the examples such as {@code lbm}, depend
 * on the rank runtime and are found on the class path that bin/stagecoach or a bundle gives the ranks).
 */
public final class BuiltInPrograms
{
    private static final Map<String, String> PROGRAMS = new LinkedHashMap<>();

    static
    {
        PROGRAMS.put("latency", "io.stagecoach.benchmarks.omb.Latency");
        PROGRAMS.put("actor-latency", "io.stagecoach.benchmarks.omb.ActorLatency");
        PROGRAMS.put("bw", "io.stagecoach.benchmarks.omb.Bandwidth");
        PROGRAMS.put("bibw", "io.stagecoach.benchmarks.omb.BiBandwidth");
        PROGRAMS.put("halo", "io.stagecoach.benchmarks.omb.Halo");
        PROGRAMS.put("lbm", "io.stagecoach.examples.lbm.Lbm");
    }

    private BuiltInPrograms()
    {
    }

    /**
     * @return built-in names and their main classes, in a stable order.
     */
    public static Map<String, String> table()
    {
        return Collections.unmodifiableMap(PROGRAMS);
    }

    /**
     * @return the built-in names, in a stable order, comma separated.
     */
    public static String names()
    {
        return String.join(", ", PROGRAMS.keySet());
    }

    /**
     * @param program a built-in name or a class name.
     * @return the main class the program names.
     */
    public static String mainClassOf(final String program)
    {
        return PROGRAMS.getOrDefault(program, program);
    }

    /**
     * @param program a name.
     * @return whether it is a built-in name.
     */
    public static boolean isBuiltIn(final String program)
    {
        return PROGRAMS.containsKey(program);
    }
}
