package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Another local user for tests of what belongs to someone else: {@code nobody}, whose files only root can make.
 */
final class OtherUser
{
    static final int UID = 65534;

    private OtherUser()
    {
    }

    static void assumeAvailable()
    {
        assumeTrue(Uid.current() == 0, "only root can give a file to another user");
    }

    static void chown(final Path path) throws IOException
    {
        Files.setAttribute(path, "unix:uid", UID, LinkOption.NOFOLLOW_LINKS);
    }
}
