package io.stagecoach.device.cuda;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import jcuda.JCudaVersion;
import jcuda.LibUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Where JCuda's driver library comes from, in a JVM of its own each time ({@link JCudaProbe}): never from the
 * temporary folder, whatever lies there, and nothing is written there.
 */
@Timeout(60)
class JCudaLibraryTest
{
    private static final String FILE_NAME = LibUtils.createLibraryFileName(
        LibUtils.createPlatformLibraryName("JCudaDriver-" + JCudaVersion.get()));
    private static final String PLANTED = "planted by someone else";

    @TempDir
    Path temporary;
    @TempDir
    Path cacheHome;

    @Test
    void shouldLoadTheJarsCopyFromThePrivateCacheAndWriteNothingInTheTemporaryFolder() throws Exception
    {
        assumeTrue(LibUtils.class.getResource("/lib/" + FILE_NAME) != null, "jcuda-natives is not on the class path");

        final String output = probe(List.of());

        assertTrue(output.contains("JCuda driver library from " + cacheHome.resolve("stagecoach")), output);
        assertEquals(List.of(), list(temporary));
        try (Stream<Path> files = Files.walk(cacheHome))
        {
            assertEquals(1, files.filter(file -> file.endsWith(FILE_NAME)).count());
        }
    }

    @Test
    void shouldNeverLoadALibraryPlantedInTheTemporaryFolder() throws Exception
    {
        final Path planted = Files.writeString(temporary.resolve(FILE_NAME), PLANTED);

        final String output = probe(List.of());

        assertFalse(output.contains(planted.toString()), output);
        assertEquals(PLANTED, Files.readString(planted));
        assertEquals(List.of(planted), list(temporary));
    }

    @Test
    void shouldNeverLoadALibraryPlantedInTheTemporaryFolderWhenTheOneOnTheLibraryPathFailsToLoad(
        @TempDir final Path libraryPath) throws Exception
    {
        assumeTrue(LibUtils.class.getResource("/lib/" + FILE_NAME) != null, "jcuda-natives is not on the class path");
        try (var in = LibUtils.class.getResourceAsStream("/lib/" + FILE_NAME))
        {
            Files.write(libraryPath.resolve(FILE_NAME), in.readAllBytes());
        }
        final Path planted = Files.writeString(temporary.resolve(FILE_NAME), PLANTED);

        final String output = probe(List.of("-Djava.library.path=" + libraryPath));

        assertTrue(output.contains("JCuda driver library from " + libraryPath.resolve(FILE_NAME)), output);
        assertFalse(output.contains(planted.toString()), output);
        assertEquals(PLANTED, Files.readString(planted));
    }

    private String probe(final List<String> options) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Djava.io.tmpdir=" + temporary));
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), JCudaProbe.class.getName()));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("XDG_CACHE_HOME", cacheHome.toString());
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "waited 30 s for the probe: " + output);
        assertTrue(process.exitValue() == 0 || process.exitValue() == 1, "probe exit status " +
            process.exitValue() + ": " + output);
        return output;
    }

    private static List<Path> list(final Path folder) throws IOException
    {
        try (Stream<Path> entries = Files.list(folder))
        {
            return entries.toList();
        }
    }
}
