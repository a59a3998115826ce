package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A JVM with this one's class path running a main class of the tests; its standard error goes to this one's.
 */
final class ChildJvm
{
    private ChildJvm()
    {
    }

    static Process start(final List<String> jvmOptions, final Map<String, String> environment,
        final Class<?> mainClass, final String... arguments) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(List.of(arguments));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(environment);
        return builder.start();
    }
}
