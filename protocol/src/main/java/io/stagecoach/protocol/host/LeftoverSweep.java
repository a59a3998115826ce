package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the private folders that killed processes of this user left behind. A folder goes only when everything
 * says it is a leftover of ours: the name, a real directory owned by this user, and an owner record naming a process
 * that is certainly gone.
 */
final class LeftoverSweep
{
    private static final Logger LOG = LoggerFactory.getLogger(LeftoverSweep.class);

    private LeftoverSweep()
    {
    }

    static int sweep(final Path parent, final String prefix)
    {
        int removed = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent, prefix + "*"))
        {
            for (final Path entry : entries)
            {
                removed += sweepOne(entry) ? 1 : 0;
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.debug("could not sweep {}: {}", parent, ex.toString());
        }
        return removed;
    }

    private static boolean sweepOne(final Path folder)
    {
        if (!isOwnDirectory(folder))
        {
            return false;
        }
        final OwnerRecord owner = OwnerRecord.read(folder);
        if (owner == null || owner.isAlive())
        {
            return false;
        }
        try
        {
            PrivateDirectory.deleteTree(folder);
            LOG.info("removed {}, left by {}, which is gone", folder, owner);
            return true;
        }
        catch (final IllegalStateException ex)
        {
            LOG.warn("could not remove {}, left by {}: {}", folder, owner, ex.getMessage());
            return false;
        }
    }

    private static boolean isOwnDirectory(final Path folder)
    {
        try
        {
            return Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS) && Uid.of(folder) == Uid.current();
        }
        catch (final IOException ex)
        {
            return false;
        }
    }
}
