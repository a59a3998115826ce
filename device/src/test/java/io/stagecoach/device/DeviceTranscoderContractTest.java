package io.stagecoach.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The copy between two layouts ({@link DeviceTranscoder}) on each back end, checked byte for byte against the datatype
 * engine's pack then unpack on the host, every destination poisoned first: random pairs of layouts and byte ranges,
 * edge sizes copied whole and in chunks with a completion event (twice, so that CUDA's cached graphs run too), mapped
 * host memory on either side, and the refusals.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
public abstract class DeviceTranscoderContractTest
{
    private static final byte POISON = (byte)0xA5;
    private static final int CHUNK_BYTES = 64 * 1024;
    private static final long[] EDGE_SIZES = { 1, CHUNK_BYTES - 1, CHUNK_BYTES, CHUNK_BYTES + 1, (4L << 20) + 20 };

    protected DeviceRuntime runtime;
    protected DeviceStream stream;

    /**
     * @return a runtime of the back end under test (skip with an assumption when it cannot run here).
     */
    protected abstract DeviceRuntime openRuntime();

    /**
     * @return random pairs of layouts per byte-for-byte test.
     */
    protected int randomPairCount()
    {
        return 150;
    }

    @BeforeAll
    void openRuntimeAndStream()
    {
        runtime = openRuntime();
        stream = runtime.createStream(0);
    }

    @AfterAll
    void closeRuntime()
    {
        if (runtime != null)
        {
            runtime.close();
        }
    }

    @Test
    public void shouldBuildOneTranscoderPerPairOfDatatypesAndDevice()
    {
        final CompiledType column = Datatype.vector(8, 1, 3, Datatype.INT).commit().compiled();
        final CompiledType pairs = Datatype.vector(4, 2, 5, Datatype.INT).commit().compiled();
        final DeviceTranscoder transcoder = runtime.transcoder(column, pairs, 0);
        assertSame(transcoder, runtime.transcoder(column, pairs, 0));
        assertSame(column, transcoder.source());
        assertSame(pairs, transcoder.destination());
        assertTrue(transcoder != runtime.transcoder(pairs, column, 0), "the other direction is another pair");
    }

    @Test
    public void shouldCopyBetweenRandomLayoutsAndRangesByteForByte()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("transcode"));
        int checked = 0;
        for (int t = 0; t < randomPairCount(); t++)
        {
            final CompiledType from = random.next().compiled();
            final CompiledType to = random.next().compiled();
            final long count = 1 + random.nextInt(4);
            final long total = count * from.size();
            final long toCount = (total + to.size() - 1) / to.size();
            if (RandomTypes.isNonOverlapping(to, toCount))
            {
                for (final long[] range : ranges(random, total))
                {
                    check(random, from, count, to, toCount, range[0], range[1], false, false);
                }
                checked++;
            }
        }
        assertTrue(checked > randomPairCount() / 2, "only " + checked + " pairs with a destination without overlap");
    }

    @Test
    public void shouldCopyEdgeSizesWholeAndInChunksWithACompletionEvent()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("transcode edge sizes"));
        for (final long size : EDGE_SIZES)
        {
            final CompiledType evens = Datatype.vector(size, 1, 2, Datatype.BYTE).commit().compiled();
            final CompiledType thirds = Datatype.vector(size, 1, 3, Datatype.BYTE).commit().compiled();
            final long head = size / 3;
            final CompiledType twoBlocks = Datatype.hindexed(new int[] {(int)head, (int)(size - head)},
                new long[] {0, head + 7}, Datatype.BYTE).commit().compiled();
            final CompiledType shorts = size % 2 == 0 ?
                Datatype.vector(size / 2, 1, 3, Datatype.SHORT).commit().compiled() : thirds;
            checkInChunks(random, evens, thirds, size);
            checkInChunks(random, evens, twoBlocks, size);
            checkInChunks(random, shorts, evens, size);
        }
    }

    @Test
    public void shouldRecordTheEventAloneForAnEmptyRange()
    {
        final CompiledType column = Datatype.vector(8, 1, 3, Datatype.INT).commit().compiled();
        try (Allocation a = runtime.allocate(0, 4096); Allocation b = runtime.allocate(0, 4096);
            DeviceEvent done = runtime.createEvent(0))
        {
            runtime.transcoder(column, column, 0).transcode(stream, a.address(), 1, b.address(), 1, 32, 0, done);
            awaitPolling(done);
        }
    }

    @Test
    public void shouldCopyOutOfAndIntoMappedHostMemory()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("transcode host memory"));
        for (int t = 0; t < randomPairCount() / 5; t++)
        {
            final CompiledType from = random.next().compiled();
            final CompiledType to = random.next().compiled();
            final long total = 2 * from.size();
            final long toCount = (total + to.size() - 1) / to.size();
            if (RandomTypes.isNonOverlapping(to, toCount))
            {
                check(random, from, 2, to, toCount, 0, total, t % 2 == 0, t % 2 == 1);
            }
        }
    }

    @Test
    public void shouldCopyARangeInOneRunOnBothSidesAsAPlainCopy()
    {
        final CompiledType rows = Datatype.vector(16, 64, 100, Datatype.BYTE).commit().compiled();
        final CompiledType other = Datatype.vector(8, 128, 130, Datatype.BYTE).commit().compiled();
        final RandomTypes random = new RandomTypes(RandomTypes.seed("transcode one run"));
        check(random, rows, 1, other, 1, 130, 60, false, false);
        check(random, rows, 1, other, 1, 0, 64, false, false);
    }

    @Test
    public void shouldNameARangeBeyondEitherStreamAndAFootprintBeyondItsAllocation()
    {
        final CompiledType column = Datatype.vector(64, 1, 2, Datatype.INT).commit().compiled();
        final CompiledType row = Datatype.contiguous(32, Datatype.INT).commit().compiled();
        final DeviceTranscoder transcoder = runtime.transcoder(column, row, 0);
        try (Allocation typed = runtime.allocate(0, 1024); Allocation small = runtime.allocate(0, 256))
        {
            final IllegalArgumentException beyond = assertThrows(IllegalArgumentException.class,
                () -> transcoder.transcode(stream, typed.address(), 2, small.address(), 2, 0, 257));
            assertEquals("copy destination: packed range [0, 257) exceeds the 256 packed bytes of 2 instances of " +
                "128 bytes", beyond.getMessage());
            final DeviceException overrun = assertThrows(DeviceException.class,
                () -> transcoder.transcode(stream, small.address(), 1, typed.address(), 8, 0, 256));
            assertTrue(overrun.getMessage().startsWith("copy source (datatype footprint)"), overrun.getMessage());
            assertTrue(overrun.getMessage().contains("overruns"), overrun.getMessage());
            final HostBuffer pageable = new HostBuffer(1024);
            final DeviceException host = assertThrows(DeviceException.class,
                () -> transcoder.transcode(stream, typed.address(), 1, pageable.address(), 8, 0, 256));
            assertTrue(host.getMessage().contains("no device-accessible allocation"), host.getMessage());
        }
    }

    /**
     * One copy of [offset, offset + length) from {@code count} instances of {@code from} to {@code toCount} of
     * {@code to}, checked against the host's pack then unpack over the whole destination buffer.
     */
    private void check(final RandomTypes random, final CompiledType from, final long count, final CompiledType to,
        final long toCount, final long offset, final long length, final boolean pinnedSource,
        final boolean pinnedDestination)
    {
        final Buffers buffers = new Buffers(random, from, count, to, toCount, pinnedSource, pinnedDestination);
        try
        {
            runtime.transcoder(from, to, 0).transcode(stream, buffers.sourceBase, count, buffers.destinationBase,
                toCount, offset, length);
            stream.synchronize();
            buffers.verify(offset, length, "range [" + offset + ", +" + length + ")");
        }
        finally
        {
            buffers.free();
        }
    }

    /**
     * The whole message copied in chunks of {@link #CHUNK_BYTES}, each with a completion event awaited by polling,
     * twice over (the second time each chunk is a call seen before), then whole at once.
     */
    private void checkInChunks(final RandomTypes random, final CompiledType from, final CompiledType to,
        final long size)
    {
        final Buffers buffers = new Buffers(random, from, 1, to, 1, false, false);
        try (DeviceEvent done = runtime.createEvent(0))
        {
            final DeviceTranscoder transcoder = runtime.transcoder(from, to, 0);
            for (int pass = 0; pass < 2; pass++)
            {
                buffers.poison();
                for (long offset = 0; offset < size; offset += CHUNK_BYTES)
                {
                    final long length = Math.min(CHUNK_BYTES, size - offset);
                    transcoder.transcode(stream, buffers.sourceBase, 1, buffers.destinationBase, 1, offset, length,
                        done);
                    awaitPolling(done);
                }
                buffers.verify(0, size, size + " bytes in chunks, pass " + pass);
            }
            buffers.poison();
            transcoder.transcode(stream, buffers.sourceBase, 1, buffers.destinationBase, 1, 0, size, done);
            awaitPolling(done);
            buffers.verify(0, size, size + " bytes whole");
        }
        finally
        {
            buffers.free();
        }
    }

    private static List<long[]> ranges(final RandomTypes random, final long total)
    {
        final List<long[]> ranges = new ArrayList<>();
        ranges.add(new long[] {0, total});
        ranges.add(new long[] {0, 1});
        ranges.add(new long[] {total - 1, 1});
        final long offset = random.nextLong(total);
        ranges.add(new long[] {offset, 1 + random.nextLong(total - offset)});
        return ranges;
    }

    private static void awaitPolling(final DeviceEvent event)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!event.isComplete())
        {
            if (System.nanoTime() > deadline)
            {
                fail("the copy's event did not complete within 30 s");
            }
            Thread.onSpinWait();
        }
    }

    /** Both typed buffers of a copy, with slack around them, and the source's bytes. */
    private final class Buffers
    {
        private final CompiledType from;
        private final long count;
        private final CompiledType to;
        private final long toCount;
        private final byte[] values;
        private final int destinationBytes;
        private final Allocation source;
        private final Allocation destination;
        private final long sourceSlack;
        private final long destinationSlack;
        final long sourceBase;
        final long destinationBase;

        Buffers(final RandomTypes random, final CompiledType from, final long count, final CompiledType to,
            final long toCount, final boolean pinnedSource, final boolean pinnedDestination)
        {
            this.from = from;
            this.count = count;
            this.to = to;
            this.toCount = toCount;
            final long fromLow = from.dataLowBytes(count);
            final int sourceBytes = (int)(from.dataHighBytes(count) - fromLow) + 32;
            final long toLow = to.dataLowBytes(toCount);
            destinationBytes = (int)(to.dataHighBytes(toCount) - toLow) + 32;
            values = new byte[sourceBytes];
            random.nextBytes(values);
            sourceSlack = random.nextInt(16) - fromLow;
            destinationSlack = random.nextInt(16) - toLow;
            source = pinnedSource ? runtime.allocatePinned(sourceBytes) : runtime.allocate(0, sourceBytes);
            destination = pinnedDestination ? runtime.allocatePinned(destinationBytes) :
                runtime.allocate(0, destinationBytes);
            sourceBase = source.address() + sourceSlack;
            destinationBase = destination.address() + destinationSlack;
            upload(source.address(), values);
            poison();
        }

        void poison()
        {
            final byte[] poison = new byte[destinationBytes];
            Arrays.fill(poison, POISON);
            upload(destination.address(), poison);
        }

        void verify(final long offset, final long length, final String what)
        {
            final HostBuffer typed = new HostBuffer(values.length);
            typed.put(values);
            final HostBuffer packed = new HostBuffer((int)length);
            from.pack(typed.address() + sourceSlack, count, offset, length, packed.address());
            final HostBuffer expected = new HostBuffer(destinationBytes);
            expected.fill(POISON, destinationBytes);
            to.unpack(packed.address(), toCount, offset, length, expected.address() + destinationSlack);
            final byte[] want = expected.get(destinationBytes);
            final byte[] got = download(destination.address(), destinationBytes);
            if (!Arrays.equals(want, got))
            {
                fail(what + " x" + count + " to x" + toCount + ": first difference at byte " +
                    Arrays.mismatch(want, got) + " of " + destinationBytes + "\n" + from.describe() + to.describe());
            }
            assertEquals(destinationBytes, got.length);
        }

        void free()
        {
            source.free();
            destination.free();
        }
    }

    private void upload(final long address, final byte[] bytes)
    {
        final HostBuffer host = new HostBuffer(bytes.length);
        host.put(bytes);
        stream.copy(address, host.address(), bytes.length);
        stream.synchronize();
    }

    private byte[] download(final long address, final int length)
    {
        final HostBuffer host = new HostBuffer(length);
        stream.copy(host.address(), address, length);
        stream.synchronize();
        return host.get(length);
    }
}
