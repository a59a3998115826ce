package io.stagecoach.rank.bootstrap;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret of one job, known to the launcher's rendezvous service and to the job's ranks. A rank proves that it
 * knows it when it joins: its {@code HELLO} carries an HMAC-SHA256, keyed by the secret, of the service's one-time
 * challenge and the HELLO's own fields, so the secret itself never crosses the socket and a proof cannot be replayed
 * on another connection. The launcher makes one per job ({@link #generate()}) and gives it to its ranks in their
 * environment ({@link LaunchEnvironment#SECRET}), never on a command line, which every local user can read.
 * <p>
 * {@link #toString()} never shows the secret; {@link #text()} does, for the environment only.
 */
public final class JobSecret
{
    /**
     * Length of a generated secret: 256 bits.
     */
    public static final int BYTES = 32;
    /**
     * Shortest secret accepted from the environment: 128 bits.
     */
    public static final int MIN_BYTES = 16;
    /**
     * Length of a service's challenge: 128 bits, fresh for every connection.
     */
    public static final int CHALLENGE_BYTES = 16;

    private static final int MAX_BYTES = 64;
    private static final String ALGORITHM = "HmacSHA256";
    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;

    private JobSecret(final byte[] key)
    {
        this.key = key;
    }

    /**
     * @return a new secret of {@link #BYTES} bytes from {@link SecureRandom}.
     */
    public static JobSecret generate()
    {
        return new JobSecret(randomBytes(BYTES));
    }

    /**
     * Read a secret in the form of {@link #text()}.
     *
     * @param text hexadecimal digits, {@link #MIN_BYTES} to 64 bytes.
     * @return the secret.
     * @throws IllegalArgumentException saying what is wrong, without repeating the text.
     */
    public static JobSecret fromText(final String text)
    {
        final String digits = null == text ? "" : text.trim();
        if (digits.length() < 2 * MIN_BYTES || digits.length() > 2 * MAX_BYTES || digits.length() % 2 != 0 ||
            !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0))
        {
            throw new IllegalArgumentException("is not a job secret: expected an even number of " + 2 * MIN_BYTES +
                " to " + 2 * MAX_BYTES + " hexadecimal digits, found " + digits.length() + " characters");
        }
        return new JobSecret(HEX.parseHex(digits));
    }

    /**
     * @return a fresh challenge of {@link #CHALLENGE_BYTES} random bytes, as hexadecimal digits.
     */
    public static String newChallenge()
    {
        return HEX.formatHex(randomBytes(CHALLENGE_BYTES));
    }

    /**
     * @return the secret as hexadecimal digits, the form of {@link LaunchEnvironment#SECRET}.
     */
    public String text()
    {
        return HEX.formatHex(key);
    }

    /**
     * The proof a rank sends in its {@code HELLO}.
     *
     * @param challenge the service sent on this connection.
     * @param jobId     the HELLO names.
     * @param rank      the HELLO names.
     * @param size      the HELLO names.
     * @return HMAC-SHA256 of the challenge and these fields under this secret, as 64 hexadecimal digits.
     */
    public String helloProof(final String challenge, final String jobId, final int rank, final int size)
    {
        return HEX.formatHex(mac(challenge, jobId, rank, size));
    }

    /**
     * Check a HELLO's proof, in time that does not depend on where it differs.
     *
     * @param challenge the service sent on this connection.
     * @param jobId     the HELLO names.
     * @param rank      the HELLO names.
     * @param size      the HELLO names.
     * @param proof     the HELLO carries.
     * @return whether the proof was made with this secret for this challenge and these fields.
     */
    public boolean acceptsHelloProof(
        final String challenge, final String jobId, final int rank, final int size, final String proof)
    {
        final byte[] expected = mac(challenge, jobId, rank, size);
        if (null == proof || proof.length() != 2 * expected.length)
        {
            return false;
        }
        try
        {
            return MessageDigest.isEqual(expected, HEX.parseHex(proof));
        }
        catch (final IllegalArgumentException ex)
        {
            return false;
        }
    }

    /**
     * Load the MAC's provider, as its first use does, which can take a while on a loaded machine: done before a
     * client connects, so that its proof goes out well within the service's HELLO timeout.
     */
    void loadAlgorithm()
    {
        mac(newChallenge(), RendezvousProtocol.ANY_JOB, 0, 1);
    }

    public String toString()
    {
        return "JobSecret(" + key.length * 8 + " bits)";
    }

    private byte[] mac(final String challenge, final String jobId, final int rank, final int size)
    {
        final String message = "stagecoach rendezvous HELLO " + RendezvousProtocol.VERSION + " " + challenge + " " +
            jobId + " " + rank + " " + size;
        try
        {
            final Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM: " + ex.getMessage(), ex);
        }
    }

    private static byte[] randomBytes(final int length)
    {
        final byte[] bytes = new byte[length];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
