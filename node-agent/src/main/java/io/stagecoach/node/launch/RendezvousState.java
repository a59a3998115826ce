package io.stagecoach.node.launch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.stagecoach.rank.bootstrap.JobSecret;
import io.stagecoach.rank.bootstrap.RendezvousProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.stagecoach.rank.bootstrap.RendezvousProtocol.ANY_JOB;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.BYE;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.DEAD;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.ERR;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.FENCE;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.FENCED;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.GET;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.HELLO;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.LOST;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.NONE;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.OK;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.PUT;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.VALUE;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.VERSION;

/**
 * Everything the rendezvous server knows about its job: who is connected, the keys each rank put, the fence in
 * progress, which ranks died or left, and which peers ranks reported lost. One lock; replies and pushes are collected
 * as {@link Delivery}s and written by the caller after the lock is released.
 * <p>
 * A connection is admitted only by a {@code HELLO} whose proof shows that it knows the job's secret; every refusal
 * before that is one generic line that names nothing of the job. A line that is not a well-formed request gets one
 * {@code ERR} and the connection is closed.
 */
final class RendezvousState
{
    static final int MAX_KEYS_PER_RANK = 4096;
    static final String NOT_ADMITTED = "not admitted: wrong job id or secret";

    private static final Logger LOG = LoggerFactory.getLogger(RendezvousState.class);

    record Delivery(RendezvousSession to, String line)
    {
    }

    private record Waiter(RendezvousSession session, ScheduledFuture<?> timeout)
    {
    }

    private final String jobId;
    private final int size;
    private final JobSecret secret;
    private final long lossGraceMs;
    private final ScheduledExecutorService timer;
    private final RendezvousSession[] sessions;
    private final List<Map<String, String>> store = new ArrayList<>();
    private final Map<Integer, String> dead = new TreeMap<>();
    private final Map<Integer, String> gone = new TreeMap<>();
    private final Set<Integer> lost = new HashSet<>();
    private final Map<Integer, Waiter> fenceWaiters = new HashMap<>();
    private final Map<Integer, PeerLoss> lostPeers = new TreeMap<>();
    private int completedFences;
    private boolean closed;

    RendezvousState(
        final String jobId,
        final int size,
        final JobSecret secret,
        final long lossGraceMs,
        final ScheduledExecutorService timer)
    {
        this.jobId = jobId;
        this.size = size;
        this.secret = secret;
        this.lossGraceMs = lossGraceMs;
        this.timer = timer;
        this.sessions = new RendezvousSession[size];
        for (int i = 0; i < size; i++)
        {
            store.add(new HashMap<>());
        }
    }

    /**
     * @param session that sent the line.
     * @param line    without its terminator.
     * @param out     where replies and pushes are added.
     * @return whether the connection is to be closed once the replies are written.
     */
    synchronized boolean handle(final RendezvousSession session, final String line, final List<Delivery> out)
    {
        final int space = line.indexOf(' ');
        final String command = space < 0 ? line : line.substring(0, space);
        final String rest = space < 0 ? "" : line.substring(space + 1);
        if (session.rank() < 0)
        {
            if (!HELLO.equals(command))
            {
                out.add(new Delivery(session, ERR + " expected HELLO before '" + abbreviate(line) + "'"));
                return true;
            }
            return !hello(session, rest, out);
        }
        return switch (command)
        {
            case PUT -> put(session, rest, out);
            case GET -> get(session, rest, out);
            case FENCE -> fence(session, rest, out);
            case LOST -> lost(session, rest, out);
            case BYE -> bye(session, out);
            default -> refuse(session, "unknown request '" + abbreviate(line) + "'", out);
        };
    }

    synchronized List<Delivery> connectionLost(final RendezvousSession session)
    {
        final List<Delivery> out = new ArrayList<>();
        final int rank = session.rank();
        if (closed || rank < 0 || sessions[rank] != session)
        {
            return out;
        }
        sessions[rank] = null;
        if (!dead.containsKey(rank) && !gone.containsKey(rank) && lost.add(rank))
        {
            LOG.debug("job {}: rank {} lost its connection; its exit status may follow within {} ms", jobId, rank,
                lossGraceMs);
            timer.schedule(() -> reportLoss(rank), lossGraceMs, TimeUnit.MILLISECONDS);
        }
        return out;
    }

    synchronized List<Delivery> rankExited(final int rank, final int exitStatus, final String description)
    {
        checkRank(rank);
        if (0 != exitStatus)
        {
            return rankDied(rank, description);
        }
        final List<Delivery> out = new ArrayList<>();
        lost.remove(rank);
        gone.put(rank, description);
        failFence(rank, description, out);
        return out;
    }

    synchronized List<Delivery> rankDied(final int rank, final String reason)
    {
        checkRank(rank);
        final List<Delivery> out = new ArrayList<>();
        lost.remove(rank);
        if (null != dead.putIfAbsent(rank, reason))
        {
            return out;
        }
        LOG.debug("job {}: rank {} died: {}", jobId, rank, reason);
        for (final RendezvousSession session : sessions)
        {
            if (null != session && session.rank() != rank)
            {
                out.add(new Delivery(session, DEAD + " " + rank + " " + reason));
            }
        }
        failFence(rank, "died (" + reason + ")", out);
        return out;
    }

    synchronized int connectedRanks()
    {
        int connected = 0;
        for (final RendezvousSession session : sessions)
        {
            connected += null == session ? 0 : 1;
        }
        return connected;
    }

    synchronized int ranksInFence()
    {
        return fenceWaiters.size();
    }

    synchronized Map<Integer, PeerLoss> lostPeers()
    {
        return new TreeMap<>(lostPeers);
    }

    synchronized List<RendezvousSession> close()
    {
        closed = true;
        final List<RendezvousSession> open = new ArrayList<>();
        for (final RendezvousSession session : sessions)
        {
            if (null != session)
            {
                open.add(session);
            }
        }
        fenceWaiters.values().forEach(waiter -> waiter.timeout().cancel(false));
        fenceWaiters.clear();
        return open;
    }

    private boolean hello(final RendezvousSession session, final String arguments, final List<Delivery> out)
    {
        final HelloRequest hello = HelloRequest.parse(arguments);
        final String refusal = helloRefusal(session, hello);
        if (null != refusal)
        {
            out.add(new Delivery(session, ERR + " " + refusal));
            LOG.debug("job {}: refused a connection: {}", jobId, refusal);
            return false;
        }
        final int rank = hello.rank();
        session.rank(rank);
        sessions[rank] = session;
        out.add(new Delivery(session, OK));
        dead.forEach((deadRank, reason) -> out.add(new Delivery(session, DEAD + " " + deadRank + " " + reason)));
        LOG.debug("job {}: rank {} connected", jobId, rank);
        return true;
    }

    private String helloRefusal(final RendezvousSession session, final HelloRequest hello)
    {
        if (hello.version() >= 0 && hello.version() != VERSION)
        {
            return "protocol version " + hello.version() + " is not supported, this service speaks version " + VERSION;
        }
        if (!hello.isWellFormed())
        {
            return "malformed HELLO, expected " + HelloRequest.FORM;
        }
        if (!admits(session.challenge(), hello))
        {
            return NOT_ADMITTED;
        }
        if (closed)
        {
            return "the rendezvous service of job " + jobId + " is shutting down";
        }
        final int rank = hello.rank();
        if (hello.size() != size)
        {
            return "job " + jobId + " has " + size + " ranks, rank " + rank + " believes it has " + hello.size();
        }
        if (rank >= size)
        {
            return "rank " + rank + " is not in [0, " + size + ")";
        }
        if (null != sessions[rank])
        {
            return "rank " + rank + " is already connected";
        }
        if (dead.containsKey(rank) || gone.containsKey(rank) || lost.contains(rank))
        {
            return "rank " + rank + " has already left job " + jobId;
        }
        return null;
    }

    private boolean admits(final String challenge, final HelloRequest hello)
    {
        final boolean proven =
            secret.acceptsHelloProof(challenge, hello.jobId(), hello.rank(), hello.size(), hello.proof());
        return proven && (ANY_JOB.equals(hello.jobId()) || jobId.equals(hello.jobId()));
    }

    private boolean put(final RendezvousSession session, final String arguments, final List<Delivery> out)
    {
        final int space = arguments.indexOf(' ');
        final String key = space < 0 ? arguments : arguments.substring(0, space);
        final String value = space < 0 ? "" : arguments.substring(space + 1);
        final Map<String, String> keys = store.get(session.rank());
        if (key.isEmpty() || key.length() > RendezvousProtocol.MAX_KEY_CHARS)
        {
            return refuse(session, "malformed PUT, expected 'PUT <key> <value>'", out);
        }
        if (keys.size() >= MAX_KEYS_PER_RANK && !keys.containsKey(key))
        {
            out.add(new Delivery(session, ERR + " rank " + session.rank() + " already holds " + keys.size() +
                " keys, limit " + MAX_KEYS_PER_RANK + " (PUT " + abbreviate(key) + ")"));
        }
        else
        {
            keys.put(key, value);
            out.add(new Delivery(session, OK));
        }
        return false;
    }

    private boolean get(final RendezvousSession session, final String arguments, final List<Delivery> out)
    {
        final String[] words = arguments.split(" ", -1);
        final int rank = words.length == 2 && !words[1].isEmpty() ? Decimals.parseInt(words[0]) : -1;
        if (rank < 0)
        {
            return refuse(session, "malformed GET, expected 'GET <rank> <key>'", out);
        }
        if (rank >= size)
        {
            out.add(new Delivery(session, ERR + " rank " + rank + " is not in [0, " + size + ")"));
            return false;
        }
        final String value = store.get(rank).get(words[1]);
        out.add(new Delivery(session, null == value ? NONE : VALUE + " " + value));
        return false;
    }

    private boolean fence(final RendezvousSession session, final String arguments, final List<Delivery> out)
    {
        final String[] words = arguments.split(" ", -1);
        final int epoch = words.length == 2 ? Decimals.parseInt(words[0]) : -1;
        final long timeoutMs = words.length == 2 ? Decimals.parseLong(words[1]) : -1;
        if (epoch < 0 || timeoutMs < 1)
        {
            return refuse(session, "malformed FENCE, expected 'FENCE <epoch> <timeout ms>'", out);
        }
        if (epoch != completedFences + 1 || fenceWaiters.containsKey(session.rank()))
        {
            out.add(new Delivery(session, ERR + " fence " + epoch + " out of order: job " + jobId + " has completed " +
                completedFences + " fences, the next is fence " + (completedFences + 1)));
            return false;
        }
        final String impossible = missingForGood();
        if (null != impossible)
        {
            out.add(new Delivery(session, ERR + " fence " + epoch + " cannot complete: " + impossible));
            return false;
        }
        final int rank = session.rank();
        final ScheduledFuture<?> timeout = timer.schedule(() -> fenceTimedOut(rank, epoch, timeoutMs),
            timeoutMs, TimeUnit.MILLISECONDS);
        fenceWaiters.put(rank, new Waiter(session, timeout));
        if (fenceWaiters.size() == size)
        {
            completeFence(out);
        }
        return false;
    }

    private boolean lost(final RendezvousSession session, final String arguments, final List<Delivery> out)
    {
        final int space = arguments.indexOf(' ');
        final int peer = Decimals.parseInt(space < 0 ? arguments : arguments.substring(0, space));
        if (peer < 0 || peer >= size || peer == session.rank())
        {
            return refuse(session, "malformed LOST, expected 'LOST <rank> <reason>' naming another rank of the job",
                out);
        }
        final String reason = RendezvousProtocol.reasonText(space < 0 ? null : arguments.substring(space + 1));
        if (null == lostPeers.putIfAbsent(session.rank(), new PeerLoss(peer, reason)))
        {
            LOG.debug("job {}: rank {} reports it lost rank {}: {}", jobId, session.rank(), peer, reason);
        }
        return false;
    }

    private static boolean refuse(final RendezvousSession session, final String reason, final List<Delivery> out)
    {
        out.add(new Delivery(session, ERR + " " + reason));
        return true;
    }

    private void completeFence(final List<Delivery> out)
    {
        completedFences++;
        for (final Waiter waiter : fenceWaiters.values())
        {
            waiter.timeout().cancel(false);
            out.add(new Delivery(waiter.session(), FENCED + " " + completedFences));
        }
        fenceWaiters.clear();
        LOG.debug("job {}: fence {} complete", jobId, completedFences);
    }

    private void fenceTimedOut(final int rank, final int epoch, final long timeoutMs)
    {
        final List<Delivery> out = new ArrayList<>(1);
        synchronized (this)
        {
            final Waiter waiter = fenceWaiters.get(rank);
            if (null == waiter || epoch != completedFences + 1)
            {
                return;
            }
            fenceWaiters.remove(rank);
            final int arrived = fenceWaiters.size() + 1;
            out.add(new Delivery(waiter.session(), ERR + " fence " + epoch + " timed out after " +
                Durations.format(timeoutMs) + " waiting for " + describeMissing(rank) + " (" + arrived + " of " +
                size + " ranks arrived)"));
        }
        RendezvousSession.deliver(out);
    }

    private String describeMissing(final int waitingRank)
    {
        final StringJoiner missing = new StringJoiner(", ");
        int count = 0;
        for (int rank = 0; rank < size; rank++)
        {
            if (rank != waitingRank && !fenceWaiters.containsKey(rank))
            {
                count++;
                missing.add(null == sessions[rank] ? rank + " (not connected)" : Integer.toString(rank));
            }
        }
        return (count == 1 ? "rank " : "ranks ") + missing;
    }

    private String missingForGood()
    {
        for (final Map.Entry<Integer, String> entry : dead.entrySet())
        {
            if (!fenceWaiters.containsKey(entry.getKey()))
            {
                return "rank " + entry.getKey() + " died (" + entry.getValue() + ")";
            }
        }
        for (final Map.Entry<Integer, String> entry : gone.entrySet())
        {
            if (!fenceWaiters.containsKey(entry.getKey()))
            {
                return "rank " + entry.getKey() + " " + entry.getValue();
            }
        }
        return null;
    }

    private void failFence(final int rank, final String why, final List<Delivery> out)
    {
        if (fenceWaiters.isEmpty() || fenceWaiters.containsKey(rank))
        {
            return;
        }
        final String line = ERR + " fence " + (completedFences + 1) + " cannot complete: rank " + rank + " " + why;
        for (final Waiter waiter : fenceWaiters.values())
        {
            waiter.timeout().cancel(false);
            out.add(new Delivery(waiter.session(), line));
        }
        fenceWaiters.clear();
    }

    private boolean bye(final RendezvousSession session, final List<Delivery> out)
    {
        final int rank = session.rank();
        sessions[rank] = null;
        gone.putIfAbsent(rank, "closed its rendezvous connection");
        failFence(rank, "left the job (closed its rendezvous connection)", out);
        out.add(new Delivery(session, OK));
        LOG.debug("job {}: rank {} left", jobId, rank);
        return true;
    }

    private void reportLoss(final int rank)
    {
        final List<Delivery> out;
        synchronized (this)
        {
            if (closed || !lost.contains(rank))
            {
                return;
            }
            out = rankDied(rank, "lost its rendezvous connection");
        }
        RendezvousSession.deliver(out);
    }

    private void checkRank(final int rank)
    {
        if (rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank " + rank + " is not in [0, " + size + ")");
        }
    }

    private static String abbreviate(final String text)
    {
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }
}
