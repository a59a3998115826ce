package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This user's private cache folder for native libraries, the first of these that is a real directory of this user
 * with mode 0700 (created so where missing): {@code $XDG_CACHE_HOME/stagecoach}, {@code ~/.cache/stagecoach},
 * {@code <java.io.tmpdir>/stagecoach-cache-<uid>}; else a fresh private folder in {@code java.io.tmpdir}, deleted at
 * exit, or by the {@linkplain PrivateDirectory#sweep(Path) sweep} of a later process when this one is killed.
 */
final class UserCacheDirectory
{
    private static final Logger LOG = LoggerFactory.getLogger(UserCacheDirectory.class);

    private UserCacheDirectory()
    {
    }

    static Path resolve(final List<Path> candidates)
    {
        for (final Path candidate : candidates)
        {
            final String problem = prepare(candidate);
            if (problem == null)
            {
                return candidate;
            }
            LOG.debug("not using {} for native libraries: {}", candidate, problem);
        }
        return freshTemporary();
    }

    static List<Path> candidates(final Map<String, String> environment, final String home, final String tmpdir)
    {
        final List<Path> candidates = new ArrayList<>();
        final String cacheHome = environment.get("XDG_CACHE_HOME");
        if (cacheHome != null && cacheHome.startsWith("/"))
        {
            candidates.add(Path.of(cacheHome, "stagecoach"));
        }
        if (home != null && home.startsWith("/"))
        {
            candidates.add(Path.of(home, ".cache", "stagecoach"));
        }
        candidates.add(Path.of(tmpdir, "stagecoach-cache-" + Uid.current()));
        return candidates;
    }

    /**
     * Creates the folder where it is missing, mode 0700 (its parent too, {@code .cache}, where missing, but never the
     * home folder above it), and checks it.
     *
     * @return why it cannot be used, or null when it can.
     */
    private static String prepare(final Path folder)
    {
        try
        {
            if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS))
            {
                if (!Files.isDirectory(folder.getParent()))
                {
                    Files.createDirectory(folder.getParent(),
                        PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
                }
                Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
            }
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS))
            {
                return "it cannot be created: " + ex;
            }
        }
        return PrivateDirectory.problemOf(folder);
    }

    private static Path freshTemporary()
    {
        final Path folder = PrivateDirectory.createExclusive(
            Path.of(System.getProperty("java.io.tmpdir")), PrivateDirectory.PREFIX + "native-");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> PrivateDirectory.deleteTree(folder)));
        LOG.info("no private cache folder for native libraries; using {} for this process", folder);
        return folder;
    }
}
