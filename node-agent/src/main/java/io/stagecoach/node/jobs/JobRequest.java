package io.stagecoach.node.jobs;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A job as {@code stagecoach run -H ...} submits it to the local agent, and as agents pass it on to the agents of its
 * nodes: what to run, where, and how. Each node resolves the program and runs it with its own Stagecoach, Java and
 * class path, as {@code mpirun} expects the same installation on every node.
 *
 * @param size          ranks of the job.
 * @param hosts         the nodes and their slots.
 * @param program       a built-in name or a main class.
 * @param arguments     for the program.
 * @param classPath     entries after Stagecoach's own, or empty.
 * @param jvmOptions    for every rank's JVM.
 * @param environment   variables every rank gets.
 * @param tagOutput     prefix each line of rank output with {@code [rank]}.
 * @param oversubscribe allow more ranks than slots.
 * @param timeoutMs     end the job this long after its start, 0 for never.
 */
public record JobRequest(int size, List<HostSlots> hosts, String program, List<String> arguments, String classPath,
    List<String> jvmOptions, Map<String, String> environment, boolean tagOutput, boolean oversubscribe, long timeoutMs)
{
    /** The most ranks of a job. */
    public static final int MAX_SIZE = 65536;

    /**
     * @throws IllegalArgumentException naming the value and its limit.
     */
    public JobRequest
    {
        if (size < 1 || size > MAX_SIZE)
        {
            throw new IllegalArgumentException("-n must be from 1 to " + MAX_SIZE + ", not " + size);
        }
        if (hosts.isEmpty())
        {
            throw new IllegalArgumentException("a job across nodes needs at least one node");
        }
        if (timeoutMs < 0)
        {
            throw new IllegalArgumentException("timeout must not be negative, not " + timeoutMs + " ms");
        }
        hosts = List.copyOf(hosts);
        arguments = List.copyOf(arguments);
        jvmOptions = List.copyOf(jvmOptions);
        environment = Map.copyOf(environment);
    }

    /**
     * @return the request as one word of Base64, for the control socket.
     */
    public String toText()
    {
        return Base64.getEncoder().encodeToString(toBytes());
    }

    /**
     * @param text what {@link #toText()} made.
     * @return the request.
     * @throws IllegalArgumentException where the text is not a request.
     */
    public static JobRequest fromText(final String text)
    {
        return fromBytes(Base64.getDecoder().decode(text.strip()));
    }

    byte[] toBytes()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            write(out);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    static JobRequest fromBytes(final byte[] bytes)
    {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            return read(in);
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new IllegalArgumentException("not a job request: " + ex.getMessage(), ex);
        }
    }

    void write(final DataOutputStream out) throws IOException
    {
        out.writeInt(size);
        out.writeInt(hosts.size());
        for (final HostSlots host : hosts)
        {
            Codec.writeString(out, host.node());
            out.writeInt(host.slots());
        }
        Codec.writeString(out, program);
        Codec.writeStrings(out, arguments);
        Codec.writeString(out, classPath);
        Codec.writeStrings(out, jvmOptions);
        Codec.writeMap(out, environment);
        out.writeBoolean(tagOutput);
        out.writeBoolean(oversubscribe);
        out.writeLong(timeoutMs);
    }

    static JobRequest read(final DataInputStream in) throws IOException
    {
        final int size = in.readInt();
        final int hostCount = Codec.count(in.readInt());
        final HostSlots[] hosts = new HostSlots[hostCount];
        for (int i = 0; i < hostCount; i++)
        {
            hosts[i] = new HostSlots(Codec.readString(in), in.readInt());
        }
        return new JobRequest(size, List.of(hosts), Codec.readString(in), Codec.readStrings(in),
            Codec.readString(in), Codec.readStrings(in), Codec.readMap(in), in.readBoolean(), in.readBoolean(),
            in.readLong());
    }
}
