package io.stagecoach.pipeline.tune;

/**
 * The cost model that chooses the path of a device message, and the chunk size of a staged one, from the costs
 * measured on the node ({@link DeviceCosts}). It predicts the one-way time of a message of N packed bytes, from the
 * sender's post to the data in the receiver's device memory, on each path:
 * <ul>
 * <li>{@link TransferPath#EAGER eager}: the inline pack into pinned host memory and its completion on the sender,
 * one message (a fixed cost, and two copies of host memory per byte), the inline unpack on the receiver; the pack
 * and the unpack cost per byte what the stage pipeline's do;</li>
 * <li>{@link TransferPath#ONE_SIDED one-sided}: two control messages (RTS, ACK) and the receiver's device work, one
 * device-to-device copy and its event (contiguous layouts) or one kernel (scattered);</li>
 * <li>{@link TransferPath#STAGED staged}: {@link ChunkModel}'s T_total with the chunk size it picks, on the arena wire
 * between ranks of one node, the stream wire between nodes (the RTS and CTS overlap the first chunk's pack).</li>
 * </ul>
 * Which paths a message may take is the protocol's: up to the eager threshold eager, above it staged, and between
 * ranks of one node one-sided too, for a message with a byte; of those the model takes the fastest it predicts, ties
 * going to one-sided. The choices assume contiguous layouts (the sender does not know the receiver's). Fixed costs of
 * messages between ranks are assumed, not measured: {@link #NODE_MESSAGE_NS} and {@link #NETWORK_MESSAGE_NS}.
 */
public final class PathModel
{
    /** One message between ranks of one node: half of the arena wire's two control messages per chunk. */
    public static final double NODE_MESSAGE_NS = StageCostProbe.ARENA_WIRE_FIXED_NS / 2;
    /** One message between nodes: half of the stream wire's fixed cost per chunk. */
    public static final double NETWORK_MESSAGE_NS = StageCostProbe.STREAM_WIRE_FIXED_NS / 2;

    private final DeviceCosts costs;
    private final long eagerThresholdBytes;
    private final long fixedChunkBytes;
    private final ChunkModel arena;
    private final ChunkModel stream;

    /**
     * @param costs               measured on the node.
     * @param maxChunkBytes       the stage pipeline's slot size: the largest chunk.
     * @param fixedChunkBytes     the chunk size of every staged message, as a setting fixes it; 0 lets the model pick.
     * @param eagerThresholdBytes the largest packed message sent eagerly.
     */
    public PathModel(
        final DeviceCosts costs, final long maxChunkBytes, final long fixedChunkBytes, final long eagerThresholdBytes)
    {
        this.costs = costs;
        this.eagerThresholdBytes = eagerThresholdBytes;
        this.fixedChunkBytes = fixedChunkBytes;
        this.arena = new ChunkModel(costs.stages(), maxChunkBytes);
        this.stream = new ChunkModel(costs.streamStages(), maxChunkBytes);
    }

    /**
     * @return the costs the model uses.
     */
    public DeviceCosts costs()
    {
        return costs;
    }

    /**
     * @return the largest packed message sent eagerly.
     */
    public long eagerThresholdBytes()
    {
        return eagerThresholdBytes;
    }

    /**
     * @param sameNode whether the ranks share a node (arena wire) or not (stream wire).
     * @return the chunk model of the stage pipeline on that wire.
     */
    public ChunkModel chunkModel(final boolean sameNode)
    {
        return sameNode ? arena : stream;
    }

    /**
     * @param packedBytes of a message, whether or not it is within the eager threshold.
     * @param sameNode    whether the ranks share a node.
     * @return the model's one-way time of the message on the eager path, ns.
     */
    public double eagerNs(final long packedBytes, final boolean sameNode)
    {
        final StageCosts stages = costs.stages();
        final PathCosts paths = costs.paths();
        return paths.inlinePackFixedNs() + packedBytes / stages.packBytesPerNs() +
            (sameNode ? NODE_MESSAGE_NS : NETWORK_MESSAGE_NS) + packedBytes / costs.streamWireBytesPerNs() +
            paths.inlineUnpackFixedNs() + packedBytes / stages.unpackBytesPerNs();
    }

    /**
     * @param packedBytes of a message.
     * @param contiguous  whether both layouts are contiguous (one copy) rather than scattered (one kernel).
     * @return the model's one-way time of the message on the one-sided path, ns.
     */
    public double oneSidedNs(final long packedBytes, final boolean contiguous)
    {
        return 2 * NODE_MESSAGE_NS + costs.paths().getNs(packedBytes, contiguous);
    }

    /**
     * @param packedBytes of a message, at least 1.
     * @param sameNode    whether the ranks share a node.
     * @return the model's one-way time of the message through the stage pipeline in {@link #chunkBytes} chunks, ns.
     */
    public double stagedNs(final long packedBytes, final boolean sameNode)
    {
        return chunkModel(sameNode).transferNs(Math.max(1, packedBytes), chunkBytes(packedBytes, sameNode));
    }

    /**
     * @param packedBytes of a message, at least 1.
     * @param sameNode    whether the ranks share a node.
     * @return the chunk size of the message on the staged path: the setting's, or the one the chunk model picks.
     */
    public long chunkBytes(final long packedBytes, final boolean sameNode)
    {
        return fixedChunkBytes > 0 ? fixedChunkBytes : chunkModel(sameNode).chunkBytes(Math.max(1, packedBytes));
    }

    /**
     * The path of a message, without allocating: the fastest the model predicts of those the protocol allows.
     *
     * @param packedBytes of the message.
     * @param sameNode    whether the ranks share a node.
     * @return the path.
     */
    public TransferPath path(final long packedBytes, final boolean sameNode)
    {
        final boolean eager = packedBytes <= eagerThresholdBytes;
        if (!sameNode || packedBytes <= 0)
        {
            return eager ? TransferPath.EAGER : TransferPath.STAGED;
        }
        final double otherNs = eager ? eagerNs(packedBytes, true) : stagedNs(packedBytes, true);
        return oneSidedNs(packedBytes, true) <= otherNs ? TransferPath.ONE_SIDED :
            eager ? TransferPath.EAGER : TransferPath.STAGED;
    }

    /**
     * @param packedBytes of the message.
     * @param sameNode    whether the ranks share a node.
     * @return the path of {@link #path}, its chunk size when staged, and its predicted one-way time.
     */
    public PathChoice choose(final long packedBytes, final boolean sameNode)
    {
        final TransferPath path = path(packedBytes, sameNode);
        return switch (path)
        {
            case EAGER -> new PathChoice(path, 0, eagerNs(packedBytes, sameNode));
            case ONE_SIDED -> new PathChoice(path, 0, oneSidedNs(packedBytes, true));
            case STAGED -> new PathChoice(path, chunkBytes(packedBytes, sameNode), stagedNs(packedBytes, sameNode));
        };
    }
}
