package io.stagecoach.node.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static io.stagecoach.node.launch.TestProcesses.assertAllGone;
import static io.stagecoach.node.launch.TestProcesses.awaitMatches;
import static io.stagecoach.node.launch.TestProcesses.pids;
import static io.stagecoach.node.launch.TestProcesses.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher with real rank JVMs on this machine.
 */
@Tag("system")
@Timeout(60)
class LauncherSystemTest
{
    private static final Pattern PID = Pattern.compile("pid (\\d+)");
    private static final Pattern CHILD = Pattern.compile("child (\\d+)");
    private static final Pattern SAW = Pattern.compile("rank 0 saw rank 1: (.+) after (\\d+) ms");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void shouldRunRanksThatExchangeKeysThroughTheRendezvous()
    {
        final LaunchContext context = context(3, ExchangeRank.class)
            .programArguments(List.of("a", "b c"))
            .environment("GREETING", "hi")
            .tagOutput(true)
            .jobId("exchange-" + ProcessHandle.current().pid());

        final int status = Launcher.run(context);

        final String stdout = text(out);
        assertEquals(0, status, () -> stdout + text(err));
        for (int rank = 0; rank < 3; rank++)
        {
            assertTrue(stdout.contains("[" + rank + "] rank " + rank + " of 3 got: hello from 0; hello from 1; " +
                "hello from 2\n"), stdout);
            assertTrue(stdout.contains("[" + rank + "] rank " + rank + " job exchange-" +
                ProcessHandle.current().pid() + " GREETING=hi driver=true args=a,b c\n"), stdout);
            assertTrue(text(err).contains("[" + rank + "] rank " + rank + " says goodbye on stderr\n"), text(err));
        }
        assertFalse(Files.exists(Path.of(LaunchEnvironment.defaultAeronDirectory(
            "exchange-" + ProcessHandle.current().pid()))), "the media driver's directory is deleted");
        assertAllGone(pids(PID, stdout));
    }

    @Test
    void shouldExitWithTheStatusOfAFailingRankAndNameIt()
    {
        final int status = Launcher.run(context(3, FailingRank.class).programArguments(List.of("1", "3")));

        final String stdout = text(out);
        final String stderr = text(err);
        assertEquals(3, status, () -> stdout + stderr);
        assertTrue(Pattern.compile("stagecoach: rank 1 \\(pid \\d+\\) failed: exit status 3\n").matcher(stderr).find(),
            stderr);
        assertTrue(stderr.contains("failed with exit status 3; first failure: rank 1"), stderr);
        for (final int rank : new int[]{ 0, 2 })
        {
            assertTrue(stdout.contains("rank " + rank + " caught: rank " + rank + ": fence 2 failed: fence 2 cannot " +
                "complete: rank 1 died (exit status 3)"), stdout);
        }
    }

    @Test
    void shouldTellTheOthersOfAKilledRankWithinTwoSecondsAndLeaveNothingRunning()
    {
        final int status = Launcher.run(context(3, KillPeerRank.class));

        final String stdout = text(out);
        final String stderr = text(err);
        assertEquals(137, status, () -> stdout + stderr);
        final Matcher saw = SAW.matcher(stdout);
        assertTrue(saw.find(), stdout);
        assertEquals("exit status 137 (signal 9, SIGKILL)", saw.group(1));
        assertTrue(Long.parseLong(saw.group(2)) < 2_000, "rank 0 was told after " + saw.group(2) + " ms");
        assertTrue(stdout.contains("rank 2 caught: rank 2: fence 2 failed: fence 2 cannot complete: rank 1 died " +
            "(exit status 137 (signal 9, SIGKILL))"), stdout);
        assertTrue(Pattern.compile("stagecoach: rank 1 \\(pid \\d+\\) failed: exit status 137 \\(signal 9, SIGKILL\\)")
            .matcher(stderr).find(), stderr);
        assertTrue(Pattern.compile("stagecoach: ending ranks 0 \\(pid \\d+, [a-z ]+\\), 2 \\(pid \\d+, [a-z ]+\\), 1 s " +
            "after rank 1 failed").matcher(stderr).find(), stderr);
        final List<Long> pids = pids(PID, stdout);
        assertEquals(3, pids.size(), stdout);
        assertAllGone(pids);
    }

    @Test
    void shouldNameAStoppedRankAsTheFirstFailureWhenThePeerThatLostItFails()
    {
        final int status = Launcher.run(context(2, LosingPeerRank.class));

        final String stderr = text(err);
        assertEquals(1, status, () -> text(out) + stderr);
        assertTrue(Pattern.compile("stagecoach: rank 0 \\(pid \\d+\\) failed: exit status 1\n").matcher(stderr).find(),
            stderr);
        final Matcher ending = Pattern.compile("stagecoach: ending rank 1 \\(pid (\\d+), stopped \\(SIGSTOP or " +
            "SIGTSTP\\)\\), 1 s after rank 0 failed\n").matcher(stderr);
        assertTrue(ending.find(), stderr);
        assertTrue(stderr.contains("failed with exit status 1; first failure: rank 1 (pid " + ending.group(1) + "), " +
            "stopped (SIGSTOP or SIGTSTP) when the launcher ended it; rank 0 lost rank 1 (no message from rank 1 " +
            "for 0.2 s) and failed: exit status 1\n"), stderr);
        assertAllGone(pids(PID, text(out)));
    }

    @Test
    void shouldDescribeAStoppedRankWhenThePeerThatFailedReportedNoLoss()
    {
        final int status = Launcher.run(context(2, LosingPeerRank.class).programArguments(List.of("quiet")));

        final String stderr = text(err);
        assertEquals(1, status, () -> text(out) + stderr);
        assertTrue(Pattern.compile("stagecoach: ending rank 1 \\(pid \\d+, stopped \\(SIGSTOP or SIGTSTP\\)\\), 1 s " +
            "after rank 0 failed\n").matcher(stderr).find(), stderr);
        assertTrue(Pattern.compile("failed with exit status 1; first failure: rank 0 \\(pid \\d+\\), exit status 1\n")
            .matcher(stderr).find(), stderr);
        assertAllGone(pids(PID, text(out)));
    }

    @Test
    void shouldEndEveryRankAndItsChildrenWhenTheTimeoutPasses()
    {
        final long startNs = System.nanoTime();
        final int status = Launcher.run(context(2, SleepingRank.class).timeout(Duration.ofSeconds(8)));
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);

        final String stdout = text(out);
        final String stderr = text(err);
        assertEquals(124, status, () -> stdout + stderr);
        assertTrue(Pattern.compile("stagecoach: job \\S+ timed out after 8 s \\(--timeout\\); ending ranks 0 " +
            "\\(pid \\d+, (sleeping|running)\\), 1 \\(pid \\d+, (sleeping|running)\\)\n").matcher(stderr).find(), stderr);
        assertTrue(elapsedMs < 40_000, "took " + elapsedMs + " ms");
        final List<Long> pids = pids(PID, stdout);
        final List<Long> children = pids(CHILD, stdout);
        assertEquals(2, pids.size(), stdout);
        assertEquals(2, children.size(), stdout);
        assertAllGone(pids);
        assertAllGone(children);
    }

    @Test
    void shouldTimeOutWhileRanksAreStillStarting()
    {
        final long startNs = System.nanoTime();
        final int status = Launcher.run(context(12, HangingRank.class).timeout(Duration.ofSeconds(2))
            .rankStarter(slowly(Duration.ofSeconds(1))));
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);

        final String stderr = text(err);
        assertEquals(124, status, stderr);
        assertTrue(elapsedMs < 8_000, "took " + elapsedMs + " ms");
        final Matcher timedOut = Pattern.compile("stagecoach: job \\S+ timed out after 2 s \\(--timeout\\); ending " +
            "ranks? 0 \\(pid \\d+, [a-z ]+\\).*; ranks (\\d+) to 11 not started\n").matcher(stderr);
        assertTrue(timedOut.find(), stderr);
        assertTrue(Integer.parseInt(timedOut.group(1)) < 12, stderr);
        assertAllGone(pids(PID, text(out)));
    }

    @Test
    void shouldStopStartingRanksAndEndTheJobWhenOneFailsDuringStartup()
    {
        final long startNs = System.nanoTime();
        final int status = Launcher.run(context(12, HangingRank.class).programArguments(List.of("0", "3"))
            .rankStarter(slowly(Duration.ofSeconds(1))));
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);

        final String stderr = text(err);
        assertEquals(3, status, stderr);
        assertTrue(elapsedMs < 9_000, "took " + elapsedMs + " ms");
        assertTrue(Pattern.compile("stagecoach: rank 0 \\(pid \\d+\\) failed: exit status 3\n").matcher(stderr).find(),
            stderr);
        final Matcher notStarted = Pattern.compile("stagecoach: not starting ranks (\\d+) to 11 of job \\S+: rank 0 " +
            "failed\n").matcher(stderr);
        assertTrue(notStarted.find(), stderr);
        assertTrue(stderr.contains("failed with exit status 3; first failure: rank 0"), stderr);
        assertAllGone(pids(PID, text(out)));
    }

    @Test
    void shouldEndTheStartedRanksWhenARankCannotBeStarted()
    {
        final List<Long> started = new ArrayList<>();
        final RankStarter failing = (context, rank, environment, binding) ->
        {
            if (rank == 2)
            {
                throw new IOException("no more processes");
            }
            final RankProcess process = RankProcess.start(context, rank, environment, binding);
            started.add(process.pid());
            return process;
        };

        final LaunchException ex = assertThrows(LaunchException.class,
            () -> Launcher.run(context(4, HangingRank.class).rankStarter(failing)));

        assertTrue(ex.getMessage().matches("could not start rank 2 with \\S+java: no more processes"),
            ex.getMessage());
        assertEquals(2, started.size());
        assertAllGone(started);
    }

    @Test
    void shouldEndTheJobWhenTheLauncherProcessIsTerminated() throws Exception
    {
        final Path output = Files.createTempFile("stagecoach-launcher", ".out");
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(LaunchContext.DEFAULT_JVM_OPTIONS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
            "io.stagecoach.node.cli.StagecoachCommand", "run", "-np", "2", "--oversubscribe", "--tag-output",
            "-J-XX:TieredStopAtLevel=1", SleepingRank.class.getName()));
        final Process launcher = new ProcessBuilder(command)
            .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try
        {
            final List<Long> children = awaitMatches(output, CHILD, 2);
            final List<Long> pids = pids(PID, Files.readString(output));
            assertEquals(2, pids.size());
            assertTrue(launcher.descendants().anyMatch(handle -> handle.pid() == pids.get(0)));

            launcher.destroy();
            assertTrue(launcher.waitFor(15, TimeUnit.SECONDS), "waited 15 s for the launcher to end after SIGTERM");

            assertTrue(Files.readString(output).contains("stagecoach: shutting down; ending ranks 0 (pid "),
                () -> read(output));
            assertAllGone(pids);
            assertAllGone(children);
        }
        finally
        {
            launcher.destroyForcibly();
            Files.deleteIfExists(output);
        }
    }

    @Test
    void shouldRemoveTheSharedArenasOfRanksThatEndedWithoutClosingFromTheNodesDirectory(@TempDir final Path folder)
        throws IOException
    {
        // the node's directory of an agent's media driver, which outlives the job (the job's own folder does not)
        final Path directory = folder.resolve("aeron");
        try (NodeMediaDriver driver = NodeMediaDriver.launch(directory))
        {
            final int status = Launcher.run(context(2, LifecycleRank.class).programArguments(List.of("halt"))
                .aeronDirectory(driver.directory()));
            final String stdout = text(out);
            assertEquals(3, status, () -> stdout + text(err));
            assertTrue(stdout.contains("rank 0 arena true") && stdout.contains("rank 1 arena true"), stdout);
            try (Stream<Path> files = Files.list(directory))
            {
                assertEquals(List.of(), files.map(file -> file.getFileName().toString())
                    .filter(name -> name.startsWith("stagecoach-arena-")).collect(Collectors.toList()),
                    "arenas left in " + directory);
            }
        }
    }

    @Test
    void shouldRefuseAProgramThatIsNotOnTheClassPathBeforeStartingAnything()
    {
        final String message = assertThrows(LaunchException.class,
            () -> Launcher.run(new LaunchContext().size(2).program("com.example.Missing"))).getMessage();
        assertEquals("no program 'com.example.Missing': it is neither a built-in " +
            "(latency, actor-latency, bw, bibw, halo, lbm) nor a class on the class path", message);
        assertEquals(0, ProcessHandle.current().children().count());
    }

    @Test
    void shouldBindEachRankToItsCoreWhenAsked()
    {
        final int[] cpus = CoreBinding.parseCpuList(TestCpus.allowed());
        final LaunchContext context = context(2, AffinityRank.class).bindToCore(true)
            .jobId("bind-" + ProcessHandle.current().pid());

        final int status = Launcher.run(context);

        final String stdout = text(out);
        assertEquals(0, status, () -> stdout + text(err));
        assertTrue(stdout.contains("rank 0 cpus " + cpus[0] + "\n"), stdout);
        assertTrue(stdout.contains("rank 1 cpus " + cpus[1 % cpus.length] + "\n"), stdout);
    }

    private LaunchContext context(final int size, final Class<?> program)
    {
        return new LaunchContext()
            .size(size)
            .oversubscribe(true)
            .program(program.getName())
            .jvmOptions(
                List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dagrona.disable.bounds.checks=false"))
            .output(
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static RankStarter slowly(final Duration pause)
    {
        return (context, rank, environment, binding) ->
        {
            try
            {
                Thread.sleep(rank == 0 ? 0 : pause.toMillis());
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted before starting rank " + rank);
            }
            return RankProcess.start(context, rank, environment, binding);
        };
    }

    private static String text(final ByteArrayOutputStream bytes)
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
