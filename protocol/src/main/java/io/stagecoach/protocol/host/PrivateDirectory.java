package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * Folders only this user can enter, for the files a job shares between its processes: created exclusively (never an
 * existing folder, never through a symbolic link) with mode 0700, under a name nobody can guess when it need not be
 * derivable, with an {@linkplain OwnerRecord owner record} naming the creating process, so that a later process of
 * the same user can {@linkplain #sweep(Path) remove} what a killed one left. Deletion never follows a symbolic link
 * and never enters a folder of another user. Files the runtime creates in them are 0600.
 */
public final class PrivateDirectory
{
    /** The start of the name of every folder of this kind that a sweep may remove. */
    public static final String PREFIX = "stagecoach-";
    /** Mode of a private folder: rwx------. */
    public static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwx------");
    /** Mode of the runtime's own files: rw-------. */
    public static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

    private static final int RANDOM_BYTES = 8;
    private static final SecureRandom RANDOM = new SecureRandom();

    private PrivateDirectory()
    {
    }

    /**
     * Creates a private folder with a name nobody can guess: the prefix and 64 random bits in hex.
     *
     * @param parent where, e.g. {@link #sharedMemoryBase()}.
     * @param prefix start of the name; it should start with {@link #PREFIX} for leftovers to be swept.
     * @return the folder, mode 0700, holding its owner record.
     * @throws IllegalStateException when the folder cannot be created or is not private once created.
     */
    public static Path createExclusive(final Path parent, final String prefix)
    {
        final byte[] random = new byte[RANDOM_BYTES];
        RANDOM.nextBytes(random);
        return createExclusive(parent.resolve(prefix + HexFormat.of().formatHex(random)));
    }

    /**
     * Creates a private folder of a given name, for a name the processes of a job derive alike; fails when anything
     * is there already.
     *
     * @param directory the folder to create.
     * @return the folder, mode 0700, holding its owner record.
     * @throws IllegalStateException when something exists at that path, or the folder cannot be created or is not
     * private once created.
     */
    public static Path createExclusive(final Path directory)
    {
        try
        {
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
        }
        catch (final FileAlreadyExistsException ex)
        {
            throw new IllegalStateException("cannot create the private folder " + directory +
                ": something exists there already (a folder of a job still running, or not ours)", ex);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot create the private folder " + directory + ": " + ex, ex);
        }
        checkPrivate(directory);
        try
        {
            OwnerRecord.ofCurrentProcess().write(directory);
        }
        catch (final IOException ex)
        {
            deleteTree(directory);
            throw new IllegalStateException("cannot write the owner record of " + directory + ": " + ex, ex);
        }
        return directory;
    }

    /**
     * Checks that a folder is private to this user: a directory, not a symbolic link, owned by this process's user,
     * mode 0700.
     *
     * @param directory to check.
     * @return the folder.
     * @throws IllegalStateException naming the folder and what is wrong with it.
     */
    public static Path checkPrivate(final Path directory)
    {
        final String problem = problemOf(directory);
        if (problem != null)
        {
            throw new IllegalStateException(directory + " is not a private folder of uid " + Uid.current() + ": " +
                problem);
        }
        return directory;
    }

    /**
     * @param directory to check.
     * @return why the folder is not private to this user, or null when it is.
     */
    public static String problemOf(final Path directory)
    {
        try
        {
            final PosixFileAttributes attributes =
                Files.readAttributes(directory, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            final int uid = Uid.of(directory);
            if (attributes.isSymbolicLink() || !attributes.isDirectory())
            {
                return attributes.isSymbolicLink() ? "it is a symbolic link" : "it is not a directory";
            }
            if (uid != Uid.current())
            {
                return "it is owned by uid " + uid;
            }
            final Set<PosixFilePermission> mode = attributes.permissions();
            return mode.equals(DIRECTORY_MODE) ? null : "its mode is " + PosixFilePermissions.toString(mode) +
                ", not " + PosixFilePermissions.toString(DIRECTORY_MODE);
        }
        catch (final IOException ex)
        {
            return "it cannot be read: " + ex;
        }
    }

    /**
     * Deletes a private folder and everything in it without following a symbolic link anywhere: a link is removed,
     * never its target. Nothing is deleted when the folder is a link, or not this user's. A folder already gone is
     * not an error.
     *
     * @param directory to delete.
     * @throws IllegalStateException when the folder is not this user's or cannot be deleted.
     */
    public static void deleteTree(final Path directory)
    {
        try
        {
            NoFollowDeletion.deleteTree(directory);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot delete " + directory + ": " + ex, ex);
        }
    }

    /**
     * Removes what killed processes of this user left in a folder: every directory named {@link #PREFIX}{@code *},
     * owned by this user, not a symbolic link, whose owner record names a process that is certainly gone. A folder
     * without a readable owner record, of another user, or of a live process stays.
     *
     * @param parent the folder to sweep, e.g. {@link #sharedMemoryBase()}.
     * @return how many folders were removed.
     */
    public static int sweep(final Path parent)
    {
        return LeftoverSweep.sweep(parent, PREFIX);
    }

    /**
     * @return {@code /dev/shm} when it is a writable directory (memory, never written back to disk), otherwise
     * {@code java.io.tmpdir}.
     */
    public static Path sharedMemoryBase()
    {
        final Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * Creates a new file, mode 0600 whatever the umask allows beyond it, for reading and writing; fails when anything
     * exists at the path (a symbolic link included).
     *
     * @param file to create.
     * @return its channel, to be closed by the caller.
     * @throws IOException when it exists or cannot be created.
     */
    public static FileChannel createFile(final Path file) throws IOException
    {
        return FileChannel.open(file, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(FILE_MODE));
    }
}
