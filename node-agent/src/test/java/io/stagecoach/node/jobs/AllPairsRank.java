package io.stagecoach.node.jobs;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.TestMemory;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.Stagecoach;
import io.stagecoach.rank.StagecoachContext;

/**
 * A rank of a job across nodes: in each of {@code ROUNDS} rounds every rank sends every other rank one message of a
 * size and content derived from (round, source, destination) and receives one from each, host or emulated-device
 * memory on each side by turns (H H, D D, H D, D H), and checks what arrived against its CRC-32. Prints
 * {@code RANK r node N pairs=P wrong=W} and exits with 1 where anything was wrong, else prints a last line
 * without a line end. With {@code hang} as its second
 * argument, the ranks then wait on a receive that never comes (to be failed by a lost node).
 */
public final class AllPairsRank
{
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int MAX_BYTES = 300_000;

    private AllPairsRank()
    {
    }

    public static void main(final String[] args)
    {
        final int rounds = Integer.parseInt(args[0]);
        final boolean hang = args.length > 1 && "hang".equals(args[1]);
        try (DeviceRuntime device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED)
            .emulatedDeviceCount(1).emulatedMemoryBytes(256L << 20));
             Communicator world = Stagecoach.init(new StagecoachContext().deviceRuntime(device)))
        {
            int pairs = 0;
            int wrong = 0;
            for (int round = 0; round < rounds; round++)
            {
                final int[] result = exchange(world, device, round);
                pairs += result[0];
                wrong += result[1];
            }
            System.out.println("RANK " + world.rank() + " node " + System.getenv("STAGECOACH_NODE") + " pairs=" +
                pairs + " wrong=" + wrong);
            System.out.flush();
            if (hang)
            {
                System.out.println("RANK " + world.rank() + " waiting");
                System.out.flush();
                final ByteBuffer never = ByteBuffer.allocateDirect(8);
                world.recv(never, 8, Datatype.BYTE, (world.rank() + 1) % world.size(), 999);
            }
            if (wrong != 0)
            {
                System.exit(1);
            }
            System.out.print("RANK " + world.rank() + " ends without a line end");
        }
    }

    private static int[] exchange(final Communicator world, final DeviceRuntime device, final int round)
    {
        final int rank = world.rank();
        final List<Request> requests = new ArrayList<>();
        final List<TestMemory> receives = new ArrayList<>();
        final List<TestMemory> sends = new ArrayList<>();
        for (int peer = 0; peer < world.size(); peer++)
        {
            if (peer == rank)
            {
                continue;
            }
            final TestMemory to = TestMemory.of(onDevice(round, false), device, 0, sizeOf(round, peer, rank));
            receives.add(to);
            requests.add(
                world.irecv(to.address(), to.lengthBytes(), to.lengthBytes(), Datatype.BYTE, peer, round));
        }
        for (int peer = 0; peer < world.size(); peer++)
        {
            if (peer == rank)
            {
                continue;
            }
            final TestMemory from = TestMemory.of(onDevice(round, true), device, 0, sizeOf(round, rank, peer));
            from.write(content(round, rank, peer));
            sends.add(from);
            requests.add(
                world.isend(from.address(), from.lengthBytes(), from.lengthBytes(), Datatype.BYTE, peer, round));
        }
        requests.forEach(request -> request.await(TIMEOUT));
        int wrong = 0;
        int index = 0;
        for (int peer = 0; peer < world.size(); peer++)
        {
            if (peer == rank)
            {
                continue;
            }
            final TestMemory to = receives.get(index++);
            if (crc(to.read()) != crc(content(round, peer, rank)))
            {
                System.out.println("WRONG round " + round + " from " + peer + " to " + rank + " (" +
                    to.lengthBytes() + " bytes)");
                wrong++;
            }
        }
        receives.forEach(TestMemory::close);
        sends.forEach(TestMemory::close);
        return new int[] { receives.size(), wrong };
    }

    private static boolean onDevice(final int round, final boolean sender)
    {
        final int kinds = round % 4;
        return sender ? kinds == 1 || kinds == 3 : kinds == 1 || kinds == 2;
    }

    private static int sizeOf(final int round, final int source, final int destination)
    {
        return new SplittableRandom(seed(round, source, destination)).nextInt(MAX_BYTES + 1);
    }

    private static ByteBuffer content(final int round, final int source, final int destination)
    {
        final SplittableRandom random = new SplittableRandom(seed(round, source, destination));
        final int length = random.nextInt(MAX_BYTES + 1);
        final ByteBuffer bytes = ByteBuffer.allocateDirect(Math.max(1, length));
        for (int i = 0; i < length; i++)
        {
            bytes.put(i, (byte)random.nextInt(256));
        }
        return bytes.limit(length);
    }

    private static long seed(final int round, final int source, final int destination)
    {
        return 0x5eedL * 1_000_003L + round * 65_537L + source * 257L + destination;
    }

    private static long crc(final ByteBuffer bytes)
    {
        final CRC32 crc = new CRC32();
        crc.update(bytes.duplicate().clear().limit(bytes.limit()));
        return crc.getValue();
    }
}
