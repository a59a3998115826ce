package io.stagecoach.node.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;

/**
 * The key of a cluster of agents: a PKCS12 key store holding one key and its certificate, made once by the deployment
 * and given to every agent of the cluster, which uses it both to prove itself and to trust the others (mutual TLS
 * between agents, Artery's {@code tls-tcp}); a process without it cannot join or talk to the cluster. Its password
 * comes from a file of its own, never from a command line. Both files must be regular files of this user that no
 * other user can read or write.
 *
 * @param keyStore the key store.
 * @param password its password, the first line of the password file.
 */
public record ClusterKey(Path keyStore, String password)
{
    /**
     * @param keyStoreKey     the configuration key naming the key store, for errors.
     * @param keyStore        the key store.
     * @param passwordFileKey the configuration key naming the password file, for errors.
     * @param passwordFile    the file whose first line is the password.
     * @return the key.
     * @throws AgentConfigException naming the key, the file and what is wrong with it.
     */
    public static ClusterKey read(
        final String keyStoreKey, final Path keyStore, final String passwordFileKey, final Path passwordFile)
    {
        checkPrivate(keyStoreKey, keyStore);
        checkPrivate(passwordFileKey, passwordFile);
        final List<String> lines;
        try
        {
            // opened without following a link, as checked: a link put there after the check is refused
            try (InputStream in = Files.newInputStream(passwordFile, LinkOption.NOFOLLOW_LINKS))
            {
                lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            }
        }
        catch (final IOException ex)
        {
            throw new AgentConfigException(passwordFileKey, passwordFile, "a readable file: " + ex.getMessage());
        }
        if (lines.isEmpty() || lines.get(0).isEmpty())
        {
            throw new AgentConfigException(passwordFileKey, passwordFile, "a file whose first line is the password");
        }
        return new ClusterKey(keyStore, lines.get(0));
    }

    private static void checkPrivate(final String key, final Path file)
    {
        if (!file.isAbsolute())
        {
            throw new AgentConfigException(key, file, "an absolute path");
        }
        final PosixFileAttributes attributes;
        try
        {
            attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }
        catch (final IOException ex)
        {
            throw new AgentConfigException(key, file, "an existing file (" + ex.getMessage() + ")");
        }
        if (!attributes.isRegularFile())
        {
            throw new AgentConfigException(key, file, "a regular file, not a link or a folder");
        }
        final String user = System.getProperty("user.name");
        if (!attributes.owner().getName().equals(user))
        {
            throw new AgentConfigException(key, file, "a file of user " + user + ", not of " +
                attributes.owner().getName());
        }
        for (final PosixFilePermission permission : attributes.permissions())
        {
            if (permission.name().startsWith("GROUP_") || permission.name().startsWith("OTHERS_"))
            {
                throw new AgentConfigException(key, file, "a file only its owner may read or write (0600 or " +
                    "0400), not " + java.nio.file.attribute.PosixFilePermissions.toString(attributes.permissions()));
            }
        }
    }

    public String toString()
    {
        return "ClusterKey[" + keyStore + "]";
    }
}
