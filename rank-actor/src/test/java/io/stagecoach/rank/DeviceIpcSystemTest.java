package io.stagecoach.rank;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.RandomTypes;
import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import io.stagecoach.protocol.host.PrivateDirectory;
import io.stagecoach.rank.bootstrap.JobFolder;
import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large device messages between two real rank processes of one node, each with its own emulated device runtime
 * (both in one private folder of the job's, so that each maps the other's device memory from an IPC handle), run by
 * {@link DeviceIpcRankMain}:
 * <ul>
 * <li>random layouts on both sides (the same layout of mixed basic types; a layout of bytes received as contiguous
 * bytes, or the other way round, or as another layout of bytes of the same packed size; contiguous on both sides),
 * messages of 0, 1, threshold, threshold + 1, about 300 KB and 4 MiB + 20 bytes with an eager threshold of 1 KiB,
 * device to device, device to host and host to device, derived by both ranks from one seed printed here; the receiver
 * poisons its whole buffer and checks it byte for byte, the bytes outside the datatype included. On the default path
 * with the IPC threshold at 0 (as the ranks set it) every message with a byte out of device memory (device to
 * device, device to host) is got over IPC, and every large
 * host message to device memory is got one-sided by the receiver (out of the sender's arena where the sender packed a
 * scattered one, out of its process into pinned memory where it is contiguous: the host buffers here are not in the
 * shared arena), one per message by the receiver's counter, and none other; with {@code stagecoach.device.path=staged} none is, and every buffer ends
 * with the same bytes as on the default path;</li>
 * <li>a sender killed with SIGKILL after its large messages were got over IPC from one buffer (the receiver holding
 * the mapping of its device memory, one mapping however many gets), with one large send left unmatched and one
 * whose get the receiver's device is still running: the receiver's pending receive from it fails within 2 s naming
 * rank 0; the receive in flight fails naming rank 0 once the get ended (or completes, where the get ended before the
 * loss was seen), and nothing writes into its buffer once its request ended; the receive of the message left
 * behind fails naming rank 0; the receiver closes its mappings of the dead process's memory and exits with 0;</li>
 * <li>a sender that frees a buffer the receiver got messages out of over IPC (one mapping for three gets, each a copy
 * kernel between two scattered layouts of bytes): the receiver holds no mapping of it once the sender's IPC_RELEASE
 * came, within 5 s of the sender's next message, and gets other bytes out of a new buffer of the same length (at the
 * freed one's address, where the sender's allocator puts it there) byte for byte, through a mapping of its own,
 * which closes in turn once the sender frees that buffer.</li>
 * </ul>
 */
@Tag("system")
class DeviceIpcSystemTest
{
    private static final long SEED = RandomTypes.seed("DeviceIpcSystemTest");
    private static final int SIZE = 2;
    private static final int SENDER = 0;
    private static final int RECEIVER = 1;
    /**
     * Longest time from the kill to the end of the receive whose get was in flight: it fails once the device stops
     * writing into its buffer, and the emulated device's get of {@link DeviceIpcRankMain#SLOW_BYTES} single bytes
     * takes 0.5 to 1.5 s on two busy cores.
     */
    private static final long IN_FLIGHT_MS = 10_000;

    @Test
    void shouldGetEveryLargeDeviceMessageOverIpcByteForByteAndMoveTheSameBytesThroughTheStagePipeline()
        throws Exception
    {
        final Map<Integer, String[]> staged = runCases("staged");
        final Map<Integer, String[]> auto = runCases("auto");
        final int count = DeviceIpcRankMain.caseCount();
        assertEquals(count, staged.size(), "cases on the staged path");
        assertEquals(count, auto.size(), "cases on the default path");
        int overIpc = 0;
        for (int index = 0; index < count; index++)
        {
            final String[] viaIpc = auto.get(index);
            final String[] viaStages = staged.get(index);
            final String name = String.join(" ", List.of(viaIpc).subList(1, 6));
            final boolean ipc = overIpc(viaIpc);
            overIpc += ipc ? 1 : 0;
            assertEquals("OK", viaIpc[9], () -> "default path, case " + String.join(" ", viaIpc));
            assertEquals("OK", viaStages[9], () -> "staged path, case " + String.join(" ", viaStages));
            assertEquals("ipc=" + (ipc ? 1 : 0), viaIpc[6], "messages got one-sided on the default path, case " + name);
            assertEquals("ipc=0", viaStages[6], "messages got one-sided on the staged path, case " + name);
            assertEquals(viaStages[8], viaIpc[8], "the receive buffer's CRC on both paths, case " + name);
        }
        assertTrue(overIpc >= expectedFromDevice(), "at least every device-to-device and device-to-host case with a " +
            "byte: " + overIpc);
    }

    @Test
    void shouldFailAPendingReceiveWithin2SecondsOfTheSendersKillAndCloseTheMappingsOfItsMemory() throws Exception
    {
        try (Pair pair = Pair.start("kill"))
        {
            final RankProcess receiver = pair.ranks.get(RECEIVER);
            final String start = receiver.await("START", 60);
            assertNotNull(start, "the receiver started");
            assertTrue(start.endsWith(" open=0"), start);
            String mappings = null;
            for (int round = 0; round < DeviceIpcRankMain.REPEATS; round++)
            {
                final String line = receiver.await("REPEAT " + round + " ", 30);
                assertNotNull(line, "round " + round + " of the repeated gets");
                assertTrue(line.contains(" ipc=1 ") && line.endsWith(" OK"), line);
                final String open = line.split(" ")[3];
                assertTrue(mappings == null || mappings.equals(open),
                    "one mapping of the sender's buffer however many gets: " + open + " after " + mappings);
                mappings = open;
            }
            assertEquals("open=1", mappings, "mappings of the sender's memory while it lives");
            assertNotNull(pair.ranks.get(SENDER).await("READY", 30), "the sender left a send behind");
            final String waiting = receiver.await("WAITING", 30);
            assertNotNull(waiting, "the receiver waits on the sender");
            assertTrue(waiting.contains(" probed=true getting=true done=false"), waiting);

            final long killedNs = System.nanoTime();
            pair.ranks.get(SENDER).process.destroyForcibly();
            final String failed = receiver.await("FAILED", 10);
            final long failedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
            assertNotNull(failed, "the pending receive from the killed sender ends");
            System.out.println("pending receive failed " + failedAfterMs + " ms after the kill: " + failed);
            assertTrue(failed.startsWith("FAILED peer=0 rank 0 "), failed);
            assertTrue(failedAfterMs < 2000, "failed " + failedAfterMs + " ms after the kill");
            final String inFlight = receiver.await("IN-FLIGHT", 10);
            final long endedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
            assertNotNull(inFlight, "the receive whose get was in flight ends");
            System.out.println("receive in flight ended " + endedAfterMs + " ms after the kill: " + inFlight);
            assertTrue(inFlight.startsWith("IN-FLIGHT peer=0 rank 0 ") || inFlight.startsWith("IN-FLIGHT-COMPLETED "),
                inFlight);
            assertTrue(endedAfterMs < IN_FLIGHT_MS,
                "the receive in flight ended " + endedAfterMs + " ms after the kill");
            assertEquals("LATE-WRITES 0", receiver.await("LATE-WRITES", 20),
                "bytes written into the receive buffer after its request ended");
            final String leftBehind = receiver.await("LEFT-BEHIND", 10);
            assertNotNull(leftBehind, "the receive of the message left behind ends");
            assertTrue(leftBehind.startsWith("LEFT-BEHIND peer=0 rank 0 "), leftBehind);
            final String open = receiver.await("OPEN-AFTER-LOSS", 10);
            assertNotNull(open, "the receiver reports its mappings");
            assertNotNull(receiver.await("DONE", 30), "the receiver closes");
            assertTrue(receiver.process.waitFor(30, TimeUnit.SECONDS), "the receiver exits");
            assertEquals(0, receiver.process.exitValue(), "the receiver's exit status");
            assertTrue(open.startsWith("OPEN-AFTER-LOSS 0 "),
                "no mapping of the killed sender's memory is left open once it is lost: " + open);
        }
    }

    @Test
    void shouldDropTheMappingOfASendBufferOnceItsOwnerFreesItAndMapItsSuccessorAfresh() throws Exception
    {
        try (Pair pair = Pair.start("release"))
        {
            final RankProcess receiver = pair.ranks.get(RECEIVER);
            final RankProcess sender = pair.ranks.get(SENDER);
            final String start = receiver.await("START", 60);
            assertNotNull(start, "the receiver started");
            assertTrue(start.endsWith(" open=0"), start);
            for (int round = 0; round < DeviceIpcRankMain.RELEASE_ROUNDS; round++)
            {
                final String held = receiver.await("HELD " + round + " ", 30);
                assertEquals("HELD " + round + " ipc=1 open=1 OK", held,
                    "got over IPC, byte for byte, through one mapping of the sender's buffer");
            }
            final String released = receiver.await("RELEASED", 30);
            assertNotNull(released, "the receiver reports its mappings once the sender freed the buffer");
            System.out.println("after the free: " + released);
            assertTrue(released.startsWith("RELEASED open=0 releases=1 "),
                "no mapping of the freed buffer is left open once its IPC_RELEASE came: " + released);
            final String address = sender.await("AGAIN same-address=", 30);
            assertNotNull(address, "the sender allocated a new buffer");
            System.out.println("the new send buffer: " + address);
            assertEquals("AGAIN ipc=1 open=1 releases=1 OK", receiver.await("AGAIN", 30),
                "the new buffer's bytes got over IPC through a fresh mapping");
            assertNotNull(sender.await("SENT-AGAIN", 30), "the sender freed the new buffer");
            final String releasedAgain = receiver.await("RELEASED-AGAIN", 30);
            assertNotNull(releasedAgain, "the receiver reports its mappings once the new buffer is freed too");
            assertTrue(releasedAgain.startsWith("RELEASED-AGAIN open=0 releases=2 "), releasedAgain);
            for (final RankProcess rank : pair.ranks)
            {
                assertNotNull(rank.await("DONE", 30), "rank " + rank.rank + " closed");
                assertTrue(rank.process.waitFor(30, TimeUnit.SECONDS), "rank " + rank.rank + " exits");
                assertEquals(0, rank.process.exitValue(), "rank " + rank.rank + "'s exit status");
            }
        }
    }

    /**
     * @return the receiver's CASE lines split at blanks, by index.
     */
    private static Map<Integer, String[]> runCases(final String mode) throws Exception
    {
        final long startedNs = System.nanoTime();
        try (Pair pair = Pair.start(mode))
        {
            final RankProcess receiver = pair.ranks.get(RECEIVER);
            final String total = receiver.await("TOTAL", 120);
            assertNotNull(total, mode + ": the receiver got every message");
            assertNotNull(pair.ranks.get(SENDER).await("SENT", 30), mode + ": the sender sent every message");
            for (final RankProcess rank : pair.ranks)
            {
                assertNotNull(rank.await("DONE", 30), mode + ": rank " + rank.rank + " closed");
                assertTrue(rank.process.waitFor(30, TimeUnit.SECONDS), mode + ": rank " + rank.rank + " exits");
                assertEquals(0, rank.process.exitValue(), mode + ": rank " + rank.rank + "'s exit status");
            }
            final Map<Integer, String[]> cases = new LinkedHashMap<>();
            for (final String line : receiver.lines())
            {
                if (line.startsWith("CASE "))
                {
                    final String[] fields = line.split(" ");
                    assertFalse(cases.containsKey(Integer.parseInt(fields[1])), line);
                    cases.put(Integer.parseInt(fields[1]), fields);
                }
            }
            final int expectedIpc = mode.equals("auto") ? (int)cases.values().stream()
                .filter(DeviceIpcSystemTest::overIpc).count() : 0;
            assertTrue(total.contains(" wrong=0 ") && total.contains(" ipc=" + expectedIpc + " ") &&
                total.contains(" gets=" + expectedIpc + " "), mode + ": " + total);
            System.out.println(mode + ": " + cases.size() + " cases in " +
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNs) + " ms; " + total);
            return cases;
        }
    }

    /**
     * @param fields of a CASE line.
     * @return whether the message goes one-sided on the default path: every message with a byte out of device memory
     * (stagecoach.device.ipc.threshold.bytes at 0, as the ranks set it rather than leave the path to the model of
     * the emulated device's measured costs), and every large host message to device memory (a
     * scattered one packed into the sender's shared arena, whose pages the receiver's device reads; a contiguous one
     * read by the receiver out of the sender's process into pinned memory, then copied to the device).
     */
    private static boolean overIpc(final String[] fields)
    {
        final DeviceIpcRankMain.Direction direction = DeviceIpcRankMain.Direction.valueOf(fields[2]);
        final long packedBytes = Long.parseLong(fields[3]);
        return direction.fromDevice ? packedBytes > 0 : direction.toDevice && packedBytes > DeviceIpcRankMain.THRESHOLD;
    }

    /**
     * @return the cases whose message has a byte and lies in device memory on the sender's side.
     */
    private static int expectedFromDevice()
    {
        int withBytes = 0;
        for (final long packedBytes : DeviceIpcRankMain.SIZES)
        {
            withBytes += packedBytes > 0 ? 1 : 0;
        }
        int fromDevice = 0;
        for (final DeviceIpcRankMain.Direction direction : DeviceIpcRankMain.Direction.values())
        {
            fromDevice += direction.fromDevice ? 1 : 0;
        }
        return withBytes * fromDevice * DeviceIpcRankMain.Layouts.values().length;
    }

    /** A job of two rank processes on one embedded media driver and one folder of emulated devices. */
    private static final class Pair implements AutoCloseable
    {
        private final JobFolder folder;
        private final EmbeddedMediaDriver driver;
        private final List<RankProcess> ranks = new ArrayList<>();

        private Pair(final JobFolder folder, final EmbeddedMediaDriver driver)
        {
            this.folder = folder;
            this.driver = driver;
        }

        static Pair start(final String mode) throws IOException
        {
            final JobFolder folder = JobFolder.create();
            final Pair pair = new Pair(folder, EmbeddedMediaDriver.launch(folder.aeronDirectory()));
            final Path devices = PrivateDirectory.createExclusive(folder.path().resolve("devices"));
            final String job = "device-ipc-" + mode + "-" + ProcessHandle.current().pid();
            for (int rank = 0; rank < SIZE; rank++)
            {
                pair.ranks.add(RankProcess.start(rank, job, pair.driver.aeronDirectoryName(), devices, mode));
            }
            return pair;
        }

        public void close()
        {
            ranks.forEach(rank -> rank.process.destroyForcibly());
            for (final RankProcess rank : ranks)
            {
                try
                {
                    rank.process.waitFor(10, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }
            driver.close();
            folder.close();
        }
    }

    /** A rank process and the lines of its standard output. */
    private static final class RankProcess
    {
        private final int rank;
        private final Process process;
        private final BlockingQueue<String> fresh = new LinkedBlockingQueue<>();
        private final List<String> lines = new ArrayList<>();

        private RankProcess(final int rank, final Process process)
        {
            this.rank = rank;
            this.process = process;
        }

        static RankProcess start(final int rank, final String job, final String aeronDirectory, final Path devices,
            final String mode) throws IOException
        {
            final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            final ProcessBuilder builder = new ProcessBuilder(java,
                "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
                "-Xmx256m", "-XX:MaxDirectMemorySize=1g",
                "-cp", System.getProperty("java.class.path"),
                DeviceIpcRankMain.class.getName(), mode, String.valueOf(SEED));
            final Map<String, String> environment = builder.environment();
            environment.put(LaunchEnvironment.RANK, String.valueOf(rank));
            environment.put(LaunchEnvironment.SIZE, String.valueOf(SIZE));
            environment.put(LaunchEnvironment.JOB, job);
            environment.put(LaunchEnvironment.NODE, "node");
            environment.put(LaunchEnvironment.AERON_DIR, aeronDirectory);
            environment.put(DeviceContext.EMULATED_DIRECTORY_VARIABLE, devices.toString());
            builder.redirectErrorStream(true);
            final RankProcess started = new RankProcess(rank, builder.start());
            final Thread reader = new Thread(started::read, mode + "-rank-" + rank + "-output");
            reader.setDaemon(true);
            reader.start();
            return started;
        }

        private void read()
        {
            try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = in.readLine()) != null)
                {
                    System.out.println("[rank " + rank + "] " + line);
                    synchronized (lines)
                    {
                        lines.add(line);
                    }
                    fresh.add(line);
                }
            }
            catch (final IOException ignored)
            {
                // the process is gone
            }
            fresh.add("EOF");
        }

        /**
         * @return every line so far.
         */
        List<String> lines()
        {
            synchronized (lines)
            {
                return new ArrayList<>(lines);
            }
        }

        /**
         * @return the next line that starts with the prefix, skipping others; null at the end of the output or
         * after the time given.
         */
        String await(final String prefix, final int seconds) throws InterruptedException
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (true)
            {
                final String line = fresh.poll(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null || line.equals("EOF"))
                {
                    if (line != null)
                    {
                        fresh.add(line);
                    }
                    return null;
                }
                if (line.startsWith(prefix))
                {
                    return line;
                }
            }
        }
    }
}
