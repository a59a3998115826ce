package io.stagecoach.protocol.host;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class NativeLibraryTest
{
    @Test
    @Timeout(60)
    void shouldLeaveNothingInTheTemporaryFolderWhenAProcessIsKilled(@TempDir final Path temporary,
        @TempDir final Path cacheHome) throws IOException, InterruptedException
    {
        assumeTrue(NativeLibrary.loadFailure() == null, NativeLibrary.loadFailure());
        final Process process = ChildJvm.start(List.of("-Djava.io.tmpdir=" + temporary),
            Map.of("XDG_CACHE_HOME", cacheHome.toString()), NativeLibraryProcess.class);
        try (BufferedReader output = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            assertEquals("loaded", output.readLine());
        }
        finally
        {
            process.destroyForcibly();
            assertTrue(process.waitFor(10, TimeUnit.SECONDS), "waited 10 s for the killed process to end");
        }

        assertEquals(List.of(), list(temporary));
        try (Stream<Path> files = Files.walk(cacheHome.resolve("stagecoach")))
        {
            assertEquals(1, files.filter(file -> file.endsWith("libstagecoach-native.so")).count());
        }
    }

    private static List<Path> list(final Path folder) throws IOException
    {
        try (Stream<Path> entries = Files.list(folder))
        {
            return entries.toList();
        }
    }
}
