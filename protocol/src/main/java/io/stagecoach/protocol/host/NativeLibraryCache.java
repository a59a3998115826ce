package io.stagecoach.protocol.host;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Native libraries shipped as class-path resources, extracted once per user into a private cache folder (see
 * {@link #directory()}) where no other user can write, under a folder named by the content's SHA-256, so that
 * versions never share a file. A file is written whole under a temporary name and moved over its final name
 * atomically, so that a process loading it never sees part of one; a file already there is used only when its
 * SHA-256 is the resource's, and is replaced otherwise.
 */
public final class NativeLibraryCache
{
    private static final Logger LOG = LoggerFactory.getLogger(NativeLibraryCache.class);
    private static final String TEMPORARY_PREFIX = ".extract-";
    private static final Duration STALE_TEMPORARY_AGE = Duration.ofMinutes(10);
    private static final int FOLDER_NAME_CHARS = 16;
    private static final int ATTEMPTS = 3;
    private static Path directory;

    private NativeLibraryCache()
    {
    }

    /**
     * This user's private cache folder, chosen once per process: the first of {@code $XDG_CACHE_HOME/stagecoach},
     * {@code ~/.cache/stagecoach} and {@code <java.io.tmpdir>/stagecoach-cache-<uid>} that is (or could be created
     * as) a real directory owned by this user with mode 0700; else a fresh private folder for this process.
     *
     * @return the folder.
     * @throws IllegalStateException when not even a fresh private folder can be created.
     */
    public static synchronized Path directory()
    {
        if (directory == null)
        {
            directory = UserCacheDirectory.resolve(UserCacheDirectory.candidates(
                System.getenv(), System.getProperty("user.home"), System.getProperty("java.io.tmpdir")));
        }
        return directory;
    }

    /**
     * Extracts a library resource into {@link #directory()}, or finds it there already, checked.
     *
     * @param anchor   the class whose {@link Class#getResourceAsStream(String)} finds the resource.
     * @param resource the resource's name as that method takes it.
     * @param fileName the library's file name, as a loader that looks for it by name expects it.
     * @return the file, whose content is the resource's byte for byte.
     * @throws IOException when the resource is missing, or the file cannot be written or does not hold the resource.
     */
    public static Path extract(final Class<?> anchor, final String resource, final String fileName) throws IOException
    {
        try (InputStream in = anchor.getResourceAsStream(resource))
        {
            if (in == null)
            {
                throw new NoSuchFileException(resource, null, "no such resource beside " + anchor.getName());
            }
            return extract(directory(), in.readAllBytes(), fileName);
        }
    }

    /**
     * Extracts content into a cache folder, or finds it there already, checked.
     *
     * @param cache    a private folder.
     * @param content  the library's bytes.
     * @param fileName the file's name.
     * @return {@code <cache>/<first 16 hex digits of the content's SHA-256>/<fileName>}, holding exactly the content.
     * @throws IOException when the file cannot be written or does not hold the content.
     */
    public static Path extract(final Path cache, final byte[] content, final String fileName) throws IOException
    {
        final String digest = sha256(content);
        final Path folder = privateFolder(cache.resolve(digest.substring(0, FOLDER_NAME_CHARS)));
        final Path file = folder.resolve(fileName);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            if (holds(file, digest))
            {
                return file;
            }
            write(folder, file, content, digest);
        }
        throw new IOException(file + " does not hold the library (SHA-256 " + digest + ") after " + ATTEMPTS +
            " extractions");
    }

    private static void write(final Path folder, final Path file, final byte[] content, final String digest)
        throws IOException
    {
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS))
        {
            LOG.warn("{} does not hold the expected library (SHA-256 {}); replacing it", file, digest);
        }
        removeStaleTemporaries(folder);
        final Path temporary = Files.createTempFile(folder, TEMPORARY_PREFIX, ".tmp",
            PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
        try
        {
            Files.write(temporary, content);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        finally
        {
            Files.deleteIfExists(temporary);
        }
    }

    private static Path privateFolder(final Path folder) throws IOException
    {
        try
        {
            Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
        }
        catch (final FileAlreadyExistsException ignore)
        {
            // made by another process, or another version of this one: checked below like any other
        }
        final String problem = PrivateDirectory.problemOf(folder);
        if (problem != null)
        {
            throw new IOException(folder + " is not a private folder of uid " + Uid.current() + ": " + problem);
        }
        return folder;
    }

    private static boolean holds(final Path file, final String digest) throws IOException
    {
        try
        {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Uid.of(file) != Uid.current())
            {
                return false;
            }
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS))
            {
                return digest.equals(sha256(in.readAllBytes()));
            }
        }
        catch (final NoSuchFileException ex)
        {
            return false;
        }
    }

    private static void removeStaleTemporaries(final Path folder) throws IOException
    {
        final FileTime staleBefore = FileTime.fromMillis(System.currentTimeMillis() - STALE_TEMPORARY_AGE.toMillis());
        try (DirectoryStream<Path> temporaries = Files.newDirectoryStream(folder, TEMPORARY_PREFIX + "*"))
        {
            for (final Path temporary : temporaries)
            {
                try
                {
                    if (Files.getLastModifiedTime(temporary, LinkOption.NOFOLLOW_LINKS).compareTo(staleBefore) < 0)
                    {
                        Files.deleteIfExists(temporary);
                    }
                }
                catch (final NoSuchFileException ignore)
                {
                    // moved into place or removed by its writer meanwhile
                }
            }
        }
    }

    static String sha256(final byte[] content)
    {
        try
        {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("SHA-256 is missing from this Java runtime", ex);
        }
    }
}
