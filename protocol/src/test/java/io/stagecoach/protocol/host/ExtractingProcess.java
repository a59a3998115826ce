package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Extracts seeded random content into a cache folder, as a process of its own, once {@code CACHE/go} exists, and
 * checks what it got: {@code ExtractingProcess CACHE SEED LENGTH_BYTES ROUNDS}; round r extracts the content of seed
 * {@code SEED + r}. Prints {@code ok} and exits 0 when every round returned a file holding the content.
 */
public final class ExtractingProcess
{
    static final String FILE_NAME = "libtest.so";

    private ExtractingProcess()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path cache = Path.of(args[0]);
        final long seed = Long.parseLong(args[1]);
        final int lengthBytes = Integer.parseInt(args[2]);
        awaitGo(cache.resolve("go"));
        for (int round = 0; round < Integer.parseInt(args[3]); round++)
        {
            final byte[] content = content(seed + round, lengthBytes);
            final Path file = NativeLibraryCache.extract(cache, content, FILE_NAME);
            if (!holds(file, NativeLibraryCache.sha256(content)))
            {
                System.out.println("round " + round + ": " + file + " does not hold the content");
                System.exit(1);
            }
        }
        System.out.println("ok");
    }

    static boolean holds(final Path file, final String digest) throws IOException
    {
        return digest.equals(NativeLibraryCache.sha256(Files.readAllBytes(file)));
    }

    static byte[] content(final long seed, final int lengthBytes)
    {
        final byte[] content = new byte[lengthBytes];
        new Random(seed).nextBytes(content);
        return content;
    }

    private static void awaitGo(final Path go) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(go))
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                System.out.println("waited 30 s for " + go);
                System.exit(2);
            }
            Thread.sleep(1);
        }
    }
}
