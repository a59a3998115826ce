package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;

/**
 * The process that owns a folder, as a small text file in it: its pid, its start time in clock ticks after boot (so
 * that a later process given the same pid is not taken for the owner), the boot and the pid namespace it was read in.
 * A record is taken for dead only when that is certain: another boot, or no process with that pid and start time in
 * this pid namespace.
 */
final class OwnerRecord
{
    static final String FILE_NAME = ".owner";

    private static final Path PROC = Path.of("/proc");
    private static final String UNKNOWN = "unknown";
    private static final long GONE = -1;
    private static final long UNREADABLE = -2;

    private final long pid;
    private final long startTicks;
    private final String bootId;
    private final String pidNamespace;

    OwnerRecord(final long pid, final long startTicks, final String bootId, final String pidNamespace)
    {
        this.pid = pid;
        this.startTicks = startTicks;
        this.bootId = bootId;
        this.pidNamespace = pidNamespace;
    }

    static OwnerRecord ofCurrentProcess()
    {
        final long pid = ProcessHandle.current().pid();
        return new OwnerRecord(pid, startTicks(pid), bootId(), pidNamespace());
    }

    /**
     * @return the folder's record, or null when it has none that can be read.
     */
    static OwnerRecord read(final Path folder)
    {
        try
        {
            final Map<String, String> fields = new HashMap<>();
            for (final String line : Files.readAllLines(folder.resolve(FILE_NAME), StandardCharsets.US_ASCII))
            {
                final int equals = line.indexOf('=');
                if (equals > 0)
                {
                    fields.put(line.substring(0, equals), line.substring(equals + 1));
                }
            }
            return new OwnerRecord(Long.parseLong(fields.get("pid")), Long.parseLong(fields.get("start")),
                fields.getOrDefault("boot", UNKNOWN), fields.getOrDefault("pidns", UNKNOWN));
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    /**
     * Writes the record into a folder: a temporary file moved over the name, so that a reader sees all of it or none.
     */
    void write(final Path folder) throws IOException
    {
        final Path temporary = folder.resolve(FILE_NAME + ".tmp");
        final String text = "pid=" + pid + "\nstart=" + startTicks + "\nboot=" + bootId + "\npidns=" + pidNamespace +
            "\n";
        try (FileChannel channel = PrivateDirectory.createFile(temporary))
        {
            channel.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
        }
        Files.move(temporary, folder.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE);
    }

    long pid()
    {
        return pid;
    }

    /**
     * @return false only when the owner is certainly gone.
     */
    boolean isAlive()
    {
        final String boot = bootId();
        if (!UNKNOWN.equals(bootId) && !UNKNOWN.equals(boot) && !bootId.equals(boot))
        {
            return false;
        }
        if (!pidNamespace.equals(pidNamespace()) || startTicks < 0)
        {
            return true;
        }
        final long now = startTicks(pid);
        return now == startTicks || now == UNREADABLE;
    }

    public String toString()
    {
        return "pid " + pid + " (started at tick " + startTicks + ")";
    }

    /**
     * @return the process's start time in clock ticks after boot; {@link #GONE} when there is no such process or it
     * is a zombie, {@link #UNREADABLE} when that cannot be told.
     */
    static long startTicks(final long pid)
    {
        try
        {
            final String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return "Z".equals(fields[0]) ? GONE : Long.parseLong(fields[19]);
        }
        catch (final NoSuchFileException ex)
        {
            return GONE;
        }
        catch (final IOException | RuntimeException ex)
        {
            return UNREADABLE;
        }
    }

    private static String bootId()
    {
        try
        {
            return Files.readString(PROC.resolve("sys/kernel/random/boot_id")).trim();
        }
        catch (final IOException | RuntimeException ex)
        {
            return UNKNOWN;
        }
    }

    private static String pidNamespace()
    {
        try
        {
            return Files.readSymbolicLink(PROC.resolve("self/ns/pid")).toString();
        }
        catch (final IOException | RuntimeException ex)
        {
            return UNKNOWN;
        }
    }
}
