package io.stagecoach.pipeline.transport.aeron;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Aeron transport of one rank: an inbox (an IPC subscription, plus a UDP one when peers run on other nodes)
 * and one exclusive publication per peer, itself included. Messages are multiplexed on these streams by the
 * Stagecoach header, so a job of N ranks uses N streams, not one per pair.
 * <p>
 * Not thread safe: one thread at a time runs {@link #doWork(FragmentHandler, int)} and uses the publications.
 * The Aeron client's conductor keeps its own thread, which sleeps between duty cycles: keep-alives to the media
 * driver then never wait for the rank's progress, so a long duty cycle or a busy machine cannot get a live rank
 * declared dead. Image callbacks arrive on that thread; inbox checks on the thread of
 * {@link #doWork(FragmentHandler, int)}.
 */
public final class AeronTransport implements AutoCloseable
{
    /** Interval between the Aeron client's keep-alives to the media driver. */
    public static final long KEEP_ALIVE_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(250);
    /**
     * How long the client waits for the media driver's heartbeat before it gives up on the driver: long enough for
     * a pause of the process that runs the driver (the launcher's JVM, or a rank's for an embedded driver).
     */
    public static final long DRIVER_TIMEOUT_MS = TimeUnit.SECONDS.toMillis(20);

    private static final Logger LOG = LoggerFactory.getLogger(AeronTransport.class);

    private final AeronTransportContext context;
    private final Aeron aeron;
    private final Subscription ipcInbox;
    private final Subscription udpInbox;
    private final ExclusivePublication[] publications;
    private final AtomicIntegerArray imageSeen;
    private final AtomicIntegerArray streamLost;
    private final boolean[] inboxLost;
    private FragmentAssembler assembler;
    private final LocalSessionFilter udpFilter = new LocalSessionFilter();
    private final boolean[] localRanks;
    private long localSessionFragmentsOverUdp;
    private long nextLivenessCheckNs;
    private boolean wiredUp;
    private final boolean ipcNeedsAssembly;
    private volatile boolean closed;

    private AeronTransport(final AeronTransportContext context, final Aeron aeron)
    {
        this.context = context;
        this.aeron = aeron;
        final int size = context.size();
        this.publications = new ExclusivePublication[size];
        this.imageSeen = new AtomicIntegerArray(size);
        this.streamLost = new AtomicIntegerArray(size);
        this.inboxLost = new boolean[size];
        this.ipcNeedsAssembly = context.ipcNeedsAssembly();
        this.nextLivenessCheckNs = System.nanoTime();
        this.localRanks = new boolean[size];
        for (int peer = 0; peer < size; peer++)
        {
            localRanks[peer] = context.isLocal(peer);
        }
        final int streamId = context.streamIdBase() + context.rank();
        this.ipcInbox = aeron.addSubscription("aeron:ipc", streamId, this::onAvailableImage, this::onUnavailableImage);
        this.udpInbox = context.hasRemotePeers() ? aeron.addSubscription(
            context.udpSubscriptionChannel(), streamId, this::onAvailableUdpImage, this::onUnavailableUdpImage) : null;
        for (int peer = 0; peer < size; peer++)
        {
            publications[peer] =
                aeron.addExclusivePublication(context.publicationChannel(peer), context.streamIdBase() + peer);
        }
    }

    /**
     * Connects to the node's media driver and adds the inbox and the publications. Returns before the peers are
     * connected: see {@link #isWiredUp()}.
     *
     * @param context concluded configuration.
     * @param errorHandler told of errors the Aeron client meets outside a call.
     * @return the transport.
     */
    public static AeronTransport connect(final AeronTransportContext context, final ErrorHandler errorHandler)
    {
        context.conclude();
        final Aeron aeron = Aeron.connect(new Aeron.Context()
            .aeronDirectoryName(context.aeronDirectoryName())
            .clientName("stagecoach-rank-" + context.rank())
            .keepAliveIntervalNs(KEEP_ALIVE_INTERVAL_NS)
            .driverTimeoutMs(DRIVER_TIMEOUT_MS)
            .threadFactory(DaemonThreads.factory("stagecoach-aeron-client-" + context.rank()))
            .errorHandler(errorHandler)
            .subscriberErrorHandler(errorHandler));
        try
        {
            final AeronTransport transport = new AeronTransport(context, aeron);
            LOG.debug("rank {} transport added inbox stream {} and {} publications", context.rank(),
                context.streamIdBase() + context.rank(), context.size());
            return transport;
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(aeron);
            throw ex;
        }
    }

    /**
     * @return this rank.
     */
    public int rank()
    {
        return context.rank();
    }

    /**
     * @return number of ranks.
     */
    public int size()
    {
        return context.size();
    }

    /**
     * @return the directory of the node's media driver, shared by the ranks of this node.
     */
    public String aeronDirectoryName()
    {
        return aeron.context().aeronDirectoryName();
    }

    /**
     * @param rank a peer.
     * @return the exclusive publication to that peer's inbox.
     */
    public ExclusivePublication publication(final int rank)
    {
        return publications[rank];
    }

    /**
     * @param rank a peer.
     * @return true when the peer is on this node and reached over IPC.
     */
    public boolean isLocal(final int rank)
    {
        return context.isLocal(rank);
    }

    /**
     * @param sessionId the session id of an image of the inbox.
     * @return the rank that publishes with that session id, or -1 for a session of no rank of this job.
     */
    public int rankOfSession(final int sessionId)
    {
        final int rank = sessionId - context.sessionIdBase();
        return rank >= 0 && rank < context.size() ? rank : -1;
    }

    /**
     * @return true once every publication is connected and an image from every peer arrived: every rank of the
     * job is up.
     */
    public boolean isWiredUp()
    {
        if (!wiredUp)
        {
            wiredUp = missingPeers().isEmpty();
        }
        return wiredUp;
    }

    /**
     * @param rank a peer.
     * @return true once the publication to that rank is connected and an image from it arrived.
     */
    public boolean isConnected(final int rank)
    {
        return publications[rank].isConnected() && imageSeen.get(rank) != 0;
    }

    /**
     * @return ranks not yet connected both ways, for a timeout message, for example {@code [2, 3]}.
     */
    public String missingPeers()
    {
        final StringBuilder missing = new StringBuilder();
        for (int peer = 0; peer < publications.length; peer++)
        {
            if (!isConnected(peer))
            {
                missing.append(missing.length() == 0 ? "" : ", ").append(peer);
            }
        }
        return missing.length() == 0 ? "" : "[" + missing + "]";
    }

    /**
     * @param rank a peer.
     * @return true once the stream from that rank has ended: its publication closed, or its client was timed out.
     */
    public boolean streamEnded(final int rank)
    {
        return streamLost.get(rank) != 0;
    }

    /**
     * One duty cycle: polls the inbox and, at its interval, checks that the peers' inboxes are still connected.
     *
     * @param handler       receives each message, reassembled when Aeron fragmented it.
     * @param fragmentLimit most fragments to read from each inbox subscription.
     * @return work done.
     */
    public int doWork(final FragmentHandler handler, final int fragmentLimit)
    {
        return doWork(handler, fragmentLimit, System.nanoTime());
    }

    /**
     * One duty cycle at a known time.
     *
     * @param handler       receives each message, reassembled when Aeron fragmented it; the same handler on every
     *                      call.
     * @param fragmentLimit most fragments to read from each inbox subscription.
     * @param nowNs         {@link System#nanoTime()} of the caller's duty cycle.
     * @return work done.
     */
    public int doWork(final FragmentHandler handler, final int fragmentLimit, final long nowNs)
    {
        int workCount = 0;
        final FragmentHandler assembler = assembler(handler);
        workCount += ipcInbox.poll(ipcNeedsAssembly ? assembler : handler, fragmentLimit);
        if (udpInbox != null)
        {
            udpFilter.delegate = assembler;
            workCount += udpInbox.poll(udpFilter, fragmentLimit);
        }
        if (nowNs - nextLivenessCheckNs >= 0)
        {
            nextLivenessCheckNs = nowNs + context.livenessCheckIntervalNs();
            checkInboxes();
        }
        return workCount;
    }

    /**
     * Closes the publications, the inbox and the Aeron client. A peer sees the streams from this rank end after
     * it has read what they hold.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        CloseHelper.closeAll(publications);
        CloseHelper.closeAll(ipcInbox, udpInbox);
        CloseHelper.close(aeron);
    }

    /**
     * @return fragments that arrived over UDP with the session of a rank of this node, and were dropped.
     */
    public long localSessionFragmentsOverUdp()
    {
        return localSessionFragmentsOverUdp;
    }

    /**
     * Drops what arrives over UDP in the name of a rank of this node: such a rank sends over IPC only, so it is a
     * forgery by someone who reached the port (another local user, say), which must not pass for a same-node peer,
     * whose messages may name its memory to read. The first is logged, all are counted.
     */
    private final class LocalSessionFilter implements FragmentHandler
    {
        private FragmentHandler delegate;

        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            if (isLocalSession(header.sessionId()))
            {
                if (0 == localSessionFragmentsOverUdp++)
                {
                    LOG.warn("rank {} drops what arrives over UDP in the name of rank {} of its own node (session {}, " +
                        "stream {}): a rank of this node sends over IPC only", context.rank(),
                        rankOfSession(header.sessionId()), header.sessionId(), header.streamId());
                }
                return;
            }
            delegate.onFragment(buffer, offset, length, header);
        }
    }

    private FragmentHandler assembler(final FragmentHandler handler)
    {
        if (assembler == null || assembler.delegate() != handler)
        {
            assembler = new FragmentAssembler(handler);
        }
        return assembler;
    }

    private void onAvailableImage(final Image image)
    {
        final int peer = rankOfSession(image.sessionId());
        if (peer < 0)
        {
            LOG.warn("rank {} ignores an image of session {} from {}: no rank of this job publishes with it",
                context.rank(), image.sessionId(), image.sourceIdentity());
            return;
        }
        imageSeen.set(peer, 1);
        LOG.debug("rank {} receives from rank {} ({})", context.rank(), peer, image.sourceIdentity());
    }

    /**
     * An image over UDP in the name of a rank of this node is a forgery (such a rank sends over IPC): it neither
     * counts as that rank's stream nor, when it goes, as its loss.
     */
    private void onAvailableUdpImage(final Image image)
    {
        if (!isLocalSession(image.sessionId()))
        {
            onAvailableImage(image);
        }
    }

    private void onUnavailableUdpImage(final Image image)
    {
        if (!isLocalSession(image.sessionId()))
        {
            onUnavailableImage(image);
        }
    }

    private boolean isLocalSession(final int sessionId)
    {
        final int rank = rankOfSession(sessionId);
        return rank >= 0 && localRanks[rank];
    }

    private void onUnavailableImage(final Image image)
    {
        final int peer = rankOfSession(image.sessionId());
        if (peer >= 0 && !closed && streamLost.compareAndSet(peer, 0, 1))
        {
            context.listener().onPeerStreamLost(peer, "the stream from rank " + peer + " ended (" +
                (image.isEndOfStream() ? "its publication closed" : "its image became unavailable") + " at " +
                image.position() + " bytes)");
        }
    }

    private void checkInboxes()
    {
        if (!wiredUp)
        {
            return;
        }
        for (int peer = 0; peer < publications.length; peer++)
        {
            if (!inboxLost[peer] && !publications[peer].isConnected())
            {
                inboxLost[peer] = true;
                context.listener().onPeerInboxLost(peer, "rank " + peer + "'s inbox is no longer connected (" +
                    TimeUnit.NANOSECONDS.toMillis(context.livenessCheckIntervalNs()) + " ms check)");
            }
        }
    }
}
