package io.stagecoach.protocol.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;

/**
 * User ids of this process and of files, the latter read without following symbolic links. Linux: this process's
 * id is the file-system user id of {@code /proc/self/status}, the one its new files get.
 */
final class Uid
{
    private static final int CURRENT = readCurrent();

    private Uid()
    {
    }

    static int current()
    {
        return CURRENT;
    }

    static int of(final Path path) throws IOException
    {
        return (Integer)Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    static UserPrincipal currentPrincipal() throws IOException
    {
        return Path.of("/").getFileSystem().getUserPrincipalLookupService()
            .lookupPrincipalByName(Integer.toString(CURRENT));
    }

    private static int readCurrent()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Uid:"))
                {
                    return Integer.parseInt(line.trim().split("\\s+")[4]);
                }
            }
            throw new IllegalStateException("/proc/self/status has no Uid line");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot tell this process's user id from /proc/self/status", ex);
        }
    }
}
