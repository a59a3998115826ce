package io.stagecoach.node.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The class-data archive that {@code bin/stagecoach} makes for {@code run}, {@code ps} and {@code kill} from a bundle:
 * made at a user's first such command, silently, in a private folder of the user's cache, used by the next, made
 * anew for a changed bundle, tried again a day after a making that failed, and never made through a link or in
 * another user's folder. The bundle is this build's jars and the running Java runtime.
 */
@Tag("system")
@Timeout(120)
class CommandClassArchiveSystemTest
{
    private static final Path SCRIPT = Path.of(System.getProperty("user.dir")).resolveSibling("bin")
        .resolve("stagecoach");
    private static final Path TARGET = Path.of(System.getProperty("user.dir")).resolve("target");
    private static final String FROM_ARCHIVE = "io.stagecoach.node.cli.StagecoachCommand source: shared objects file";

    @TempDir
    Path work;
    private Path bundle;
    private Path cache;

    @BeforeEach
    void makeBundle() throws IOException
    {
        final Path runtime = Path.of(System.getProperty("java.home"));
        assumeTrue(Files.isRegularFile(runtime.resolve("lib/server/classes.jsa")), "the runtime has no class-data " +
            "archive to build on");
        bundle = Files.createDirectories(work.resolve("bundle"));
        final Path lib = Files.createDirectories(bundle.resolve("lib"));
        Files.createSymbolicLink(bundle.resolve("runtime"), runtime);
        try (Stream<Path> jars = Stream.concat(Files.list(TARGET.resolve("lib")), Files.list(TARGET)))
        {
            for (final Path jar : jars.filter(CommandClassArchiveSystemTest::isApplicationJar).toList())
            {
                Files.createSymbolicLink(lib.resolve(jar.getFileName()), jar.toAbsolutePath());
            }
        }
        cache = work.resolve("cache");
    }

    @Test
    void shouldMakeTheArchiveOnceInAPrivateFolderAndUseItAfter() throws Exception
    {
        final Result first = command(Map.of(), "ps");
        assertEquals(1, first.status, first.output);
        assertEquals(List.of("stagecoach: no agent answers at " + work.resolve("no-agent/agent.sock") +
            " (No such file or directory)"), first.output.lines().toList(), "the making prints nothing");
        final Path folder = cache.resolve("stagecoach");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
        final List<Path> archives = archives(folder);
        assertEquals(1, archives.size(), archives::toString);
        assertEquals("r--------", PosixFilePermissions.toString(Files.getPosixFilePermissions(archives.get(0))));
        assertEquals(archives, files(folder), "nothing of the making is left");

        for (final String[] line : new String[][] { { "ps" }, { "kill", "job-1" }, { "run", "-n", "1", "-H",
            "node:1", "program" } })
        {
            final Result next = command(Map.of("STAGECOACH_JAVA_OPTS", "-Xlog:class+load"), line);
            assertEquals(1, next.status, next.output);
            assertTrue(next.output.contains(FROM_ARCHIVE), line[0] + ": " + next.output);
        }
        assertEquals(archives, files(folder));

        final Path picocli = jar("picocli");
        Files.copy(Files.readSymbolicLink(picocli), picocli, StandardCopyOption.REPLACE_EXISTING);
        final Result changed = command(Map.of("STAGECOACH_JAVA_OPTS", "-Xlog:class+load"), "ps");
        assertEquals(1, changed.status, changed.output);
        assertTrue(changed.output.contains(FROM_ARCHIVE), changed.output);
        final List<Path> after = archives(folder);
        assertEquals(2, after.size(), "a changed bundle gets an archive of its own: " + after);
    }

    @Test
    void shouldTryAgainADayAfterAFailedMaking() throws Exception
    {
        final Result failed = command(Map.of("JAVA_TOOL_OPTIONS", "-Xshare:off"), "ps");
        assertEquals(1, failed.status, failed.output);
        final Path folder = cache.resolve("stagecoach");
        final List<Path> marks = files(folder);
        assertEquals(1, marks.size(), marks::toString);
        assertTrue(marks.get(0).getFileName().toString().endsWith(".failed"), marks::toString);

        command(Map.of(), "ps");
        assertEquals(marks, files(folder), "not tried again within the day");

        Files.setLastModifiedTime(marks.get(0), FileTime.from(Instant.now().minus(Duration.ofDays(2))));
        final Result next = command(Map.of("STAGECOACH_JAVA_OPTS", "-Xlog:class+load"), "ps");
        assertTrue(next.output.contains(FROM_ARCHIVE), next.output);
        assertEquals(archives(folder), files(folder), "the archive, and no mark");
    }

    @Test
    void shouldNotMakeTheArchiveThroughALinkNorInAnotherUsersFolder() throws Exception
    {
        final Path elsewhere = Files.createDirectories(work.resolve("elsewhere"));
        Files.createDirectories(cache);
        Files.createSymbolicLink(cache.resolve("stagecoach"), elsewhere);

        final Result linked = command(Map.of("STAGECOACH_JAVA_OPTS", "-Xlog:class+load"), "ps");

        assertEquals(1, linked.status, linked.output);
        assertTrue(linked.output.contains("no agent answers"), linked.output);
        assertFalse(linked.output.contains(FROM_ARCHIVE), linked.output);
        assertEquals(List.of(), files(elsewhere), "nothing written through the link");

        assumeTrue("root".equals(System.getProperty("user.name")), "only root can give a folder to another user");
        final Path others = Files.createDirectories(work.resolve("others"));
        final UserPrincipal nobody;
        try
        {
            nobody = others.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        }
        catch (final UserPrincipalNotFoundException ex)
        {
            assumeTrue(false, "no user nobody here to give a folder to");
            return;
        }
        Files.setOwner(others, nobody);
        cache = others.resolve("cache");
        final Result foreign = command(Map.of("STAGECOACH_JAVA_OPTS", "-Xlog:class+load"), "ps");
        assertEquals(1, foreign.status, foreign.output);
        assertFalse(foreign.output.contains(FROM_ARCHIVE), foreign.output);
        assertFalse(Files.exists(cache), "nothing made in another user's folder");
    }

    private Result command(final Map<String, String> environment, final String... line)
        throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.add(line[0]);
        command.addAll(List.of("--agent-state", work.resolve("no-agent").toString()));
        command.addAll(List.of(line).subList(1, line.length));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().put("STAGECOACH_HOME", bundle.toString());
        builder.environment().put("XDG_CACHE_HOME", cache.toString());
        builder.environment().putAll(environment);
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "waited 60 s for " + SCRIPT);
        return new Result(process.exitValue(), output);
    }

    private Path jar(final String prefix) throws IOException
    {
        try (Stream<Path> jars = Files.list(bundle.resolve("lib")))
        {
            return jars.filter(jar -> jar.getFileName().toString().startsWith(prefix)).findFirst().orElseThrow();
        }
    }

    private static List<Path> files(final Path folder) throws IOException
    {
        try (Stream<Path> files = Files.list(folder))
        {
            return files.sorted().toList();
        }
    }

    private static List<Path> archives(final Path folder) throws IOException
    {
        try (Stream<Path> files = Files.list(folder))
        {
            return files.filter(file -> file.getFileName().toString().matches("commands-\\d+\\.jsa"))
                .filter(file -> Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)).sorted().toList();
        }
    }

    private static boolean isApplicationJar(final Path file)
    {
        final String name = file.getFileName().toString();
        return name.endsWith(".jar") && !name.endsWith("-tests.jar") && !name.endsWith("-sources.jar") &&
            !name.endsWith("-javadoc.jar");
    }

    private record Result(int status, String output)
    {
    }
}
