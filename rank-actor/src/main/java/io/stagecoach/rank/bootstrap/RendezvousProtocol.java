package io.stagecoach.rank.bootstrap;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * The rendezvous service's line-based text protocol, shared by {@link RendezvousClient} and the launcher's server
 * (documented in {@code docs/wire-protocol.md}, section "Rendezvous").
 * <p>
 * Every line is UTF-8 text ended by {@code '\n'}, at most {@link #MAX_LINE_BYTES} bytes. The server opens every
 * connection with {@link #CHALLENGE} (or {@link #BUSY} and a close); the client joins with {@link #HELLO}, proving
 * that it knows the job's secret ({@link JobSecret}). Then the client sends one request at a time and reads exactly
 * one reply line for it, except {@link #LOST}, which has none; the server may push {@link #DEAD} lines at any time.
 */
public final class RendezvousProtocol
{
    public static final int VERSION = 2;
    public static final int MAX_KEY_CHARS = 256;
    public static final int MAX_VALUE_CHARS = 65_536;
    public static final int MAX_LINE_BYTES = 4 * MAX_VALUE_CHARS + 1024;
    /**
     * Longest line the server reads from a connection that has not joined yet (its {@code HELLO}).
     */
    public static final int MAX_HELLO_BYTES = 1024;
    /**
     * Longest reason a {@link #LOST} report keeps, in characters.
     */
    public static final int MAX_REASON_CHARS = 1024;

    public static final String HELLO = "HELLO";
    public static final String PUT = "PUT";
    public static final String GET = "GET";
    public static final String FENCE = "FENCE";
    public static final String BYE = "BYE";
    public static final String LOST = "LOST";

    public static final String OK = "OK";
    public static final String ERR = "ERR";
    public static final String VALUE = "VALUE";
    public static final String NONE = "NONE";
    public static final String FENCED = "FENCED";
    public static final String DEAD = "DEAD";
    public static final String CHALLENGE = "CHALLENGE";
    public static final String BUSY = "BUSY";

    /**
     * Job id sent by a client that does not know its job: the server then accepts it for any job.
     */
    public static final String ANY_JOB = "-";
    /**
     * Proof sent by a client that has no secret; the launcher's service refuses it.
     */
    public static final String NO_PROOF = "-";

    private RendezvousProtocol()
    {
    }

    /**
     * Check that a key can be carried: 1 to {@link #MAX_KEY_CHARS} characters, none of them whitespace or control
     * characters.
     *
     * @param key to check.
     * @throws IllegalArgumentException naming the key and what is wrong with it.
     */
    public static void checkKey(final String key)
    {
        if (null == key || key.isEmpty())
        {
            throw new IllegalArgumentException("rendezvous key must not be empty");
        }
        if (key.length() > MAX_KEY_CHARS)
        {
            throw new IllegalArgumentException(
                "rendezvous key has " + key.length() + " characters, limit " + MAX_KEY_CHARS + ": " +
                key.substring(0, 40) + "...");
        }
        for (int i = 0; i < key.length(); i++)
        {
            final char c = key.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c))
            {
                throw new IllegalArgumentException(
                    "rendezvous key '" + key + "' holds whitespace or a control character at index " + i);
            }
        }
    }

    /**
     * Check that a value can be carried: at most {@link #MAX_VALUE_CHARS} characters, no CR or LF.
     *
     * @param key   the value is stored under, for the message.
     * @param value to check.
     * @throws IllegalArgumentException naming the key and what is wrong with the value.
     */
    public static void checkValue(final String key, final String value)
    {
        if (null == value)
        {
            throw new IllegalArgumentException("rendezvous value of key '" + key + "' must not be null");
        }
        if (value.length() > MAX_VALUE_CHARS)
        {
            throw new IllegalArgumentException(
                "rendezvous value of key '" + key + "' has " + value.length() + " characters, limit " +
                MAX_VALUE_CHARS);
        }
        if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0)
        {
            throw new IllegalArgumentException(
                "rendezvous value of key '" + key + "' holds a line break, which the line protocol cannot carry");
        }
    }

    /**
     * A reason as a {@link #LOST} line carries it: control characters become spaces, at most
     * {@link #MAX_REASON_CHARS} characters, {@code "no reason given"} when nothing is left.
     *
     * @param reason as given, may be null.
     * @return the reason, fit for one line.
     */
    public static String reasonText(final String reason)
    {
        if (null == reason)
        {
            return "no reason given";
        }
        final StringBuilder text = new StringBuilder(Math.min(reason.length(), MAX_REASON_CHARS));
        for (int i = 0; i < reason.length() && text.length() < MAX_REASON_CHARS; i++)
        {
            final char c = reason.charAt(i);
            text.append(Character.isISOControl(c) ? ' ' : c);
        }
        final String trimmed = text.toString().trim();
        return trimmed.isEmpty() ? "no reason given" : trimmed;
    }

    /**
     * An address on the IPv4 loopback network, the only one the rendezvous service uses.
     *
     * @param host {@code localhost} or a literal address in 127.0.0.0/8.
     * @param port the port.
     * @param what names the setting the address comes from, for the message.
     * @return the address, resolved without any name lookup.
     * @throws IllegalStateException when the host is not on the loopback network.
     */
    public static InetSocketAddress loopback(final String host, final int port, final String what)
    {
        final byte[] octets = "localhost".equalsIgnoreCase(host) ? new byte[]{ 127, 0, 0, 1 } : ipv4Octets(host);
        if (null == octets || octets[0] != 127)
        {
            throw new IllegalStateException(
                what + ": the rendezvous service runs on the loopback network (127.0.0.1), not on '" + host + "'");
        }
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(octets), port);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(what + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * The address of a job's rendezvous service on the cluster's network, for a job across nodes: a literal IPv4
     * address, never a name to look up.
     *
     * @param host a literal IPv4 address.
     * @param port the port.
     * @param what names the setting the address comes from, for the message.
     * @return the address.
     * @throws IllegalStateException when the host is not a literal IPv4 address.
     */
    public static InetSocketAddress literal(final String host, final int port, final String what)
    {
        final byte[] octets = ipv4Octets(host);
        if (null == octets)
        {
            throw new IllegalStateException(what + ": a job across nodes names its rendezvous service by a literal " +
                "IPv4 address, not '" + host + "'");
        }
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(octets), port);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(what + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Read one line, without its terminator.
     *
     * @param in       to read from (buffered by the caller).
     * @param maxBytes longest line accepted.
     * @return the line, or null at the end of the stream before any byte of a line.
     * @throws IOException when the stream fails, ends inside a line, or a line exceeds {@code maxBytes}.
     */
    public static String readLine(final InputStream in, final int maxBytes) throws IOException
    {
        final ByteArrayOutputStream line = new ByteArrayOutputStream(128);
        int b;
        while ((b = in.read()) != '\n')
        {
            if (b < 0)
            {
                if (line.size() == 0)
                {
                    return null;
                }
                throw new IOException("stream ended inside a line after " + line.size() + " bytes");
            }
            if (line.size() == maxBytes)
            {
                throw new IOException("line longer than " + maxBytes + " bytes");
            }
            line.write(b);
        }
        final String text = line.toString(StandardCharsets.UTF_8);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }

    private static byte[] ipv4Octets(final String host)
    {
        final String[] parts = host.split("\\.", -1);
        if (parts.length != 4)
        {
            return null;
        }
        final byte[] octets = new byte[4];
        for (int i = 0; i < 4; i++)
        {
            if (parts[i].isEmpty() || parts[i].length() > 3 || !parts[i].chars().allMatch(Character::isDigit))
            {
                return null;
            }
            final int value = Integer.parseInt(parts[i]);
            if (value > 255)
            {
                return null;
            }
            octets[i] = (byte)value;
        }
        return octets;
    }
}
