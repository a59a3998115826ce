package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.engine.DevicePath;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Device buffers end to end on the emulated device: every pair of host and device memory, eager and rendezvous,
 * contiguous and strided datatypes on the device side; small ones staged on the engine's thread, large ones through
 * the stage pipeline in chunks of 4 KiB (many chunks per message, blocks straddling chunk boundaries).
 */
class DeviceBufferTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int THRESHOLD = 4096;
    private static final int CHUNK = 4096;

    @TempDir
    static Path directory;

    private static DeviceRuntime device;
    private static LocalJob job;

    @BeforeAll
    static void start()
    {
        device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(2)
            .emulatedMemoryBytes(256L << 20));
        job = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(THRESHOLD).deviceRuntime(device)
            .chunkBytes(CHUNK).devicePath("staged"));
    }

    @AfterAll
    static void stop()
    {
        job.close();
        device.close();
    }

    @ParameterizedTest(name = "{0} -> {1}, {2} doubles, strided={3}")
    @CsvSource({
        "host, device, 100, false", "device, host, 100, false", "device, device, 100, false",
        "host, device, 100000, false", "device, host, 100000, false", "device, device, 100000, false",
        "device, device, 300, true", "device, host, 50000, true", "host, device, 50000, true",
        "device, device, 0, false", "device, device, 511, false", "device, device, 512, false",
        "device, device, 513, false", "device, device, 200000, false", "host, device, 200000, true",
        "device, device, 1536, false", "device, device, 1537, false", "device, device, 1535, true" })
    void shouldMoveDataBetweenHostAndDeviceMemory(
        final String from, final String to, final int doubles, final boolean strided)
    {
        final Datatype every = strided ? Datatype.vector(doubles, 1, 3, Datatype.DOUBLE).commit() : Datatype.DOUBLE;
        final long count = strided ? 1 : doubles;
        final int spanBytes = Math.max(8, (strided ? 3 * doubles : doubles) * 8);
        final ByteBuffer source = ByteBuffer.allocateDirect(spanBytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < spanBytes / 8; i++)
        {
            source.putDouble(i * 8, i * 1.5 + doubles);
        }
        final Buffer sendBuffer = Buffer.of(from, source, spanBytes, 0);
        final Buffer receiveBuffer = Buffer.of(to, null, spanBytes, 1);
        try
        {
            final Request receive = receiveBuffer.allocation != null ?
                job.rank(1).irecv(receiveBuffer.allocation, count, every, 0, 7) :
                job.rank(1).irecv(receiveBuffer.host, count, every, 0, 7);
            final Request send = sendBuffer.allocation != null ?
                job.rank(0).isend(sendBuffer.allocation.address(), spanBytes, count, every, 1, 7) :
                job.rank(0).isend(sendBuffer.host, count, every, 1, 7);
            send.await(TIMEOUT);
            assertEquals(count, receive.await(TIMEOUT).count());

            final ByteBuffer arrived = receiveBuffer.toHost(spanBytes);
            final int stride = strided ? 3 : 1;
            for (int i = 0; i < doubles; i++)
            {
                assertEquals(i * stride * 1.5 + doubles, arrived.getDouble(i * stride * 8), "double " + i);
            }
            if (strided && doubles > 1)
            {
                assertEquals(0.0, arrived.getDouble(8), "gaps stay untouched");
            }
        }
        finally
        {
            sendBuffer.free();
            receiveBuffer.free();
        }
    }

    @Test
    void shouldStageSmallDeviceMessagesOnTheEngineThreadAndLargeOnesThroughThePipeline()
    {
        final DevicePath sender = devicePath(job.rank(0));
        final DevicePath receiver = devicePath(job.rank(1));
        final int smallDoubles = THRESHOLD / 8;
        final Allocation from = device.allocate(0, 8 * 100_000);
        final Allocation to = device.allocate(1, 8 * 100_000);
        try
        {
            final long sentBefore = sender.transfersStarted();
            final long receivedBefore = receiver.transfersStarted();
            for (int i = 0; i < 20; i++)
            {
                final Request receive = job.rank(1).irecv(to, smallDoubles, Datatype.DOUBLE, 0, 11);
                job.rank(0).isend(from, smallDoubles, Datatype.DOUBLE, 1, 11).await(TIMEOUT);
                assertEquals(smallDoubles, receive.await(TIMEOUT).count());
            }
            assertEquals(sentBefore, sender.transfersStarted(), "small sends were staged on the engine thread");
            assertEquals(receivedBefore, receiver.transfersStarted(), "small receives were staged on the engine thread");

            final long arenaChunksBefore = job.rank(1).engine().counters(0)[9];
            final Request receive = job.rank(1).irecv(to, 100_000, Datatype.DOUBLE, 0, 12);
            job.rank(0).isend(from, 100_000, Datatype.DOUBLE, 1, 12).await(TIMEOUT);
            assertEquals(100_000, receive.await(TIMEOUT).count());
            assertEquals(arenaChunksBefore + (800_000 + CHUNK - 1) / CHUNK, job.rank(1).engine().counters(0)[9],
                "every chunk of a same-node device message was taken out of the sender's arena in place");
            assertEquals(sentBefore + 1, sender.transfersStarted(), "a large send goes through the pipeline");
            assertEquals(receivedBefore + 1, receiver.transfersStarted(), "a large receive goes through the pipeline");
        }
        finally
        {
            from.free();
            to.free();
        }
    }

    @Test
    void shouldDetectDeviceMemoryFromARawAddressOnce()
    {
        final Allocation memory = device.allocate(1, 4096);
        try
        {
            final long queries = device.driverQueryCount();
            final Request receive = job.rank(1).irecv(memory.address() + 64, 1024, 100, Datatype.INT, 0, 8);
            job.rank(0).send(ByteBuffer.allocateDirect(400), 100, Datatype.INT, 1, 8);
            assertEquals(100, receive.await(TIMEOUT).count());
            final Request again = job.rank(1).irecv(memory.address() + 64, 1024, 100, Datatype.INT, 0, 8);
            job.rank(0).send(ByteBuffer.allocateDirect(400), 100, Datatype.INT, 1, 8);
            again.await(TIMEOUT);
            assertEquals(queries, device.driverQueryCount(), "the memory map answers, not the driver");
        }
        finally
        {
            memory.free();
        }
    }

    @Test
    void shouldRefuseFreedAndOverrunDeviceBuffers()
    {
        final Allocation memory = device.allocate(0, 1024);
        final long address = memory.address();
        final Request overrun = job.rank(0).isend(address, 4096, 1024, Datatype.INT, 1, 9);
        assertInstanceOf(IllegalArgumentException.class, overrun.status().error());
        assertTrue(overrun.status().error().getMessage().contains("runs past the end of its allocation"));
        memory.free();

        final Request freed = job.rank(0).isend(memory, 4, Datatype.INT, 1, 9);
        assertTrue(freed.status().error().getMessage().contains("was freed"), freed::toString);
        final Request freedAddress = job.rank(0).isend(address, 16, 4, Datatype.INT, 1, 9);
        assertTrue(freedAddress.status().error().getMessage().contains("freed"), freedAddress::toString);
    }

    /**
     * An empty message may name a buffer of no bytes anywhere, as in MPI: one past the end of a device allocation
     * lies in no allocation, and nothing is read or written there.
     */
    @Test
    void shouldMoveAnEmptyMessageFromAndToTheEndOfADeviceAllocation()
    {
        final Allocation from = device.allocate(0, 1000);
        final Allocation to = device.allocate(1, 1000);
        try
        {
            final Request receive = job.rank(1).irecv(to.address() + 1000, 0, 0, Datatype.INT, 0, 10);
            job.rank(0).isend(from.address() + 1000, 0, 0, Datatype.INT, 1, 10).await(TIMEOUT);
            assertEquals(0, receive.await(TIMEOUT).count(), "instances received");
        }
        finally
        {
            from.free();
            to.free();
        }
    }

    private static DevicePath devicePath(final Communicator rank)
    {
        return rank.engine().device();
    }

    /**
     * A test buffer in host or device memory.
     */
    private static final class Buffer
    {
        final ByteBuffer host;
        final Allocation allocation;

        private Buffer(final ByteBuffer host, final Allocation allocation)
        {
            this.host = host;
            this.allocation = allocation;
        }

        static Buffer of(final String kind, final ByteBuffer content, final int bytes, final int deviceOrdinal)
        {
            if (kind.equals("host"))
            {
                final ByteBuffer host = content != null ? content :
                    ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
                return new Buffer(host, null);
            }
            final Allocation allocation = device.allocate(deviceOrdinal, bytes);
            final ByteBuffer initial = content != null ? content : ByteBuffer.allocateDirect(bytes);
            copy(deviceOrdinal, allocation.address(), BufferUtil.address(initial), bytes);
            return new Buffer(null, allocation);
        }

        ByteBuffer toHost(final int bytes)
        {
            if (host != null)
            {
                return host;
            }
            final ByteBuffer copy = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
            copy(allocation.device(), BufferUtil.address(copy), allocation.address(), bytes);
            return copy;
        }

        void free()
        {
            if (allocation != null)
            {
                allocation.free();
            }
        }

        private static void copy(final int deviceOrdinal, final long dst, final long src, final long bytes)
        {
            try (DeviceStream stream = device.createStream(deviceOrdinal))
            {
                stream.copy(dst, src, bytes);
                stream.synchronize();
            }
        }
    }
}
