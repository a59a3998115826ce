package io.stagecoach.pipeline.transport.cudaipc;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.device.RandomTypes;
import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Gets on the emulated device, out of memory exported by this process: the four layout cases move the bytes of the
 * datatype and no other, each get ends once, in order, with a GET record in the stage trace (transfer, bytes, device,
 * a span that ends after it starts); a scattered source into another scattered layout (random pairs, and 4 MiB + 20
 * bytes, more than the scratch memory the two-kernel path had) arrives byte for byte in one copy between the layouts;
 * pinned memory of a get to host memory is kept for the next one; host memory registered for gets is counted and
 * dropped when a new range overlaps it.
 */
class IpcGetsTest
{
    private static final int BYTES = 64 * 1024;

    private final List<long[]> records = new ArrayList<>();
    private final StageTracer tracer = new StageTracer()
    {
        public boolean isEnabled()
        {
            return true;
        }

        public void record(
            final long transferId, final int chunk, final Stage stage, final long startNs, final long endNs,
            final long bytes, final int device)
        {
            records.add(new long[]{ transferId, chunk, stage.ordinal(), startNs, endNs, bytes, device });
        }
    };
    private DeviceRuntime runtime;
    private IpcGets gets;

    @BeforeEach
    void open()
    {
        runtime = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(1)
            .emulatedMemoryBytes(64L << 20));
        gets = new IpcGets(runtime, tracer);
    }

    @AfterEach
    void close()
    {
        gets.close();
        runtime.close();
    }

    @Test
    void shouldMoveTheBytesOfEachLayoutCaseAndTraceEachGetOnceInOrder()
    {
        final CompiledType contiguous = Datatype.contiguous(BYTES / 2, Datatype.BYTE).commit().compiled();
        final CompiledType strided = Datatype.vector(BYTES / 256, 128, 256, Datatype.BYTE).commit().compiled();
        final CompiledType[][] cases = {
            { contiguous, contiguous }, { contiguous, strided }, { strided, contiguous }, { strided, strided } };
        try (Allocation source = runtime.allocate(0, BYTES); Allocation destination = runtime.allocate(0, BYTES);
            DeviceStream stream = runtime.createStream(0))
        {
            final ByteBuffer pattern = ByteBuffer.allocateDirect(BYTES);
            for (int i = 0; i < BYTES; i++)
            {
                pattern.put(i, (byte)(i * 7 + 1));
            }
            stream.copy(source.address(), BufferUtil.address(pattern), BYTES);
            stream.synchronize();
            final List<Object> ended = new ArrayList<>();
            for (int i = 0; i < cases.length; i++)
            {
                final CompiledType from = cases[i][0];
                final CompiledType to = cases[i][1];
                final ByteBuffer poison = ByteBuffer.allocateDirect(BYTES);
                for (int b = 0; b < BYTES; b++)
                {
                    poison.put(b, (byte)0xA5);
                }
                stream.copy(destination.address(), BufferUtil.address(poison), BYTES);
                stream.synchronize();
                gets.start(100 + i, runtime.exportIpc(source.address(), BYTES), 0, 1, from, 0,
                    destination.address(), 1, to, BYTES / 2, "get " + i);
                while (gets.inFlight() > 0)
                {
                    gets.poll((attachment, packedAddress, failure) ->
                    {
                        assertNull(failure);
                        assertEquals(0, packedAddress);
                        ended.add(attachment);
                    });
                }
                final ByteBuffer arrived = ByteBuffer.allocateDirect(BYTES);
                stream.copy(BufferUtil.address(arrived), destination.address(), BYTES);
                stream.synchronize();
                final ByteBuffer packed = ByteBuffer.allocateDirect(BYTES / 2);
                from.pack(BufferUtil.address(pattern), 1, 0, BYTES / 2, BufferUtil.address(packed));
                to.unpack(BufferUtil.address(packed), 1, 0, BYTES / 2, BufferUtil.address(poison));
                assertEquals(-1, poison.mismatch(arrived), "case " + i);
            }
            assertEquals(List.of("get 0", "get 1", "get 2", "get 3"), ended);
            assertEquals(4, records.size());
            for (int i = 0; i < 4; i++)
            {
                final long[] record = records.get(i);
                assertEquals(100 + i, record[0]);
                assertEquals(Stage.GET.ordinal(), record[2]);
                assertTrue(record[4] >= record[3] && record[3] > 0, "a span that ends after it starts");
                assertEquals(BYTES / 2, record[5]);
                assertEquals(0, record[6]);
            }
            assertEquals(4, gets.started());
        }
    }

    @Test
    void shouldGetAScatteredMessageIntoAnotherScatteredLayoutByteForByte()
    {
        final RandomTypes random = RandomTypes.ofBytes(RandomTypes.seed("IpcGetsTest scattered to scattered"));
        final long large = (4L << 20) + 20;
        checkScatteredToScattered(Datatype.vector(large, 1, 2, Datatype.BYTE).commit().compiled(), 1,
            Datatype.vector(large / 4, 4, 7, Datatype.BYTE).commit().compiled(), 1, 3);
        int checked = 0;
        for (int t = 0; t < 40; t++)
        {
            final CompiledType from = random.next().compiled();
            final CompiledType to = random.next().compiled();
            final long count = 1 + random.nextInt(3);
            final long toCount = (count * from.size() + to.size() - 1) / to.size();
            if (from.isContiguous() || to.isContiguous() || !RandomTypes.isNonOverlapping(to, toCount))
            {
                continue;
            }
            checkScatteredToScattered(from, count, to, toCount, t);
            checked++;
        }
        assertTrue(checked >= 10, "only " + checked + " random pairs of scattered layouts");
    }

    private void checkScatteredToScattered(
        final CompiledType from, final long count, final CompiledType to, final long toCount, final int seed)
    {
        final long packedBytes = count * from.size();
        final int sourceBytes = (int)(from.dataHighBytes(count) - from.dataLowBytes(count));
        final int destinationBytes = (int)(to.dataHighBytes(toCount) - to.dataLowBytes(toCount));
        try (Allocation source = runtime.allocate(0, sourceBytes);
            Allocation destination = runtime.allocate(0, destinationBytes);
            DeviceStream stream = runtime.createStream(0))
        {
            final ByteBuffer pattern = ByteBuffer.allocateDirect(sourceBytes);
            for (int i = 0; i < sourceBytes; i++)
            {
                pattern.put(i, (byte)(i * 13 + seed));
            }
            final ByteBuffer expected = ByteBuffer.allocateDirect(destinationBytes);
            for (int i = 0; i < destinationBytes; i++)
            {
                expected.put(i, (byte)0xA5);
            }
            stream.copy(source.address(), BufferUtil.address(pattern), sourceBytes);
            stream.copy(destination.address(), BufferUtil.address(expected), destinationBytes);
            stream.synchronize();
            final long sourceBase = source.address() - from.dataLowBytes(count);
            final long destinationBase = destination.address() - to.dataLowBytes(toCount);
            gets.start(seed, runtime.exportIpc(source.address(), sourceBytes), sourceBase - source.address(), count,
                from, 0, destinationBase, toCount, to, packedBytes, "scattered " + seed);
            while (gets.inFlight() > 0)
            {
                gets.poll((attachment, packedAddress, failure) -> assertNull(failure));
            }
            final ByteBuffer arrived = ByteBuffer.allocateDirect(destinationBytes);
            stream.copy(BufferUtil.address(arrived), destination.address(), destinationBytes);
            stream.synchronize();
            final ByteBuffer packed = ByteBuffer.allocateDirect((int)packedBytes);
            from.pack(BufferUtil.address(pattern) - from.dataLowBytes(count), count, 0, packedBytes,
                BufferUtil.address(packed));
            to.unpack(BufferUtil.address(packed), toCount, 0, packedBytes,
                BufferUtil.address(expected) - to.dataLowBytes(toCount));
            assertEquals(-1, expected.mismatch(arrived), () -> packedBytes + " bytes of " + from.describe() +
                " into " + to.describe());
        }
    }

    @Test
    void shouldHandTheBytesOfAGetToHostMemoryInPinnedMemory()
    {
        final CompiledType strided = Datatype.vector(BYTES / 256, 128, 256, Datatype.BYTE).commit().compiled();
        try (Allocation source = runtime.allocate(0, BYTES); DeviceStream stream = runtime.createStream(0))
        {
            final ByteBuffer pattern = ByteBuffer.allocateDirect(BYTES);
            for (int i = 0; i < BYTES; i++)
            {
                pattern.put(i, (byte)(i * 3));
            }
            stream.copy(source.address(), BufferUtil.address(pattern), BYTES);
            stream.synchronize();
            final ByteBuffer expected = ByteBuffer.allocateDirect(BYTES / 2);
            strided.pack(BufferUtil.address(pattern), 1, 0, BYTES / 2, BufferUtil.address(expected));
            for (int round = 0; round < 2; round++)
            {
                gets.start(7, runtime.exportIpc(source.address(), BYTES), 0, 1, strided, -1, 0, 0, null, BYTES / 2,
                    round);
                final long[] seen = { 0 };
                while (gets.inFlight() > 0)
                {
                    gets.poll((attachment, packedAddress, failure) ->
                    {
                        assertNull(failure);
                        final ByteBuffer arrived = ByteBuffer.allocateDirect(BYTES / 2);
                        UnsafeApi.copyMemory(packedAddress, BufferUtil.address(arrived), BYTES / 2);
                        assertEquals(-1, expected.clear().mismatch(arrived), "the packed bytes");
                        seen[0] = packedAddress;
                    });
                }
                assertTrue(seen[0] != 0, "a host destination gets pinned memory");
            }
        }
    }

    @Test
    void shouldCopyBytesThatTheFillerPutIntoPinnedMemoryToTheDevice()
    {
        final CompiledType strided = Datatype.vector(BYTES / 256, 128, 256, Datatype.BYTE).commit().compiled();
        try (Allocation destination = runtime.allocate(0, BYTES); DeviceStream stream = runtime.createStream(0))
        {
            final ByteBuffer zeros = ByteBuffer.allocateDirect(BYTES);
            stream.copy(destination.address(), BufferUtil.address(zeros), BYTES);
            stream.synchronize();
            gets.startThroughPinned(9, pinned ->
            {
                for (int i = 0; i < BYTES / 2; i++)
                {
                    UnsafeApi.putByte(pinned + i, (byte)(i + 1));
                }
            }, BYTES / 2, 0, destination.address(), 1, strided, "filled");
            final List<Object> ended = new ArrayList<>();
            while (gets.inFlight() > 0)
            {
                gets.poll((attachment, packedAddress, failure) ->
                {
                    assertNull(failure);
                    assertEquals(0, packedAddress, "a device destination");
                    ended.add(attachment);
                });
            }
            assertEquals(List.of("filled"), ended);
            final ByteBuffer arrived = ByteBuffer.allocateDirect(BYTES);
            stream.copy(BufferUtil.address(arrived), destination.address(), BYTES);
            stream.synchronize();
            for (int i = 0; i < BYTES; i++)
            {
                final int block = i / 256;
                final int within = i % 256;
                final byte expected = within < 128 ? (byte)(block * 128 + within + 1) : 0;
                assertEquals(expected, arrived.get(i), "byte " + i);
            }
        }
    }

    @Test
    void shouldKeepRegistrationsAndDropThoseANewRangeOverlaps()
    {
        final ByteBuffer host = ByteBuffer.allocateDirect(8 * 4096);
        final long address = (BufferUtil.address(host) + 4095) & ~4095L;
        assertTrue(gets.register(address, 4096));
        assertTrue(gets.register(address, 4096));
        assertEquals(1, gets.registeredRanges());
        assertTrue(gets.register(address + 2 * 4096, 4096));
        assertEquals(2, gets.registeredRanges());
        assertTrue(gets.register(address, 3 * 4096));
        assertEquals(1, gets.registeredRanges(), "the new range dropped the two it overlaps");
    }
}
