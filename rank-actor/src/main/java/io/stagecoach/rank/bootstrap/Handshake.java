package io.stagecoach.rank.bootstrap;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.stagecoach.rank.bootstrap.RendezvousProtocol.BUSY;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.CHALLENGE;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.ERR;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.HELLO;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.NO_PROOF;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.OK;

/**
 * How a {@link RendezvousClient} joins: with a secret, it waits for the service's {@code CHALLENGE} and answers with
 * a {@code HELLO} that carries its proof; without one, it sends its {@code HELLO} at once, which only a service that
 * asks for no secret (a test double) accepts.
 */
final class Handshake
{
    private final RendezvousClient client;
    private final String jobId;
    private final JobSecret secret;
    private final Duration timeout;

    Handshake(final RendezvousClient client, final String jobId, final JobSecret secret, final Duration timeout)
    {
        this.client = client;
        this.jobId = jobId;
        this.secret = secret;
        this.timeout = timeout;
    }

    /**
     * @param deadlineNs by which the service must have answered.
     * @return true when the service accepted this rank; false when it was busy and closed the connection.
     * @throws RendezvousException when the service refused this rank or did not answer in time.
     * @throws IOException         when the connection failed.
     */
    boolean perform(final long deadlineNs) throws IOException
    {
        final long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
        client.socket().setSoTimeout((int)Math.max(1, Math.min(Integer.MAX_VALUE, remainingMs)));
        final String reply = null == secret ? helloWithoutSecret() : helloWithProof();
        if (isBusy(reply))
        {
            return false;
        }
        client.socket().setSoTimeout(0);
        if (!OK.equals(reply))
        {
            throw client.refused("HELLO", reply);
        }
        return true;
    }

    private String helloWithProof() throws IOException
    {
        final String first = client.readHandshakeLine("its CHALLENGE", timeout);
        if (isBusy(first))
        {
            return first;
        }
        if (!first.startsWith(CHALLENGE + " "))
        {
            throw client.refused("HELLO", first);
        }
        final String challenge = first.substring(CHALLENGE.length() + 1);
        client.writeHandshakeLine(hello(secret.helloProof(challenge, jobId, client.rank(), client.size())));
        return client.readHandshakeLine("a reply to HELLO", timeout);
    }

    private String helloWithoutSecret() throws IOException
    {
        client.writeHandshakeLine(hello(NO_PROOF));
        final String first = client.readHandshakeLine("a reply to HELLO", timeout);
        if (!first.startsWith(CHALLENGE + " "))
        {
            return first;
        }
        final String reply = client.readHandshakeLine("a reply to HELLO", timeout);
        if (isBusy(reply))
        {
            return reply;
        }
        throw new RendezvousException("rank " + client.rank() + ": HELLO failed: the rendezvous service at " +
            RendezvousClient.format(client.serverAddress()) + " admits only ranks that know the job's secret (" +
            LaunchEnvironment.SECRET + "), and this rank was given none" +
            (reply.startsWith(ERR + " ") ? " (" + reply.substring(ERR.length() + 1) + ")" : ""));
    }

    private String hello(final String proof)
    {
        return HELLO + " " + RendezvousProtocol.VERSION + " " + jobId + " " + client.rank() + " " + client.size() +
            " " + proof;
    }

    private static boolean isBusy(final String line)
    {
        return line.equals(BUSY) || line.startsWith(BUSY + " ");
    }
}
