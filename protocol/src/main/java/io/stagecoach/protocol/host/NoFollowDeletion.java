package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;

/**
 * Deletes a folder tree through open directory handles ({@code openat} and {@code unlinkat} with
 * {@code O_NOFOLLOW}): a name swapped for a symbolic link after it was checked is removed as a link or refused,
 * never followed.
 */
final class NoFollowDeletion
{
    private NoFollowDeletion()
    {
    }

    static void deleteTree(final Path directory) throws IOException
    {
        final Path absolute = directory.toAbsolutePath();
        final Path name = absolute.getFileName();
        if (name == null)
        {
            throw new IOException("refusing to delete the root folder");
        }
        final String problem = ownershipProblem(absolute);
        if (problem != null)
        {
            throw new IOException(problem);
        }
        try (DirectoryStream<Path> parent = Files.newDirectoryStream(absolute.getParent()))
        {
            if (!(parent instanceof SecureDirectoryStream<Path> secure))
            {
                throw new IOException("this platform cannot delete without following symbolic links");
            }
            deleteOwned(secure, name);
        }
        catch (final NoSuchFileException ignore)
        {
            // already gone
        }
    }

    private static String ownershipProblem(final Path directory) throws IOException
    {
        if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS))
        {
            return null;
        }
        if (Files.isSymbolicLink(directory) || !Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS))
        {
            return "it is not a directory (a symbolic link is never followed)";
        }
        final int uid = Uid.of(directory);
        return uid == Uid.current() ? null : "it is owned by uid " + uid + ", not " + Uid.current();
    }

    private static void deleteOwned(final SecureDirectoryStream<Path> parent, final Path name) throws IOException
    {
        try (SecureDirectoryStream<Path> directory = parent.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS))
        {
            final UserPrincipal owner = directory.getFileAttributeView(PosixFileAttributeView.class).readAttributes().owner();
            if (!owner.equals(Uid.currentPrincipal()))
            {
                throw new IOException(name + " is owned by " + owner.getName() + ", not by uid " + Uid.current());
            }
            deleteContents(directory);
        }
        parent.deleteDirectory(name);
    }

    private static void deleteContents(final SecureDirectoryStream<Path> directory) throws IOException
    {
        final List<Path> names = new ArrayList<>();
        for (final Path entry : directory)
        {
            names.add(entry.getFileName());
        }
        for (final Path name : names)
        {
            try
            {
                deleteEntry(directory, name);
            }
            catch (final NoSuchFileException ignore)
            {
                // removed meanwhile, by another sweep
            }
        }
    }

    private static void deleteEntry(final SecureDirectoryStream<Path> directory, final Path name) throws IOException
    {
        final boolean isDirectory = directory.getFileAttributeView(name, BasicFileAttributeView.class,
            LinkOption.NOFOLLOW_LINKS).readAttributes().isDirectory();
        if (!isDirectory)
        {
            directory.deleteFile(name);
            return;
        }
        try (SecureDirectoryStream<Path> child = directory.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS))
        {
            deleteContents(child);
        }
        directory.deleteDirectory(name);
    }
}
