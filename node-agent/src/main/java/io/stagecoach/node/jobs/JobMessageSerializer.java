package io.stagecoach.node.jobs;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;

import io.stagecoach.node.agent.JobSettings;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Writes the messages agents send each other about jobs ({@link JobMessage}): fields in order, strings and lists
 * length-prefixed with bounds on what is read, actor references in Pekko's text form. Java serialization stays off.
 */
public final class JobMessageSerializer extends SerializerWithStringManifest
{
    private static final int IDENTIFIER = 0x53434a42;
    private static final String START = "start";
    private static final String END = "end";
    private static final String OUTPUT = "out";
    private static final String EXITED = "exited";
    private static final String ENDED = "ended";
    private static final String TRACE = "trace";
    private static final String TRACE_ACK = "trace-ack";
    private static final int MAX_TRACE_BYTES = PartTraceForwarder.BATCH_RECORDS * JobTraceMerge.ENTRY_LENGTH;
    private static final int MAX_TRACE_RANKS = JobSettings.PORTS_PER_JOB;

    private final ExtendedActorSystem system;
    private volatile ActorRefResolver resolver;

    /**
     * @param system the actor system, for actor references.
     */
    public JobMessageSerializer(final ExtendedActorSystem system)
    {
        this.system = system;
    }

    public int identifier()
    {
        return IDENTIFIER;
    }

    public String manifest(final Object message)
    {
        if (message instanceof JobsBehavior.StartPart)
        {
            return START;
        }
        if (message instanceof JobsBehavior.EndPart)
        {
            return END;
        }
        if (message instanceof JobCoordinator.PartOutput)
        {
            return OUTPUT;
        }
        if (message instanceof JobCoordinator.PartRankExited)
        {
            return EXITED;
        }
        if (message instanceof JobCoordinator.PartEnded)
        {
            return ENDED;
        }
        if (message instanceof JobTraceMerge.PartTrace)
        {
            return TRACE;
        }
        if (message instanceof JobTraceMerge.TraceAck)
        {
            return TRACE_ACK;
        }
        throw new IllegalArgumentException("not a job message: " + message.getClass().getName());
    }

    public byte[] toBinary(final Object message)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            write(message, out);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        return bytes.toByteArray();
    }

    public Object fromBinary(final byte[] bytes, final String manifest) throws NotSerializableException
    {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            return read(manifest, in);
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new NotSerializableException("job message " + manifest + ": " + ex);
        }
    }

    private void write(final Object message, final DataOutputStream out) throws IOException
    {
        if (message instanceof JobsBehavior.StartPart start)
        {
            Codec.writeString(out, start.jobId());
            Codec.writeString(out, resolver().toSerializationFormat(start.coordinator()));
            start.request().write(out);
            Codec.writeRanks(out, start.ranks());
            Codec.writeString(out, start.rendezvous());
            Codec.writeString(out, start.secret());
            Codec.writeString(out, null == start.trace() ? "" : resolver().toSerializationFormat(start.trace()));
        }
        else if (message instanceof JobsBehavior.EndPart end)
        {
            Codec.writeString(out, end.jobId());
            Codec.writeString(out, end.reason());
        }
        else if (message instanceof JobCoordinator.PartOutput output)
        {
            Codec.writeString(out, output.node());
            out.writeBoolean(output.error());
            Codec.writeString(out, output.line());
        }
        else if (message instanceof JobCoordinator.PartRankExited exited)
        {
            Codec.writeString(out, exited.node());
            out.writeInt(exited.rank());
            out.writeInt(exited.status());
            Codec.writeString(out, exited.description());
        }
        else if (message instanceof JobCoordinator.PartEnded ended)
        {
            Codec.writeString(out, ended.node());
            out.writeInt(ended.status());
            Codec.writeString(out, ended.message());
        }
        else if (message instanceof JobTraceMerge.PartTrace trace)
        {
            Codec.writeString(out, trace.node());
            out.writeLong(trace.sequence());
            out.writeLong(trace.epochOffsetNs());
            out.writeInt(trace.records().length);
            out.write(trace.records());
            out.writeInt(trace.droppedRanks().length);
            for (int i = 0; i < trace.droppedRanks().length; i++)
            {
                out.writeInt(trace.droppedRanks()[i]);
                out.writeLong(trace.dropped()[i]);
            }
            out.writeBoolean(trace.last());
            Codec.writeString(out, resolver().toSerializationFormat(trace.replyTo()));
        }
        else if (message instanceof JobTraceMerge.TraceAck ack)
        {
            out.writeLong(ack.sequence());
        }
        else
        {
            throw new IllegalArgumentException("not a job message: " + message.getClass().getName());
        }
    }

    private Object read(final String manifest, final DataInputStream in) throws IOException
    {
        switch (manifest)
        {
            case START:
                final String jobId = Codec.readString(in);
                final ActorRef<JobCoordinator.Command> coordinator = resolver().resolveActorRef(Codec.readString(in));
                final JobRequest request = JobRequest.read(in);
                final int[] ranks = Codec.readRanks(in);
                final String rendezvous = Codec.readString(in);
                final String secret = Codec.readString(in);
                // an agent of an earlier version writes no trace: its parts show on their own nodes' dashboards
                final String trace = in.available() > 0 ? Codec.readString(in) : "";
                return new JobsBehavior.StartPart(jobId, coordinator, request, ranks, rendezvous, secret,
                    trace.isEmpty() ? null : resolver().resolveActorRef(trace));
            case END:
                return new JobsBehavior.EndPart(Codec.readString(in), Codec.readString(in));
            case OUTPUT:
                return new JobCoordinator.PartOutput(Codec.readString(in), in.readBoolean(), Codec.readString(in));
            case EXITED:
                return new JobCoordinator.PartRankExited(Codec.readString(in), in.readInt(), in.readInt(),
                    Codec.readString(in));
            case ENDED:
                return new JobCoordinator.PartEnded(Codec.readString(in), in.readInt(), Codec.readString(in));
            case TRACE:
                return readTrace(in);
            case TRACE_ACK:
                return new JobTraceMerge.TraceAck(in.readLong());
            default:
                throw new IOException("unknown manifest '" + manifest + "'");
        }
    }

    private JobTraceMerge.PartTrace readTrace(final DataInputStream in) throws IOException
    {
        final String node = Codec.readString(in);
        final long sequence = in.readLong();
        final long epochOffsetNs = in.readLong();
        final int length = in.readInt();
        if (length < 0 || length > MAX_TRACE_BYTES || length % JobTraceMerge.ENTRY_LENGTH != 0)
        {
            throw new IOException("a trace batch of " + length + " bytes (at most " + MAX_TRACE_BYTES + ", whole " +
                "records of " + JobTraceMerge.ENTRY_LENGTH + ")");
        }
        final byte[] records = in.readNBytes(length);
        if (records.length != length)
        {
            throw new IOException("a trace batch cut short at " + records.length + " of " + length + " bytes");
        }
        final int count = in.readInt();
        if (count < 0 || count > MAX_TRACE_RANKS)
        {
            throw new IOException("dropped counts of " + count + " ranks (at most " + MAX_TRACE_RANKS + ")");
        }
        final int[] ranks = new int[count];
        final long[] dropped = new long[count];
        for (int i = 0; i < count; i++)
        {
            ranks[i] = in.readInt();
            dropped[i] = in.readLong();
        }
        final boolean last = in.readBoolean();
        final ActorRef<JobTraceMerge.TraceAck> replyTo = resolver().resolveActorRef(Codec.readString(in));
        return new JobTraceMerge.PartTrace(node, sequence, epochOffsetNs, records, ranks, dropped, last, replyTo);
    }

    private ActorRefResolver resolver()
    {
        ActorRefResolver current = resolver;
        if (null == current)
        {
            current = ActorRefResolver.get(Adapter.toTyped(system));
            resolver = current;
        }
        return current;
    }
}
