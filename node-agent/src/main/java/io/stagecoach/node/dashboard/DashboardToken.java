package io.stagecoach.node.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The token a dashboard off loopback asks for: read from a file of this user's that no one else may read, never from
 * a command line, or made at random.
 */
public final class DashboardToken
{
    /** The fewest characters a token has. */
    public static final int MIN_LENGTH = 16;

    private DashboardToken()
    {
    }

    /**
     * @param file    holds the token (surrounding white space ignored); a regular file, not a link, of this process's
     *                user, mode 0600 or stricter.
     * @param setting what named the file, for the errors.
     * @return the token.
     * @throws IOException naming the setting and the file where it cannot be read or is not private.
     */
    public static String read(final Path file, final String setting) throws IOException
    {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS))
        {
            throw new IOException(setting + "=" + file + " is not a regular file");
        }
        final String owner = Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).getName();
        if (!owner.equals(System.getProperty("user.name")))
        {
            throw new IOException(setting + "=" + file + " belongs to " + owner + ", not to " +
                System.getProperty("user.name") + ", who runs this");
        }
        final String mode =
            PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
        if (!mode.endsWith("------"))
        {
            throw new IOException(setting + "=" + file + " may be read by others (mode " + mode + "): make it 0600");
        }
        final String token;
        // opened without following a link, as checked: a link put there after the check is refused
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS))
        {
            token = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
        if (token.length() < MIN_LENGTH)
        {
            throw new IOException(setting + "=" + file + " holds " + token.length() + " characters, fewer than the " +
                MIN_LENGTH + " a token needs");
        }
        return token;
    }

    /**
     * @return 48 random hexadecimal digits.
     */
    public static String random()
    {
        final byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}
