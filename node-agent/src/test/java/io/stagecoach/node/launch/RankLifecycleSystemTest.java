package io.stagecoach.node.launch;

import java.io.ByteArrayOutputStream;
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

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.stagecoach.node.launch.TestProcesses.assertAllGone;
import static io.stagecoach.node.launch.TestProcesses.awaitMatches;
import static io.stagecoach.node.launch.TestProcesses.pids;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shortest programs, as real rank processes under the launcher: start and close, a send just before close, a
 * program that throws, one that never closes, a rank stopped for seconds, and a launcher killed under its ranks
 * ({@link LifecycleRank}).
 */
@Tag("system")
@Timeout(90)
class RankLifecycleSystemTest
{
    private static final Pattern PID = Pattern.compile("pid (\\d+) rank \\d+ is up");
    private static final Pattern LOST = Pattern.compile("rank 0 lost rank 1 after (\\d+) ms: (.+)");
    private static final Pattern LONGEST = Pattern.compile("rank (\\d) longest round trip (\\d+) ms");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @RepeatedTest(2)
    void shouldStartAndCloseRanksThatDoNothingElse()
    {
        final int status = Launcher.run(context("init-close"));

        assertEquals(0, status, this::output);
        assertTrue(text(out).contains("rank 0 ends\n") && text(out).contains("rank 1 ends\n"), this::output);
    }

    @RepeatedTest(2)
    void shouldDeliverWhatARankSentJustBeforeItClosed()
    {
        final int status = Launcher.run(context("send-close"));

        assertEquals(0, status, this::output);
        assertTrue(text(out).contains("rank 1 got 42\n"), this::output);
    }

    @Test
    void shouldExitNonZeroAndTellThePeerAtOnceWhenAProgramThrows()
    {
        final int status = Launcher.run(context("throw").deathGrace(Duration.ofSeconds(10)));

        assertEquals(1, status, this::output);
        assertTrue(text(err).contains("Exception in thread \"main\" java.lang.IllegalStateException: rank 1 fails " +
            "on purpose"), this::output);
        final Matcher lost = LOST.matcher(text(out));
        assertTrue(lost.find(), this::output);
        assertTrue(Long.parseLong(lost.group(1)) < 2_000, lost.group());
        assertTrue(text(out).contains("rank 0 ends\n"), this::output);
    }

    @Test
    void shouldCloseARankWhoseProgramReturnsWithoutClosingIt()
    {
        final int status = Launcher.run(context("no-close"));

        assertEquals(0, status, this::output);
        assertTrue(text(out).contains("rank 1 got 42\n"), this::output);
        assertTrue(text(err).contains("rank 0: the program ended without Communicator.close(); closing the rank now"),
            this::output);
    }

    @Test
    void shouldCarryOnAfterARankIsStoppedForFiveSeconds()
    {
        final int status = Launcher.run(context("pause", "5"));

        assertEquals(0, status, this::output);
        final Matcher longest = LONGEST.matcher(text(out));
        int ranks = 0;
        while (longest.find())
        {
            ranks++;
            assertTrue(Long.parseLong(longest.group(2)) >= 4_500, "the stop shows in each rank's longest round " +
                "trip: " + longest.group());
        }
        assertEquals(2, ranks, this::output);
    }

    @Test
    void shouldGiveTheCommandsStandardInputToRankZeroAlone() throws Exception
    {
        final Path input = Files.createTempFile("stagecoach-input", ".txt");
        try
        {
            Files.writeString(input, "forty-two\n");
            final List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
            command.addAll(LaunchContext.DEFAULT_JVM_OPTIONS);
            command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                "io.stagecoach.node.cli.StagecoachCommand", "run", "-n", "2", "--oversubscribe",
                "-J-XX:TieredStopAtLevel=1", LifecycleRank.class.getName(), "input"));
            final Process launcher = new ProcessBuilder(command).redirectInput(input.toFile())
                .redirectErrorStream(true).start();
            final String output = new String(launcher.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(launcher.waitFor(60, TimeUnit.SECONDS), output);

            assertEquals(0, launcher.exitValue(), output);
            assertTrue(output.contains("rank 0 read forty-two\n"), output);
            assertTrue(output.contains("rank 1 read null\n"), output);
        }
        finally
        {
            Files.deleteIfExists(input);
        }
    }

    @Test
    void shouldEndTheRanksWhenTheirLauncherIsKilled() throws Exception
    {
        final Path output = Files.createTempFile("stagecoach-launcher", ".out");
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(LaunchContext.DEFAULT_JVM_OPTIONS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
            "io.stagecoach.node.cli.StagecoachCommand", "run", "-np", "2", "--oversubscribe", "-J-XX:TieredStopAtLevel=1",
            LifecycleRank.class.getName(), "wait"));
        final Process launcher = new ProcessBuilder(command)
            .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try
        {
            final List<Long> ranks = awaitMatches(output, PID, 2);

            final long killedNs = System.nanoTime();
            launcher.destroyForcibly();
            assertTrue(launcher.waitFor(10, TimeUnit.SECONDS), "the launcher ends at SIGKILL");

            assertAllGone(ranks);
            System.out.println("ranks gone " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs) +
                " ms after their launcher was killed");
        }
        finally
        {
            launcher.destroyForcibly();
            Files.deleteIfExists(output);
        }
    }

    private LaunchContext context(final String... arguments)
    {
        return new LaunchContext()
            .size(2)
            .oversubscribe(true)
            .program(LifecycleRank.class.getName())
            .programArguments(List.of(arguments))
            .jvmOptions(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"))
            .output(
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String output()
    {
        return "stdout:\n" + text(out) + "stderr:\n" + text(err);
    }

    private static String text(final ByteArrayOutputStream bytes)
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
