package io.stagecoach.node.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the commands of a deployment test, each with a bound on its time, its output (standard error with it) kept in
 * a numbered log file of the test's private folder.
 */
final class Shell
{
    /**
     * What a command did.
     *
     * @param command  the command.
     * @param exitCode its exit status.
     * @param output   its output and errors.
     */
    record Result(List<String> command, int exitCode, String output)
    {
        boolean succeeded()
        {
            return exitCode == 0;
        }

        /**
         * @return the result, where the command exited 0.
         * @throws AssertionError naming the command, its status and its output otherwise.
         */
        Result orFail()
        {
            if (exitCode != 0)
            {
                throw new AssertionError(String.join(" ", command) + " exited " + exitCode + ":\n" + output);
            }
            return this;
        }
    }

    private final Path logFolder;
    private final AtomicInteger count = new AtomicInteger();

    /**
     * @param logFolder the private folder that gets one log file per command.
     */
    Shell(final Path logFolder)
    {
        this.logFolder = logFolder;
    }

    Result run(final long timeoutSeconds, final String... command) throws IOException, InterruptedException
    {
        return run(timeoutSeconds, null, Map.of(), List.of(command));
    }

    /**
     * @param timeoutSeconds how long the command may take; it is killed after that and the test fails.
     * @param directory      its working folder, or null for the test's.
     * @param environment    variables to add to (or, with a null value, remove from) the test's environment.
     * @param command        the command.
     * @return what it did.
     */
    Result run(final long timeoutSeconds, final Path directory, final Map<String, String> environment,
        final List<String> command) throws IOException, InterruptedException
    {
        return run(timeoutSeconds, directory, environment, command, Path.of("/dev/null"));
    }

    /**
     * @param input the file the command reads as its standard input.
     */
    Result run(final long timeoutSeconds, final Path directory, final Map<String, String> environment,
        final List<String> command, final Path input) throws IOException, InterruptedException
    {
        final Path log = logFolder.resolve(String.format("%02d-%s.log", count.incrementAndGet(),
            Path.of(command.get(0)).getFileName()));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(input.toFile()));
        if (directory != null)
        {
            builder.directory(directory.toFile());
        }
        environment.forEach((name, value) ->
        {
            if (value == null)
            {
                builder.environment().remove(name);
            }
            else
            {
                builder.environment().put(name, value);
            }
        });
        final Process process = builder.start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
        {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", command) + " did not end within " + timeoutSeconds +
                " s; its output so far:\n" + Files.readString(log));
        }
        return new Result(List.copyOf(command), process.exitValue(), Files.readString(log));
    }

    /**
     * @return a new command: {@code prefix} followed by {@code rest}.
     */
    static List<String> concat(final List<String> prefix, final String... rest)
    {
        final List<String> all = new ArrayList<>(prefix);
        all.addAll(List.of(rest));
        return all;
    }
}
