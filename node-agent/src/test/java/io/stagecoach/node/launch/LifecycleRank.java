package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.PeerLostException;
import io.stagecoach.rank.Stagecoach;

/**
 * The shortest programs a user writes, for {@link RankLifecycleSystemTest}; the first argument picks one:
 * {@code init-close}, {@code send-close} (rank 0 sends one int and closes at once), {@code throw} (rank 1 throws
 * from main while rank 0 waits for it), {@code no-close} (send-close without close), {@code pause <s>} (rank 1 is
 * stopped with SIGSTOP for that long while the two play ping-pong), {@code wait} (every rank waits for a message
 * that never comes), {@code input} (every rank prints the first line of its standard input) and {@code halt} (every
 * rank says whether its shared arena is in the node's directory and halts without closing, as a killed rank would).
 */
public final class LifecycleRank
{
    private static final int TAG = 7;
    private static final long STOP_AFTER_ROUNDS = 100;

    private LifecycleRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Communicator world = Stagecoach.init();
        System.out.println("pid " + ProcessHandle.current().pid() + " rank " + world.rank() + " is up");
        switch (args[0])
        {
            case "init-close" -> world.close();
            case "send-close" ->
            {
                sendOrReceive(world);
                world.close();
            }
            case "no-close" -> sendOrReceive(world);
            case "throw" -> failOrWait(world);
            case "pause" -> pingPongAcrossAPause(world, Integer.parseInt(args[1]));
            case "wait" -> world.recv(ByteBuffer.allocateDirect(4), 1, Datatype.INT, 1 - world.rank(), TAG);
            case "input" ->
            {
                final String line = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                    java.nio.charset.StandardCharsets.UTF_8)).readLine();
                System.out.println("rank " + world.rank() + " read " + line);
                world.close();
            }
            case "halt" ->
            {
                final boolean arena = java.nio.file.Files.exists(java.nio.file.Path.of(
                    System.getenv("STAGECOACH_AERON_DIR"),
                    "stagecoach-arena-" + world.rank() + "-" + ProcessHandle.current().pid() + ".shm"));
                System.out.println("rank " + world.rank() + " arena " + arena);
                System.out.flush();
                Runtime.getRuntime().halt(3);
            }
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        System.out.println("rank " + world.rank() + " ends");
    }

    private static void sendOrReceive(final Communicator world)
    {
        final ByteBuffer value = ByteBuffer.allocateDirect(4);
        if (world.rank() == 0)
        {
            value.putInt(0, 42);
            world.send(value, 1, Datatype.INT, 1, TAG);
        }
        else
        {
            world.recv(value, 1, Datatype.INT, 0, TAG);
            System.out.println("rank 1 got " + value.getInt(0));
        }
    }

    private static void failOrWait(final Communicator world)
    {
        if (world.rank() == 1)
        {
            throw new IllegalStateException("rank 1 fails on purpose");
        }
        final long startNs = System.nanoTime();
        try
        {
            world.irecv(ByteBuffer.allocateDirect(4), 1, Datatype.INT, 1, TAG).await(Duration.ofSeconds(30));
        }
        catch (final PeerLostException ex)
        {
            System.out.println("rank 0 lost rank " + ex.peer() + " after " +
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) + " ms: " + ex.getMessage());
        }
        world.close();
    }

    /**
     * Rank 1 has itself stopped for {@code seconds} once the two have played 100 rounds; rank 0 goes on until twice as
     * long has passed since its start, then tells rank 1 to stop (a 0 in the ball). Both print their longest round
     * trip.
     */
    private static void pingPongAcrossAPause(final Communicator world, final int seconds) throws IOException
    {
        final ByteBuffer ball = ByteBuffer.allocateDirect(4);
        final long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(2L * seconds);
        long longestNs = 0;
        long rounds = 0;
        boolean playing = true;
        while (playing)
        {
            if (world.rank() == 1 && rounds++ == STOP_AFTER_ROUNDS)
            {
                stopThisProcessSoon(seconds);
            }
            final long startNs = System.nanoTime();
            if (world.rank() == 0)
            {
                playing = System.nanoTime() - endNs < 0;
                ball.putInt(0, playing ? 1 : 0);
                world.send(ball, 1, Datatype.INT, 1, TAG);
                world.recv(ball, 1, Datatype.INT, 1, TAG);
            }
            else
            {
                world.recv(ball, 1, Datatype.INT, 0, TAG);
                world.send(ball, 1, Datatype.INT, 0, TAG);
                playing = ball.getInt(0) != 0;
            }
            longestNs = Math.max(longestNs, System.nanoTime() - startNs);
        }
        System.out.println("rank " + world.rank() + " longest round trip " + TimeUnit.NANOSECONDS.toMillis(longestNs) +
            " ms");
        world.close();
    }

    /**
     * Has this process stopped (SIGSTOP) half a second from now, for {@code seconds}, by a shell of its own: called
     * once the ping-pong runs, so that the stop falls inside both ranks' loops however slowly the ranks came up.
     */
    private static void stopThisProcessSoon(final int seconds) throws IOException
    {
        final long pid = ProcessHandle.current().pid();
        new ProcessBuilder("sh", "-c", "sleep 0.5; kill -STOP " + pid + "; sleep " + seconds + "; kill -CONT " + pid)
            .start();
    }
}
