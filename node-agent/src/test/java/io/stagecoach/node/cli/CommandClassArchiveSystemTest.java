package io.stagecoach.node.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The class-data archive that {@code bin/stagecoach} makes for {@code run}, {@code ps} and {@code kill} from a bundle:
 * made at a user's first such command in a private folder of the user's cache, used by the next, made again when the
 * bundle changes, and never made through a link. The bundle is this build's jars and the running Java runtime.
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
        final Result first = ps("");
        assertEquals(1, first.status, first.output);
        assertTrue(first.output.contains("no agent answers"), first.output);
        final Path folder = cache.resolve("stagecoach");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
        final List<Path> archives = archives(folder);
        assertEquals(1, archives.size(), archives::toString);
        assertEquals("r--------", PosixFilePermissions.toString(Files.getPosixFilePermissions(archives.get(0))));
        try (Stream<Path> left = Files.list(folder))
        {
            assertEquals(List.of(archives.get(0)), left.toList(), "nothing of the making is left");
        }

        final Result second = ps("-Xlog:class+load");
        assertEquals(1, second.status, second.output);
        assertTrue(second.output.contains(FROM_ARCHIVE), second.output);
        assertEquals(archives, archives(folder));

        try (Stream<Path> jars = Files.list(bundle.resolve("lib")))
        {
            Files.delete(jars.filter(jar -> jar.getFileName().toString().startsWith("jcuda-natives")).findFirst()
                .orElseThrow());
        }
        final Result changed = ps("-Xlog:class+load");
        assertEquals(1, changed.status, changed.output);
        final List<Path> after = archives(folder);
        assertEquals(1, after.size(), after::toString);
        assertNotEquals(archives, after, "a changed bundle gets an archive of its own, the former one goes");
    }

    @Test
    void shouldNotMakeTheArchiveThroughALink() throws Exception
    {
        final Path elsewhere = Files.createDirectories(work.resolve("elsewhere"));
        Files.createDirectories(cache);
        Files.createSymbolicLink(cache.resolve("stagecoach"), elsewhere);

        final Result result = ps("-Xlog:class+load");

        assertEquals(1, result.status, result.output);
        assertTrue(result.output.contains("no agent answers"), result.output);
        assertFalse(result.output.contains(FROM_ARCHIVE), result.output);
        try (Stream<Path> files = Files.list(elsewhere))
        {
            assertEquals(0, files.count(), "nothing written through the link");
        }
    }

    private Result ps(final String javaOptions) throws IOException, InterruptedException
    {
        final ProcessBuilder builder = new ProcessBuilder("bash", SCRIPT.toString(), "ps", "--agent-state",
            work.resolve("no-agent").toString()).redirectErrorStream(true);
        builder.environment().put("STAGECOACH_HOME", bundle.toString());
        builder.environment().put("XDG_CACHE_HOME", cache.toString());
        builder.environment().put("STAGECOACH_JAVA_OPTS", javaOptions);
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "waited 60 s for " + SCRIPT);
        return new Result(process.exitValue(), output);
    }

    private static List<Path> archives(final Path folder) throws IOException
    {
        try (Stream<Path> files = Files.list(folder))
        {
            return files.filter(file -> file.getFileName().toString().matches("commands-\\d+\\.jsa"))
                .filter(file -> Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)).toList();
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
