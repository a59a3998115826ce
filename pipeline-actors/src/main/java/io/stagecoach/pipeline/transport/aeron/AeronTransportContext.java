package io.stagecoach.pipeline.transport.aeron;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.logbuffer.LogBufferDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;

/**
 * Configuration of an {@link AeronTransport}, Aeron style: setters return this, {@link #conclude()} validates.
 * <p>
 * Every rank owns one inbox: stream {@code streamIdBase + rank} on the node's IPC channel for ranks of its node,
 * and the same stream id on its UDP endpoint for ranks of other nodes. A rank has one exclusive publication per
 * peer, with session id {@code sessionIdBase + rank} so that a receiver knows the sender of an image before any
 * message arrives.
 */
public final class AeronTransportContext
{
    /** Default first stream id. */
    public static final int DEFAULT_STREAM_ID_BASE = 0x5C_0000;
    /** Default term length of IPC publications. */
    public static final int DEFAULT_IPC_TERM_LENGTH_BYTES = 1024 * 1024;
    /** Default MTU of IPC publications: the largest Aeron allows, so that large DATA fragments stay whole. */
    public static final int DEFAULT_IPC_MTU_BYTES = 65_504;
    /** Default term length of UDP publications. */
    public static final int DEFAULT_UDP_TERM_LENGTH_BYTES = 1024 * 1024;
    /** Default MTU of UDP publications, safe on an Ethernet network without jumbo frames. */
    public static final int DEFAULT_UDP_MTU_BYTES = 1408;

    private int rank = -1;
    private List<PeerAddress> peers = new ArrayList<>();
    private String aeronDirectoryName;
    private int streamIdBase = DEFAULT_STREAM_ID_BASE;
    private int sessionIdBase;
    private int ipcTermLengthBytes = DEFAULT_IPC_TERM_LENGTH_BYTES;
    private int ipcMtuBytes = DEFAULT_IPC_MTU_BYTES;
    private int udpTermLengthBytes = DEFAULT_UDP_TERM_LENGTH_BYTES;
    private int udpMtuBytes = DEFAULT_UDP_MTU_BYTES;
    private long livenessCheckIntervalNs = TimeUnit.MILLISECONDS.toNanos(50);
    private int largestOfferBytes = 64 * 1024;
    private TransportListener listener;

    /**
     * Validates the settings.
     *
     * @return this.
     * @throws IllegalArgumentException naming the setting, its value and the limit it breaks.
     */
    public AeronTransportContext conclude()
    {
        if (peers.isEmpty())
        {
            throw new IllegalArgumentException("no peers: the address of every rank, this one included, is needed");
        }
        if (rank < 0 || rank >= peers.size())
        {
            throw new IllegalArgumentException("rank " + rank + " is outside [0, " + peers.size() + ")");
        }
        Objects.requireNonNull(aeronDirectoryName, "aeronDirectoryName");
        Objects.requireNonNull(listener, "listener");
        if ((long)streamIdBase + peers.size() > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("stream id base " + streamIdBase + " + " + peers.size() +
                " ranks overflows an int");
        }
        LogBufferDescriptor.checkTermLength(ipcTermLengthBytes);
        LogBufferDescriptor.checkTermLength(udpTermLengthBytes);
        checkMtu("IPC", ipcMtuBytes, ipcTermLengthBytes);
        checkMtu("UDP", udpMtuBytes, udpTermLengthBytes);
        for (int i = 0; i < peers.size(); i++)
        {
            if (!isLocal(i) && peers.get(i).udpEndpoint() == null)
            {
                throw new IllegalArgumentException("rank " + i + " runs on node " + peers.get(i).node() +
                    ", not on this rank's node " + peers.get(rank).node() + ", but has no UDP endpoint");
            }
        }
        if (hasRemotePeers() && peers.get(rank).udpEndpoint() == null)
        {
            throw new IllegalArgumentException("rank " + rank + " has peers on other nodes but no UDP endpoint");
        }
        return this;
    }

    /**
     * @return this rank.
     */
    public int rank()
    {
        return rank;
    }

    /**
     * @param rank this rank, in [0, number of peers).
     * @return this.
     */
    public AeronTransportContext rank(final int rank)
    {
        this.rank = rank;
        return this;
    }

    /**
     * @return addresses of all ranks, indexed by rank.
     */
    public List<PeerAddress> peers()
    {
        return peers;
    }

    /**
     * @param peers addresses of all ranks, this one included, indexed by rank.
     * @return this.
     */
    public AeronTransportContext peers(final List<PeerAddress> peers)
    {
        this.peers = List.copyOf(peers);
        return this;
    }

    /**
     * @return number of ranks.
     */
    public int size()
    {
        return peers.size();
    }

    /**
     * @param rank a rank.
     * @return true when that rank runs on this rank's node and is reached over IPC.
     */
    public boolean isLocal(final int rank)
    {
        return peers.get(rank).node().equals(peers.get(this.rank).node());
    }

    /**
     * @return true when some rank runs on another node.
     */
    public boolean hasRemotePeers()
    {
        for (int i = 0; i < peers.size(); i++)
        {
            if (!isLocal(i))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return directory of the node's media driver.
     */
    public String aeronDirectoryName()
    {
        return aeronDirectoryName;
    }

    /**
     * @param directoryName directory of the node's media driver.
     * @return this.
     */
    public AeronTransportContext aeronDirectoryName(final String directoryName)
    {
        this.aeronDirectoryName = directoryName;
        return this;
    }

    /**
     * @return stream id of rank 0's inbox.
     */
    public int streamIdBase()
    {
        return streamIdBase;
    }

    /**
     * @param streamIdBase stream id of rank 0's inbox; rank r listens on {@code streamIdBase + r}.
     * @return this.
     */
    public AeronTransportContext streamIdBase(final int streamIdBase)
    {
        this.streamIdBase = streamIdBase;
        return this;
    }

    /**
     * @return session id of rank 0's publications.
     */
    public int sessionIdBase()
    {
        return sessionIdBase;
    }

    /**
     * @param sessionIdBase session id of rank 0's publications; rank r publishes with {@code sessionIdBase + r}.
     *                      Jobs that share a media driver must use different bases.
     * @return this.
     */
    public AeronTransportContext sessionIdBase(final int sessionIdBase)
    {
        this.sessionIdBase = sessionIdBase;
        return this;
    }

    /**
     * @return term length of IPC publications.
     */
    public int ipcTermLengthBytes()
    {
        return ipcTermLengthBytes;
    }

    /**
     * @param lengthBytes term length of IPC publications, a power of two in [64 KiB, 1 GiB].
     * @return this.
     */
    public AeronTransportContext ipcTermLengthBytes(final int lengthBytes)
    {
        this.ipcTermLengthBytes = lengthBytes;
        return this;
    }

    /**
     * @return MTU of IPC publications.
     */
    public int ipcMtuBytes()
    {
        return ipcMtuBytes;
    }

    /**
     * @param mtuBytes MTU of IPC publications, a multiple of 32 up to 65504.
     * @return this.
     */
    public AeronTransportContext ipcMtuBytes(final int mtuBytes)
    {
        this.ipcMtuBytes = mtuBytes;
        return this;
    }

    /**
     * @return term length of UDP publications.
     */
    public int udpTermLengthBytes()
    {
        return udpTermLengthBytes;
    }

    /**
     * @param lengthBytes term length of UDP publications, a power of two in [64 KiB, 1 GiB].
     * @return this.
     */
    public AeronTransportContext udpTermLengthBytes(final int lengthBytes)
    {
        this.udpTermLengthBytes = lengthBytes;
        return this;
    }

    /**
     * @return MTU of UDP publications.
     */
    public int udpMtuBytes()
    {
        return udpMtuBytes;
    }

    /**
     * @param mtuBytes MTU of UDP publications, a multiple of 32 up to 65504; above the network's MTU datagrams
     *                 are fragmented by IP.
     * @return this.
     */
    public AeronTransportContext udpMtuBytes(final int mtuBytes)
    {
        this.udpMtuBytes = mtuBytes;
        return this;
    }

    /**
     * @return interval between checks that every peer's inbox is still connected.
     */
    public long livenessCheckIntervalNs()
    {
        return livenessCheckIntervalNs;
    }

    /**
     * @param intervalNs interval between checks that every peer's inbox is still connected.
     * @return this.
     */
    public AeronTransportContext livenessCheckIntervalNs(final long intervalNs)
    {
        this.livenessCheckIntervalNs = intervalNs;
        return this;
    }

    /**
     * @return the largest message the owner may offer whole; larger ones must be cut to fit a frame.
     */
    public int largestOfferBytes()
    {
        return largestOfferBytes;
    }

    /**
     * @param lengthBytes the largest message the owner may offer whole (and Aeron fragment): it decides whether
     *                    IPC messages need reassembly. When every IPC message fits one frame the IPC inbox is
     *                    polled without a fragment assembler.
     * @return this.
     */
    public AeronTransportContext largestOfferBytes(final int lengthBytes)
    {
        this.largestOfferBytes = lengthBytes;
        return this;
    }

    boolean ipcNeedsAssembly()
    {
        return largestOfferBytes > ipcMtuBytes - DataHeaderFlyweight.HEADER_LENGTH;
    }

    /**
     * @return who is told of lost peers.
     */
    public TransportListener listener()
    {
        return listener;
    }

    /**
     * @param listener told of lost peers, on the thread that runs the transport's duty cycle.
     * @return this.
     */
    public AeronTransportContext listener(final TransportListener listener)
    {
        this.listener = listener;
        return this;
    }

    String inboxChannel(final int rank)
    {
        if (isLocal(rank))
        {
            return "aeron:ipc?term-length=" + ipcTermLengthBytes + "|mtu=" + ipcMtuBytes;
        }
        return "aeron:udp?endpoint=" + peers.get(rank).udpEndpoint() + "|term-length=" + udpTermLengthBytes +
            "|mtu=" + udpMtuBytes;
    }

    String publicationChannel(final int rank)
    {
        return inboxChannel(rank) + "|session-id=" + (sessionIdBase + this.rank);
    }

    String udpSubscriptionChannel()
    {
        return "aeron:udp?endpoint=" + peers.get(rank).udpEndpoint();
    }

    private static void checkMtu(final String medium, final int mtuBytes, final int termLengthBytes)
    {
        if (mtuBytes < 128 || mtuBytes > 65_504 || (mtuBytes & (FrameDescriptor.FRAME_ALIGNMENT - 1)) != 0)
        {
            throw new IllegalArgumentException(medium + " MTU " + mtuBytes + " bytes must be a multiple of " +
                FrameDescriptor.FRAME_ALIGNMENT + " in [128, 65504]");
        }
        final int maxMessageBytes = FrameDescriptor.computeMaxMessageLength(termLengthBytes);
        if (mtuBytes > maxMessageBytes)
        {
            throw new IllegalArgumentException(medium + " MTU " + mtuBytes + " bytes exceeds the largest message " +
                maxMessageBytes + " bytes of a " + termLengthBytes + "-byte term (term length / 8)");
        }
    }
}
