package io.stagecoach.benchmarks.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints {@code MAIN <rank> <epoch microseconds>} as its {@code main} starts and exits: the moment a job's rank (or
 * a JVM started by hand) reaches {@code main}, for the job start overhead of {@code stagecoach run}. With a file as
 * its argument it also writes its own java command there (java, JVM options, class path and class), so that the
 * same JVM can be started by hand.
 */
public final class MainEntry
{
    private MainEntry()
    {
    }

    /**
     * @param args optionally a file for the command line.
     * @throws IOException where the file cannot be written.
     */
    public static void main(final String[] args) throws IOException
    {
        final Instant now = Instant.now();
        final long micros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        System.out.println("MAIN " + System.getenv().getOrDefault("STAGECOACH_RANK", "-") + " " + micros);
        if (args.length > 0)
        {
            final ProcessHandle.Info info = ProcessHandle.current().info();
            final List<String> command = new ArrayList<>();
            command.add(info.command().orElse("java"));
            final List<String> arguments = List.of(info.arguments().orElse(new String[0]));
            command.addAll(arguments.subList(0, arguments.indexOf(MainEntry.class.getName()) + 1));
            Files.writeString(Path.of(args[0]), String.join("\n", command) + "\n", StandardCharsets.UTF_8);
        }
    }
}
