package io.stagecoach.node.agent;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;

/**
 * An agent's state folder: created where missing, owned by the agent's user, never a symbolic link, mode 0700
 * (0710 where the group may use the control socket, so that it can reach the socket but list nothing); the control
 * socket {@value #SOCKET_NAME} lives in it.
 */
public final class StateFolder
{
    /** The control socket's name in the folder. */
    public static final String SOCKET_NAME = "agent.sock";

    private static final Set<PosixFilePermission> OWNER_MODE = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> GROUP_MODE = PosixFilePermissions.fromString("rwx--x---");

    private StateFolder()
    {
    }

    /**
     * @param folder a state folder.
     * @return its control socket's path.
     */
    public static Path socketOf(final Path folder)
    {
        return folder.resolve(SOCKET_NAME);
    }

    /**
     * Makes the folder ready: creates it, checks that it is this user's own folder and sets its mode; removes a
     * control socket that no agent serves any more.
     *
     * @param folder      the folder.
     * @param groupAccess true where the group may reach the socket.
     * @return the control socket's path, free.
     * @throws IOException where the folder cannot be made private, or another agent serves its socket.
     */
    public static Path prepare(final Path folder, final boolean groupAccess) throws IOException
    {
        if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS))
        {
            Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(OWNER_MODE));
        }
        final PosixFileAttributes attributes =
            Files.readAttributes(folder, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isDirectory())
        {
            throw new IOException("state folder " + folder + " is no folder (or a symbolic link)");
        }
        final UserPrincipal me = folder.getFileSystem().getUserPrincipalLookupService()
            .lookupPrincipalByName(System.getProperty("user.name"));
        if (!attributes.owner().equals(me))
        {
            throw new IOException("state folder " + folder + " belongs to " + attributes.owner().getName() +
                ", not to " + me.getName());
        }
        Files.setPosixFilePermissions(folder, groupAccess ? GROUP_MODE : OWNER_MODE);
        final Path socket = socketOf(folder);
        if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS))
        {
            if (served(socket))
            {
                throw new IOException("another agent serves " + socket + "; one agent per state folder");
            }
            Files.delete(socket);
        }
        return socket;
    }

    private static boolean served(final Path socket)
    {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX))
        {
            return channel.connect(UnixDomainSocketAddress.of(socket));
        }
        catch (final IOException ex)
        {
            return false;
        }
    }
}
