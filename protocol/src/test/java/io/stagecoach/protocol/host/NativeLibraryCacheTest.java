package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NativeLibraryCacheTest
{
    private static final int PROCESSES = 3;
    private static final int THREADS = 4;
    private static final int ROUNDS = 40;
    private static final int LENGTH_BYTES = 1 << 20;
    private static final byte[] LIBRARY = "not really ELF, but bytes to keep".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path cache;

    @Test
    void shouldExtractOnceIntoAFolderNamedByTheContentAndFindItThereAfter() throws IOException
    {
        final Path file = NativeLibraryCache.extract(cache, LIBRARY, "libtest.so");
        Files.setLastModifiedTime(file, FileTime.fromMillis(0));

        final Path again = NativeLibraryCache.extract(cache, LIBRARY, "libtest.so");

        assertEquals(file, again);
        assertEquals(cache.resolve(NativeLibraryCache.sha256(LIBRARY).substring(0, 16)).resolve("libtest.so"), file);
        assertEquals(FileTime.fromMillis(0), Files.getLastModifiedTime(again), "an intact file is not written again");
        assertArrayEquals(LIBRARY, Files.readAllBytes(file));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void shouldReplaceAPlantedFileWhoseContentDiffers() throws IOException
    {
        final Path file = NativeLibraryCache.extract(cache, LIBRARY, "libtest.so");
        Files.writeString(file, "planted");

        assertEquals(file, NativeLibraryCache.extract(cache, LIBRARY, "libtest.so"));

        assertArrayEquals(LIBRARY, Files.readAllBytes(file));
    }

    @Test
    void shouldReplaceASymbolicLinkAtTheLibrarysNameWithoutWritingItsTarget(@TempDir final Path elsewhere)
        throws IOException
    {
        final Path folder = NativeLibraryCache.extract(cache, LIBRARY, "libtest.so").getParent();
        final Path target = Files.writeString(elsewhere.resolve("target"), "someone else's");
        Files.delete(folder.resolve("libtest.so"));
        Files.createSymbolicLink(folder.resolve("libtest.so"), target);

        final Path file = NativeLibraryCache.extract(cache, LIBRARY, "libtest.so");

        assertFalse(Files.isSymbolicLink(file));
        assertArrayEquals(LIBRARY, Files.readAllBytes(file));
        assertEquals("someone else's", Files.readString(target));
    }

    @Test
    void shouldRefuseAContentFolderThatIsASymbolicLink(@TempDir final Path elsewhere) throws IOException
    {
        final Path folder = cache.resolve(NativeLibraryCache.sha256(LIBRARY).substring(0, 16));
        Files.createSymbolicLink(folder, elsewhere);

        final String message = assertThrows(IOException.class,
            () -> NativeLibraryCache.extract(cache, LIBRARY, "libtest.so")).getMessage();

        assertEquals(folder + " is not a private folder of uid " + Uid.current() + ": it is a symbolic link", message);
        try (var entries = Files.list(elsewhere))
        {
            assertEquals(0, entries.count());
        }
    }

    @Test
    @Timeout(180)
    void shouldNeverShowAPartialFileToConcurrentThreadsAndProcesses() throws Exception
    {
        final long seed = System.nanoTime();
        System.out.println("NativeLibraryCacheTest seed=" + seed);
        final List<Process> processes = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++)
        {
            processes.add(ChildJvm.start(List.of("-Xmx64m"), Map.of(), ExtractingProcess.class,
                cache.toString(), Long.toString(seed), Integer.toString(LENGTH_BYTES), Integer.toString(ROUNDS)));
        }
        final AtomicBoolean done = new AtomicBoolean();
        final List<String> partial = new CopyOnWriteArrayList<>();
        final AtomicLong completeReads = new AtomicLong();
        final ExecutorService threads = Executors.newFixedThreadPool(THREADS + 1);
        try
        {
            final Future<?> watcher = threads.submit(() -> watch(seed, done, partial, completeReads));
            final CyclicBarrier round = new CyclicBarrier(THREADS);
            final List<Future<?>> extractors = new ArrayList<>();
            for (int i = 0; i < THREADS; i++)
            {
                extractors.add(threads.submit(() -> extractEveryRound(round, seed)));
            }
            Files.createFile(cache.resolve("go"));
            for (final Future<?> extractor : extractors)
            {
                extractor.get(120, TimeUnit.SECONDS);
            }
            for (final Process process : processes)
            {
                assertTrue(process.waitFor(120, TimeUnit.SECONDS), "waited 120 s for an extracting process");
                final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals("ok\n", output);
                assertEquals(0, process.exitValue());
            }
            done.set(true);
            watcher.get(10, TimeUnit.SECONDS);
        }
        finally
        {
            done.set(true);
            threads.shutdownNow();
            processes.forEach(Process::destroyForcibly);
        }
        assertEquals(List.of(), partial, "files seen with other content than their library's");
        assertTrue(completeReads.get() > 0, "the watcher never saw a file");
    }

    private Void extractEveryRound(final CyclicBarrier round, final long seed) throws Exception
    {
        for (int r = 0; r < ROUNDS; r++)
        {
            round.await(30, TimeUnit.SECONDS);
            final byte[] content = ExtractingProcess.content(seed + r, LENGTH_BYTES);
            final Path file = NativeLibraryCache.extract(cache, content, ExtractingProcess.FILE_NAME);
            assertTrue(ExtractingProcess.holds(file, NativeLibraryCache.sha256(content)), file + " differs");
        }
        return null;
    }

    private void watch(final long seed, final AtomicBoolean done, final List<String> partial,
        final AtomicLong completeReads)
    {
        final String[] digests = new String[ROUNDS];
        for (int r = 0; r < ROUNDS; r++)
        {
            digests[r] = NativeLibraryCache.sha256(ExtractingProcess.content(seed + r, LENGTH_BYTES));
        }
        while (!done.get())
        {
            for (final String digest : digests)
            {
                final Path file = cache.resolve(digest.substring(0, 16)).resolve(ExtractingProcess.FILE_NAME);
                try
                {
                    if (digest.equals(NativeLibraryCache.sha256(Files.readAllBytes(file))))
                    {
                        completeReads.incrementAndGet();
                    }
                    else
                    {
                        partial.add(file + ": " + Files.size(file) + " bytes");
                    }
                }
                catch (final NoSuchFileException ex)
                {
                    Thread.onSpinWait();
                }
                catch (final IOException ex)
                {
                    partial.add(ex.toString());
                }
            }
        }
    }
}
