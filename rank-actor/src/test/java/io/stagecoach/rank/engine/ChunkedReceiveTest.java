package io.stagecoach.rank.engine;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.stagecoach.device.MemoryRegion;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.transfer.ChunkPlan;
import io.stagecoach.pipeline.transfer.TransferHandle;
import io.stagecoach.pipeline.transport.aeron.AeronTransport;
import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import io.stagecoach.pipeline.transport.aeron.PeerAddress;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.RankInternals;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.StagecoachContext;
import io.stagecoach.rank.memory.MessageBuffer;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's side of a chunked device receive on its own, the pipeline a fake handle and the engine's queue a fake
 * sink whose commands the test runs on an engine that sends nothing: DATA pieces that arrive in any order within the
 * window land where they belong in the slots offered, each chunk goes to the pipeline once, when its last byte
 * arrived, and pieces outside the window (past the last chunk offered, or in a chunk whose slot was given to a later
 * chunk) are refused without a byte written.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChunkedReceiveTest
{
    private static final int CHUNK_BYTES = 4096;
    private static final int SLOTS = 2;
    private static final long PACKED_BYTES = 3L * CHUNK_BYTES + 1000;
    private static final int SOURCE = 1;

    @TempDir
    static Path directory;

    private EmbeddedMediaDriver driver;
    private AeronTransport transport;
    private ProgressEngine engine;

    private final ConcurrentLinkedQueue<EngineCommand> enqueued = new ConcurrentLinkedQueue<>();
    private final List<String> arrived = new ArrayList<>();

    @BeforeAll
    void attachAnEngine()
    {
        final String jobId = "chunked-receive-" + ProcessHandle.current().pid();
        final List<PeerAddress> peers = Collections.nCopies(2, PeerAddress.local("node"));
        driver = EmbeddedMediaDriver.launch(directory.resolve(jobId).toString());
        final StagecoachContext context = new StagecoachContext().rank(0).size(2).jobId(jobId).nodeName("node")
            .peers(peers).aeronDirectoryName(driver.aeronDirectoryName()).useRendezvous(false).conclude();
        engine = new ProgressEngine(0, 2, RankInternals.engineSettings(context),
            new DevicePath(null, CHUNK_BYTES, CHUNK_BYTES, SLOTS, SLOTS, 2, false, false, StageTracer.OFF));
        transport = AeronTransport.connect(
            RankInternals.transportContext(context, peers, driver.aeronDirectoryName()).listener(engine),
            error -> { });
        engine.attach(transport);
    }

    @AfterAll
    void detach()
    {
        engine.detach();
        transport.close();
        driver.close();
    }

    @Test
    void shouldPlacePiecesArrivingInAnyOrderWithinTheWindowAndRefuseThoseOutsideIt()
    {
        final long seed = Long.getLong("stagecoach.test.seed", System.nanoTime());
        System.out.println("ChunkedReceiveTest: seed " + seed + " (replay with -Dstagecoach.test.seed=" + seed + ")");
        final Random random = new Random(seed);
        final UnsafeBuffer packed = new UnsafeBuffer(ByteBuffer.allocateDirect((int)PACKED_BYTES));
        for (int i = 0; i < PACKED_BYTES; i++)
        {
            packed.putByte(i, (byte)random.nextInt());
        }
        final UnsafeBuffer[] slots = { slot(), slot() };
        final ChunkedReceive transfer = start();

        offer(transfer, 0, slots[0]);
        offer(transfer, 1, slots[1]);
        assertEquals(2L * CHUNK_BYTES, transfer.windowBytes(), "window: the end of the last chunk offered");
        assertRefused(transfer, packed, 2L * CHUNK_BYTES, 1, slots);
        assertRefused(transfer, packed, 2L * CHUNK_BYTES - 10, 20, slots);
        writeInAnyOrder(transfer, packed, 0, 2L * CHUNK_BYTES, random);
        assertEquals(List.of("0@" + slots[0].addressOffset(), "1@" + slots[1].addressOffset()),
            arrived.stream().sorted().toList(), "each chunk went to the pipeline with its slot");
        assertChunkIn(packed, 0, slots[0]);
        assertChunkIn(packed, 1, slots[1]);

        arrived.clear();
        assertRefused(transfer, packed, CHUNK_BYTES + 100, 8, slots);
        unpacked(transfer, 0);
        offer(transfer, 2, slots[0]);
        assertEquals(3L * CHUNK_BYTES, transfer.windowBytes(), "the window grew by chunk 2");
        assertRefused(transfer, packed, 100, 8, slots);
        assertRefused(transfer, packed, -8, 8, slots);
        writeInAnyOrder(transfer, packed, 2L * CHUNK_BYTES, 3L * CHUNK_BYTES, random);
        assertEquals(List.of("2@" + slots[0].addressOffset()), arrived, "chunk 2 went to the pipeline");
        assertChunkIn(packed, 2, slots[0]);

        arrived.clear();
        unpacked(transfer, 1);
        unpacked(transfer, 2);
        offer(transfer, 3, slots[1]);
        assertEquals(PACKED_BYTES, transfer.windowBytes(), "the window reaches the end of the message");
        writeInAnyOrder(transfer, packed, 3L * CHUNK_BYTES, PACKED_BYTES, random);
        assertEquals(List.of("3@" + slots[1].addressOffset()), arrived, "the last chunk went to the pipeline");
        assertChunkIn(packed, 3, slots[1]);
        unpacked(transfer, 3);
        assertTrue(transfer.isUnpacked(), "every chunk unpacked");
    }

    private ChunkedReceive start()
    {
        final Request request = RankInternals.request(engine, "irecv", SOURCE, 7, PACKED_BYTES, Datatype.BYTE);
        final ByteBuffer buffer = ByteBuffer.allocateDirect((int)PACKED_BYTES);
        final ReceiveOperation receive = new ReceiveOperation(request, SOURCE, 7, 0,
            new MessageBuffer(BufferUtil.address(buffer), BufferUtil.address(buffer), PACKED_BYTES,
            MemoryRegion.PAGEABLE_HOST, buffer), PACKED_BYTES, Datatype.BYTE.compiled(),
            new SignatureCache().lookup(Datatype.BYTE, PACKED_BYTES));
        receive.matchedSource = SOURCE;
        receive.packedBytes = PACKED_BYTES;
        final ChunkedReceive transfer = new ChunkedReceive(sink(), receive, ChunkPlan.of(PACKED_BYTES, CHUNK_BYTES),
            SLOTS, StageTracer.OFF, 0);
        transfer.handle = handle();
        receive.chunked = transfer;
        return transfer;
    }

    /**
     * Writes packed bytes [from, to) in pieces of random lengths (some across a chunk boundary), in random order; after
     * each piece, the chunks gone to the pipeline are exactly those whose every byte arrived.
     */
    private void writeInAnyOrder(
        final ChunkedReceive transfer, final UnsafeBuffer packed, final long from, final long to, final Random random)
    {
        final List<long[]> pieces = new ArrayList<>();
        for (long offset = from; offset < to; )
        {
            final long length = Math.min(to - offset, 1 + random.nextInt(1500));
            pieces.add(new long[]{ offset, length });
            offset += length;
        }
        Collections.shuffle(pieces, random);
        final int firstChunk = (int)(from / CHUNK_BYTES);
        final long[] missing = new long[(int)((to - 1) / CHUNK_BYTES) - firstChunk + 1];
        for (int i = 0; i < missing.length; i++)
        {
            missing[i] = Math.min(CHUNK_BYTES, PACKED_BYTES - (long)(firstChunk + i) * CHUNK_BYTES);
        }
        for (final long[] piece : pieces)
        {
            assertTrue(transfer.write(packed.addressOffset() + piece[0], piece[0], (int)piece[1]),
                "piece [" + piece[0] + ", " + (piece[0] + piece[1]) + ") lies within the window");
            for (long offset = piece[0]; offset < piece[0] + piece[1]; offset++)
            {
                missing[(int)(offset / CHUNK_BYTES) - firstChunk]--;
            }
            for (int i = 0; i < missing.length; i++)
            {
                final int chunk = firstChunk + i;
                assertEquals(missing[i] == 0 ? 1 : 0, arrived.stream().filter(a -> a.startsWith(chunk + "@")).count(),
                    "chunk " + chunk + " goes to the pipeline once its last byte arrived, " + missing[i] + " missing");
            }
        }
    }

    private void assertRefused(
        final ChunkedReceive transfer, final UnsafeBuffer packed, final long packedOffset, final int lengthBytes,
        final UnsafeBuffer[] slots)
    {
        final byte[][] before = new byte[slots.length][CHUNK_BYTES];
        for (int i = 0; i < slots.length; i++)
        {
            slots[i].getBytes(0, before[i]);
        }
        final UnsafeBuffer junk = new UnsafeBuffer(ByteBuffer.allocateDirect(lengthBytes));
        junk.setMemory(0, lengthBytes, (byte)0x5A);
        assertFalse(transfer.write(junk.addressOffset(), packedOffset, lengthBytes),
            "piece [" + packedOffset + ", " + (packedOffset + lengthBytes) + ") lies outside the window");
        for (int i = 0; i < slots.length; i++)
        {
            final byte[] after = new byte[CHUNK_BYTES];
            slots[i].getBytes(0, after);
            assertEquals(-1, java.util.Arrays.mismatch(before[i], after), "slot " + i + " untouched by a refused piece");
        }
        assertTrue(arrived.isEmpty() || arrived.size() == arrived.stream().distinct().count(), arrived::toString);
    }

    private static void assertChunkIn(final UnsafeBuffer packed, final int chunk, final UnsafeBuffer slot)
    {
        final int length = (int)Math.min(CHUNK_BYTES, PACKED_BYTES - (long)chunk * CHUNK_BYTES);
        for (int i = 0; i < length; i++)
        {
            assertEquals(packed.getByte(chunk * CHUNK_BYTES + i), slot.getByte(i), "byte " + i + " of chunk " + chunk);
        }
    }

    private void offer(final ChunkedReceive transfer, final int chunk, final UnsafeBuffer slot)
    {
        transfer.chunkSlot(chunk, slot.addressOffset());
        runEnqueued();
    }

    private void unpacked(final ChunkedReceive transfer, final int chunk)
    {
        transfer.chunkUnpacked(chunk);
        runEnqueued();
    }

    private void runEnqueued()
    {
        EngineCommand command;
        while ((command = enqueued.poll()) != null)
        {
            command.execute(engine);
        }
    }

    private static UnsafeBuffer slot()
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(CHUNK_BYTES, 64));
    }

    private CommandSink sink()
    {
        return new CommandSink()
        {
            public int rank()
            {
                return 0;
            }

            public void submit(final EngineCommand command)
            {
                throw new AssertionError("the pipeline's answers are only enqueued");
            }

            public void enqueue(final EngineCommand command)
            {
                enqueued.add(command);
            }
        };
    }

    private TransferHandle handle()
    {
        return new TransferHandle()
        {
            public void chunkSent(final int chunk)
            {
                throw new AssertionError("a receive sends nothing");
            }

            public void matched()
            {
                throw new AssertionError("a receive starts matched");
            }

            public void chunkArrived(final int chunk, final long hostAddress)
            {
                arrived.add(chunk + "@" + hostAddress);
            }

            public void cancel()
            {
                arrived.add("cancel");
            }
        };
    }
}
