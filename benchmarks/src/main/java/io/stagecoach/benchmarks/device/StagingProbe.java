package io.stagecoach.benchmarks.device;

import java.nio.ByteBuffer;
import java.time.Duration;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.stage.InlineStaging;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.Stagecoach;
import io.stagecoach.rank.StagecoachContext;

/**
 * Where the time of a small device message goes, in one process: the inline staging calls alone (device to pinned
 * host, pinned host to device), then a message a rank sends to itself with device buffers on both ends and with host
 * buffers on both ends (the same engine, transport and matching, no second process). Prints medians and 90th
 * percentiles in microseconds.
 * <p>
 * Usage: {@code StagingProbe [bytes] [iterations]} (defaults 8 and 5000); the device layer and the device are chosen
 * as everywhere ({@code STAGECOACH_DEVICE}, {@code STAGECOACH_DEVICE_ORDINAL}, else the local rank).
 */
public final class StagingProbe
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private StagingProbe()
    {
    }

    /**
     * @param args message bytes and iterations, both optional.
     */
    public static void main(final String[] args)
    {
        final int bytes = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        final int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        try (DeviceRuntime runtime = DeviceRuntime.open())
        {
            System.out.println("# staging probe: " + bytes + " B, " + iterations + " iterations, " + runtime.kind() +
                " device " + runtime.defaultDevice() + " of " + runtime.deviceCount());
            staging(runtime, bytes, iterations);
            selfMessages(runtime, bytes, iterations);
        }
    }

    private static void staging(final DeviceRuntime runtime, final int bytes, final int iterations)
    {
        final CompiledType type = Datatype.BYTE.compiled();
        final InlineStaging staging = new InlineStaging(runtime);
        try (Allocation source = runtime.allocate(bytes); Allocation target = runtime.allocate(bytes))
        {
            final Samples pack = new Samples(iterations);
            final Samples unpack = new Samples(iterations);
            for (int i = -iterations / 10; i < iterations; i++)
            {
                final long startNs = System.nanoTime();
                final PackedHostBuffer packed =
                    staging.packToHostNow(source.address(), source.device(), bytes, type, bytes);
                final long packedNs = System.nanoTime();
                staging.unpackToDeviceNow(packed, bytes, target.address(), target.device(), bytes, type);
                final long doneNs = System.nanoTime();
                if (i >= 0)
                {
                    pack.add(packedNs - startNs);
                    unpack.add(doneNs - packedNs);
                }
            }
            row("packToHostNow (device -> pinned host, inline)", pack);
            row("unpackToDeviceNow (pinned host -> device, inline)", unpack);
        }
        finally
        {
            staging.close();
        }
    }

    private static void selfMessages(final DeviceRuntime runtime, final int bytes, final int iterations)
    {
        final StagecoachContext context = new StagecoachContext().rank(0).size(1).jobId("probe-" +
            ProcessHandle.current().pid()).nodeName("probe").useRendezvous(false).deviceRuntime(runtime);
        try (Communicator self = Stagecoach.init(context);
            Allocation source = runtime.allocate(bytes);
            Allocation target = runtime.allocate(bytes))
        {
            final ByteBuffer hostOut = ByteBuffer.allocateDirect(bytes);
            final ByteBuffer hostIn = ByteBuffer.allocateDirect(bytes);
            final Samples device = new Samples(iterations);
            final Samples host = new Samples(iterations);
            for (int i = -iterations / 10; i < iterations; i++)
            {
                final long startNs = System.nanoTime();
                final Request in = self.irecv(target, bytes, Datatype.BYTE, 0, 1);
                self.isend(source, bytes, Datatype.BYTE, 0, 1).await(TIMEOUT);
                in.await(TIMEOUT);
                final long deviceNs = System.nanoTime();
                final Request hostReceive = self.irecv(hostIn, bytes, Datatype.BYTE, 0, 2);
                self.isend(hostOut, bytes, Datatype.BYTE, 0, 2).await(TIMEOUT);
                hostReceive.await(TIMEOUT);
                final long hostNs = System.nanoTime();
                if (i >= 0)
                {
                    device.add(deviceNs - startNs);
                    host.add(hostNs - deviceNs);
                }
            }
            row("message to self, device buffers both ends", device);
            row("message to self, host buffers both ends", host);
        }
    }

    private static void row(final String what, final Samples samples)
    {
        System.out.printf("%-52s median %8.2f us   p90 %8.2f us%n", what, samples.medianMicros(),
            samples.percentileMicros(90));
    }
}
