package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.RandomTypes;
import io.stagecoach.device.TestMemory;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.engine.ProgressEngine;
import org.agrona.BufferUtil;

/**
 * A rank process for {@link DeviceIpcSystemTest}, one of two ranks of a job on one node, each with a device runtime
 * of its own on the emulated device (its folder from {@link DeviceContext#EMULATED_DIRECTORY_VARIABLE}, which both
 * ranks share). Rank 0 sends, rank 1 receives; both derive the same messages from the seed they are given.
 * <p>
 * Mode {@code auto} or {@code staged} (the {@code stagecoach.device.path} of both ranks): one message per case of
 * {@link #derive(long, int)}, in a random layout on each side, poisoned and checked byte for byte by the receiver,
 * which prints a {@code CASE} line per message with the delta of its counter of device messages got over IPC and a
 * CRC of its whole destination buffer, then a {@code TOTAL} line. Mode {@code kill}: the receiver gets one large
 * device message from the same send buffer {@link #REPEATS} times and prints the IPC mappings it holds after each;
 * the sender then leaves a large send unmatched, starts a send that takes the receiver's device a while to get
 * ({@link #slowType}) and waits to be killed, while the receiver waits on a receive from it that can only fail and on
 * the slow get; the receiver then checks that nothing writes into the slow receive's buffer once its request ended,
 * receives the message left behind, and reports the mappings it holds once the sender is lost. Mode {@code release}:
 * the receiver gets a large scattered message of one layout of bytes into another from one send buffer
 * {@link #RELEASE_ROUNDS} times and prints the mappings it holds after each; once the receiver said it looked, the
 * sender frees the buffer and says so
 * in a small message, and the receiver prints the mappings it holds once the sender's IPC_RELEASE came; the sender then
 * sends other bytes from a new buffer of the same length (at the freed one's address, where the allocator puts it
 * there), which the receiver checks byte for byte with the mappings it holds then, and frees it once the receiver
 * said it looked; the receiver prints the mappings it holds once that IPC_RELEASE came too.
 */
public final class DeviceIpcRankMain
{
    static final int THRESHOLD = 1024;
    static final long CHUNK_BYTES = 64 * 1024;
    static final long[] SIZES = { 0, 1, THRESHOLD, THRESHOLD + 1, 300_001, (4L << 20) + 20 };
    static final int REPEATS = 8;
    static final long KILL_MESSAGE_BYTES = (2L << 20) + 13;
    static final int TAG_REPEAT = 1000;
    static final int TAG_NEVER = 2000;
    static final int TAG_LEFT_BEHIND = 2001;
    static final int TAG_SLOW = 2002;
    static final long SLOW_BYTES = 48L << 20;
    static final int RELEASE_ROUNDS = 3;
    static final long RELEASE_MESSAGE_BYTES = (1L << 20) + 7;
    static final int TAG_RELEASE = 3000;
    static final int TAG_FREED = 3100;
    static final int TAG_AGAIN = 3101;
    static final int TAG_REPORTED = 3102;

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int IPC_GETS = 10;
    private static final int IPC_RELEASES = 11;
    private static final long RELEASE_WAIT_MS = 5000;
    private static final int SENDER = 0;
    private static final int RECEIVER = 1;

    /** Where the message lies on each side. */
    enum Direction
    {
        D_TO_D(true, true),
        D_TO_H(true, false),
        H_TO_D(false, true);

        final boolean fromDevice;
        final boolean toDevice;

        Direction(final boolean fromDevice, final boolean toDevice)
        {
            this.fromDevice = fromDevice;
            this.toDevice = toDevice;
        }
    }

    /** The layouts of the two sides: the device operations of a get over IPC into device memory. */
    enum Layouts
    {
        /** One random layout of mixed basic types on both sides: one copy kernel between the two layouts. */
        SAME,
        /** A random layout of bytes sent, received as contiguous bytes: one pack kernel. */
        TO_CONTIGUOUS,
        /** Contiguous bytes sent, received as a random layout of bytes: one unpack kernel. */
        FROM_CONTIGUOUS,
        /** Two random layouts of bytes of one packed size: one copy kernel between the two layouts. */
        OTHER,
        /** Contiguous bytes on both sides: one copy. */
        CONTIGUOUS
    }

    /**
     * One message, as both ranks derive it from the seed and its index.
     *
     * @param source the bytes of the sender's whole buffer, from displacement {@code -sendPad}.
     */
    record Case(
        int index,
        Direction direction,
        long packedBytes,
        Layouts layouts,
        ExactMessage send,
        int sendPad,
        int sendLength,
        ExactMessage receive,
        int receivePad,
        int receiveLength,
        ByteBuffer source)
    {
        int tag()
        {
            return index + 1;
        }

        /**
         * @return the case's number, direction, size, layouts and whether the send type runs contiguous.
         */
        String name()
        {
            return index + " " + direction + " " + packedBytes + " " + layouts + " " +
                (send.type().compiled().isContiguous() ? "run" : "scattered");
        }
    }

    private DeviceIpcRankMain()
    {
    }

    /**
     * @param args the mode ({@code auto}, {@code staged} or {@code kill}) and the seed.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final String mode = args[0];
        final long seed = Long.parseLong(args[1]);
        final String directory = System.getenv(DeviceContext.EMULATED_DIRECTORY_VARIABLE);
        if (directory == null)
        {
            throw new IllegalStateException(DeviceContext.EMULATED_DIRECTORY_VARIABLE + " is not set");
        }
        try (DeviceRuntime device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED)
            .emulatedDeviceCount(1).emulatedMemoryBytes(512L << 20));
             Communicator world = Stagecoach.init(new StagecoachContext().deviceRuntime(device)
                 .eagerThresholdBytes(THRESHOLD).chunkBytes(CHUNK_BYTES)
                 .devicePath(mode.equals("staged") ? "staged" : "auto").deviceIpcThresholdBytes(0)))
        {
            System.out.println("START rank=" + world.rank() + " mode=" + mode + " seed=" + seed + " devices=" +
                directory + " open=" + device.openIpcCount());
            System.out.flush();
            if (mode.equals("release"))
            {
                if (world.rank() == SENDER)
                {
                    sendFreeAndSendAgain(world, device, seed);
                }
                else
                {
                    receiveAcrossTheFree(world, device, seed);
                }
            }
            else if (mode.equals("kill"))
            {
                if (world.rank() == SENDER)
                {
                    sendThenWaitToBeKilled(world, device, seed);
                }
                else
                {
                    receiveUntilTheSenderIsLost(world, device, seed);
                }
            }
            else if (world.rank() == SENDER)
            {
                for (int index = 0; index < caseCount(); index++)
                {
                    send(world, device, derive(seed, index));
                }
                System.out.println("SENT " + caseCount());
            }
            else
            {
                receiveEveryCase(world, device, seed);
            }
        }
        System.out.println("DONE");
        System.out.flush();
    }

    /**
     * @return cases of modes auto and staged: each size, each direction, each pair of layouts.
     */
    static int caseCount()
    {
        return SIZES.length * Direction.values().length * Layouts.values().length;
    }

    /**
     * @param index in [0, {@link #caseCount()}).
     * @return the case, derived from the seed and its index alone.
     */
    static Case derive(final long seed, final int index)
    {
        final int layouts = Layouts.values().length;
        final int directions = Direction.values().length;
        return derive(seed, index, Direction.values()[index / layouts % directions],
            SIZES[index / (layouts * directions)], Layouts.values()[index % layouts]);
    }

    private static Case derive(
        final long seed, final int index, final Direction direction, final long packedBytes, final Layouts layouts)
    {
        final long caseSeed = seed ^ (index + 1) * 0x9E3779B97F4A7C15L;
        final RandomTypes random = new RandomTypes(caseSeed);
        final RandomTypes bytes = RandomTypes.ofBytes(~caseSeed);
        final ExactMessage send;
        final ExactMessage receive;
        switch (layouts)
        {
            case SAME ->
            {
                send = ExactMessage.of(random, packedBytes, CHUNK_BYTES);
                receive = send;
            }
            case TO_CONTIGUOUS ->
            {
                send = ExactMessage.of(bytes, packedBytes, CHUNK_BYTES);
                receive = ExactMessage.contiguous((int)packedBytes);
            }
            case FROM_CONTIGUOUS ->
            {
                send = ExactMessage.contiguous((int)packedBytes);
                receive = ExactMessage.of(bytes, packedBytes, CHUNK_BYTES);
            }
            case OTHER ->
            {
                send = ExactMessage.of(bytes, packedBytes, CHUNK_BYTES);
                receive = ExactMessage.of(bytes, packedBytes, CHUNK_BYTES);
            }
            default ->
            {
                send = ExactMessage.contiguous((int)packedBytes);
                receive = send;
            }
        }
        final int sendPad = random.nextInt(256);
        final int sendLength = sendPad + send.spanBytes() + random.nextInt(256);
        final int receivePad = random.nextInt(256);
        final int receiveLength = receivePad + receive.spanBytes() + random.nextInt(256);
        return new Case(index, direction, packedBytes, layouts, send, sendPad, sendLength, receive, receivePad,
            receiveLength, TestBytes.random(random, sendLength));
    }

    private static void send(final Communicator world, final DeviceRuntime device, final Case message)
    {
        try (TestMemory from = TestMemory.of(message.direction().fromDevice, device, 0, message.sendLength()))
        {
            from.write(message.source());
            world.isend(from.address() + message.sendPad(), message.sendLength() - message.sendPad(),
                message.send().count(), message.send().type(), RECEIVER, message.tag()).await(TIMEOUT);
        }
    }

    private static void receiveEveryCase(final Communicator world, final DeviceRuntime device, final long seed)
    {
        final ProgressEngine engine = world.engine();
        final long ipcBefore = engine.counters(SENDER)[IPC_GETS];
        final long getsBefore = engine.device().ipcGets();
        int wrong = 0;
        for (int index = 0; index < caseCount(); index++)
        {
            final Case message = derive(seed, index);
            final long before = engine.counters(SENDER)[IPC_GETS];
            final ByteBuffer poison = TestBytes.poison(message.receiveLength());
            final ByteBuffer expected = expected(message, poison);
            final ByteBuffer arrived;
            final long count;
            try (TestMemory to = TestMemory.of(message.direction().toDevice, device, 0, message.receiveLength()))
            {
                to.write(poison);
                count = world.irecv(to.address() + message.receivePad(),
                    message.receiveLength() - message.receivePad(), message.receive().count(),
                    message.receive().type(), SENDER, message.tag()).await(TIMEOUT).count();
                arrived = to.read();
            }
            final long ipc = engine.counters(SENDER)[IPC_GETS] - before;
            final int mismatch = expected.limit(message.receiveLength()).mismatch(arrived);
            final long size = message.receive().type().size();
            final boolean ok = mismatch == -1 && count == (size == 0 ? 0 : message.packedBytes() / size);
            wrong += ok ? 0 : 1;
            System.out.println("CASE " + message.name() + " ipc=" + ipc + " count=" + count + " crc=" +
                crc(arrived) + (ok ? " OK" : " WRONG " + describe(message, mismatch, expected, arrived, poison)));
        }
        System.out.println("TOTAL cases=" + caseCount() + " wrong=" + wrong + " ipc=" +
            (engine.counters(SENDER)[IPC_GETS] - ipcBefore) + " gets=" + (engine.device().ipcGets() - getsBefore) +
            " open=" + device.openIpcCount());
        System.out.flush();
    }

    private static void sendThenWaitToBeKilled(final Communicator world, final DeviceRuntime device, final long seed)
        throws InterruptedException
    {
        final Case message = killMessage(seed);
        try (TestMemory from = TestMemory.device(device, 0, message.sendLength());
             TestMemory slow = TestMemory.device(device, 0, (int)(2 * SLOW_BYTES)))
        {
            from.write(message.source());
            for (int round = 0; round < REPEATS; round++)
            {
                world.isend(from.address() + message.sendPad(), message.sendLength() - message.sendPad(),
                    message.send().count(), message.send().type(), RECEIVER, TAG_REPEAT + round).await(TIMEOUT);
            }
            final Request leftBehind = world.isend(from.address() + message.sendPad(),
                message.sendLength() - message.sendPad(), message.send().count(), message.send().type(), RECEIVER,
                TAG_LEFT_BEHIND);
            final Request inFlight = world.isend(slow.address(), 2 * SLOW_BYTES, 1, slowType(2), RECEIVER, TAG_SLOW);
            System.out.println("READY " + leftBehind + " " + inFlight);
            System.out.flush();
            Thread.sleep(60_000);
        }
    }

    private static void receiveUntilTheSenderIsLost(
        final Communicator world, final DeviceRuntime device, final long seed) throws InterruptedException
    {
        final ProgressEngine engine = world.engine();
        final Case message = killMessage(seed);
        final ByteBuffer poison = TestBytes.poison(message.receiveLength());
        final ByteBuffer expected = expected(message, poison);
        final int slowLength = (int)(3 * SLOW_BYTES);
        try (TestMemory to = TestMemory.device(device, 0, message.receiveLength());
             TestMemory slow = TestMemory.device(device, 0, slowLength))
        {
            for (int round = 0; round < REPEATS; round++)
            {
                final long before = engine.counters(SENDER)[IPC_GETS];
                to.write(poison);
                world.irecv(to.address() + message.receivePad(), message.receiveLength() - message.receivePad(),
                    message.receive().count(), message.receive().type(), SENDER, TAG_REPEAT + round).await(TIMEOUT);
                final int mismatch = expected.clear().limit(message.receiveLength()).mismatch(to.read());
                System.out.println("REPEAT " + round + " ipc=" + (engine.counters(SENDER)[IPC_GETS] - before) +
                    " open=" + device.openIpcCount() + (mismatch == -1 ? " OK" : " WRONG at byte " + mismatch));
            }
            final Request never = world.irecv(ByteBuffer.allocateDirect(64), 16, Datatype.INT, SENDER, TAG_NEVER);
            final Request inFlight = world.irecv(slow.address(), slowLength, 1, slowType(3), SENDER, TAG_SLOW);
            final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
            while ((world.iprobe(SENDER, TAG_LEFT_BEHIND).isEmpty() || engine.device().ipcGets() <= REPEATS) &&
                System.nanoTime() - deadlineNs < 0)
            {
                Thread.onSpinWait();
            }
            System.out.println("WAITING open=" + device.openIpcCount() + " probed=" +
                world.iprobe(SENDER, TAG_LEFT_BEHIND).isPresent() + " getting=" +
                (engine.device().ipcGets() > REPEATS) + " done=" + inFlight.isDone());
            System.out.flush();
            report("FAILED", never);
            report("IN-FLIGHT", inFlight);
            System.out.println("LATE-WRITES " + lateWrites(slow, slowLength));
            to.write(poison);
            report("LEFT-BEHIND", world.irecv(to.address() + message.receivePad(),
                message.receiveLength() - message.receivePad(), message.receive().count(), message.receive().type(),
                SENDER, TAG_LEFT_BEHIND));
            final long settleNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (device.openIpcCount() != 0 && System.nanoTime() - settleNs < 0)
            {
                Thread.sleep(10);
            }
            System.out.println("OPEN-AFTER-LOSS " + device.openIpcCount() + " gets=" + engine.device().ipcGets());
            System.out.flush();
        }
    }

    private static void sendFreeAndSendAgain(final Communicator world, final DeviceRuntime device, final long seed)
    {
        final Case message = releaseMessage(seed);
        final long freedAddress;
        try (TestMemory from = TestMemory.device(device, 0, message.sendLength()))
        {
            freedAddress = from.address();
            from.write(message.source());
            for (int round = 0; round < RELEASE_ROUNDS; round++)
            {
                world.isend(from.address() + message.sendPad(), message.sendLength() - message.sendPad(),
                    message.send().count(), message.send().type(), RECEIVER, TAG_RELEASE + round).await(TIMEOUT);
            }
            world.irecv(ByteBuffer.allocateDirect(8), 8, Datatype.BYTE, RECEIVER, TAG_REPORTED).await(TIMEOUT);
        }
        world.isend(ByteBuffer.allocateDirect(8), 8, Datatype.BYTE, RECEIVER, TAG_FREED).await(TIMEOUT);
        try (TestMemory again = TestMemory.device(device, 0, message.sendLength()))
        {
            again.write(flipped(message.source()));
            System.out.println("AGAIN same-address=" + (again.address() == freedAddress));
            world.isend(again.address() + message.sendPad(), message.sendLength() - message.sendPad(),
                message.send().count(), message.send().type(), RECEIVER, TAG_AGAIN).await(TIMEOUT);
            world.irecv(ByteBuffer.allocateDirect(8), 8, Datatype.BYTE, RECEIVER, TAG_REPORTED).await(TIMEOUT);
        }
        System.out.println("SENT-AGAIN");
        System.out.flush();
    }

    private static void receiveAcrossTheFree(final Communicator world, final DeviceRuntime device, final long seed)
        throws InterruptedException
    {
        final ProgressEngine engine = world.engine();
        final Case message = releaseMessage(seed);
        final ByteBuffer poison = TestBytes.poison(message.receiveLength());
        try (TestMemory to = TestMemory.device(device, 0, message.receiveLength()))
        {
            final ByteBuffer expected = expected(message, poison);
            for (int round = 0; round < RELEASE_ROUNDS; round++)
            {
                final long before = engine.counters(SENDER)[IPC_GETS];
                to.write(poison);
                receive(world, message, to, TAG_RELEASE + round);
                final int mismatch = expected.clear().limit(message.receiveLength()).mismatch(to.read());
                System.out.println("HELD " + round + " ipc=" + (engine.counters(SENDER)[IPC_GETS] - before) +
                    " open=" + device.openIpcCount() + (mismatch == -1 ? " OK" : " WRONG at byte " + mismatch));
            }
            world.isend(ByteBuffer.allocateDirect(8), 8, Datatype.BYTE, SENDER, TAG_REPORTED).await(TIMEOUT);
            world.irecv(ByteBuffer.allocateDirect(8), 8, Datatype.BYTE, SENDER, TAG_FREED).await(TIMEOUT);
            awaitRelease(engine, device, "RELEASED", 1);
            final Case again = new Case(message.index(), message.direction(), message.packedBytes(),
                message.layouts(), message.send(), message.sendPad(), message.sendLength(), message.receive(),
                message.receivePad(), message.receiveLength(), flipped(message.source()));
            final ByteBuffer expectedAgain = expected(again, poison);
            final long before = engine.counters(SENDER)[IPC_GETS];
            to.write(poison);
            receive(world, again, to, TAG_AGAIN);
            final int mismatch = expectedAgain.clear().limit(message.receiveLength()).mismatch(to.read());
            System.out.println("AGAIN ipc=" + (engine.counters(SENDER)[IPC_GETS] - before) + " open=" +
                device.openIpcCount() + " releases=" + engine.counters(SENDER)[IPC_RELEASES] +
                (mismatch == -1 ? " OK" : " WRONG at byte " + mismatch));
            world.isend(ByteBuffer.allocateDirect(8), 8, Datatype.BYTE, SENDER, TAG_REPORTED).await(TIMEOUT);
            awaitRelease(engine, device, "RELEASED-AGAIN", 2);
        }
    }

    /**
     * Waits, at most {@link #RELEASE_WAIT_MS}, for the sender's IPC_RELEASE and for no mapping of its memory to be
     * left open, then prints what it saw.
     */
    private static void awaitRelease(
        final ProgressEngine engine, final DeviceRuntime device, final String what, final long releases)
        throws InterruptedException
    {
        final long startNs = System.nanoTime();
        while ((device.openIpcCount() != 0 || engine.counters(SENDER)[IPC_RELEASES] < releases) &&
            System.nanoTime() - startNs < TimeUnit.MILLISECONDS.toNanos(RELEASE_WAIT_MS))
        {
            Thread.sleep(1);
        }
        System.out.println(what + " open=" + device.openIpcCount() + " releases=" +
            engine.counters(SENDER)[IPC_RELEASES] + " after-ms=" +
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs));
        System.out.flush();
    }

    private static void receive(final Communicator world, final Case message, final TestMemory to, final int tag)
    {
        world.irecv(to.address() + message.receivePad(), message.receiveLength() - message.receivePad(),
            message.receive().count(), message.receive().type(), SENDER, tag).await(TIMEOUT);
    }

    /**
     * @return a large message of one scattered layout of bytes received in another: a get over IPC by the copy
     * kernel between the two layouts.
     */
    static Case releaseMessage(final long seed)
    {
        Case message = null;
        for (int attempt = 0; message == null || message.send().type().compiled().isContiguous() ||
            message.receive().type().compiled().isContiguous(); attempt++)
        {
            message = derive(seed ^ 0x52454C45L ^ attempt, -2, Direction.D_TO_D, RELEASE_MESSAGE_BYTES,
                Layouts.OTHER);
        }
        return message;
    }

    /**
     * @return a direct copy of the bytes with every bit flipped: what the sender's second buffer holds.
     */
    private static ByteBuffer flipped(final ByteBuffer bytes)
    {
        final ByteBuffer copy = ByteBuffer.allocateDirect(bytes.capacity());
        for (int i = 0; i < bytes.capacity(); i++)
        {
            copy.put(i, (byte)~bytes.get(i));
        }
        return copy;
    }

    /**
     * @return bytes of a receive buffer that change after its request ended: a pattern written over it once the
     * request ended must still be there a second later.
     */
    private static long lateWrites(final TestMemory buffer, final int lengthBytes) throws InterruptedException
    {
        final ByteBuffer pattern = ByteBuffer.allocateDirect(lengthBytes);
        for (int i = 0; i < lengthBytes; i++)
        {
            pattern.put(i, (byte)0x5A);
        }
        buffer.write(pattern);
        Thread.sleep(1000);
        final ByteBuffer after = buffer.read();
        long changed = 0;
        for (int i = 0; i < lengthBytes; i++)
        {
            changed += after.get(i) == 0x5A ? 0 : 1;
        }
        return changed;
    }

    /**
     * @param stride 2 for the sender, 3 for the receiver.
     * @return {@link #SLOW_BYTES} single bytes that far apart: a get of many blocks on either side, long enough on the
     * emulated device that the sender is killed while the receiver's device still reads its memory.
     */
    private static Datatype slowType(final int stride)
    {
        return Datatype.vector(SLOW_BYTES, 1, stride, Datatype.BYTE).commit();
    }

    /**
     * @return the message of mode kill: a large scattered message of mixed basic types, sent and received as one.
     */
    static Case killMessage(final long seed)
    {
        return derive(seed ^ 0x4B494C4CL, -1, Direction.D_TO_D, KILL_MESSAGE_BYTES, Layouts.SAME);
    }

    private static void report(final String what, final Request request)
    {
        try
        {
            request.await(TIMEOUT);
            System.out.println(what + "-COMPLETED " + request);
        }
        catch (final PeerLostException ex)
        {
            System.out.println(what + " peer=" + ex.peer() + " " + ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            System.out.println(what + "-OTHER " + ex);
        }
        System.out.flush();
    }

    /**
     * @return the bytes the receiver's whole buffer holds once the message is unpacked into it: the poison outside
     * the datatype, the sender's bytes packed with the send type and unpacked with the receive type inside it.
     */
    private static ByteBuffer expected(final Case message, final ByteBuffer poison)
    {
        final ExactMessage send = message.send();
        final ExactMessage receive = message.receive();
        final long packedBytes = send.count() * send.type().size();
        final ByteBuffer packed = ByteBuffer.allocateDirect((int)Math.max(1, packedBytes));
        final ByteBuffer after = ByteBuffer.allocateDirect(Math.max(1, message.receiveLength()));
        after.put(poison.duplicate().clear()).clear();
        final CompiledType from = send.type().compiled();
        final CompiledType to = receive.type().compiled();
        from.pack(BufferUtil.address(message.source()) + message.sendPad(), send.count(), 0, packedBytes,
            BufferUtil.address(packed));
        to.unpack(BufferUtil.address(packed), receive.count(), 0, packedBytes,
            BufferUtil.address(after) + message.receivePad());
        return after;
    }

    private static String describe(
        final Case message, final int mismatch, final ByteBuffer expected, final ByteBuffer arrived,
        final ByteBuffer poison)
    {
        if (mismatch == -1)
        {
            return "count";
        }
        final String where = mismatch < message.receivePad() ? "before displacement 0" :
            "at displacement " + (mismatch - message.receivePad());
        return "byte " + mismatch + " (" + where + ") expected " + expected.get(mismatch) + " got " +
            (mismatch < arrived.limit() ? String.valueOf(arrived.get(mismatch)) : "none") + " poison " +
            poison.get(mismatch) + " send " + message.send().type() + " receive " + message.receive().type();
    }

    private static long crc(final ByteBuffer bytes)
    {
        final CRC32 crc = new CRC32();
        crc.update(bytes.duplicate());
        return crc.getValue();
    }
}
