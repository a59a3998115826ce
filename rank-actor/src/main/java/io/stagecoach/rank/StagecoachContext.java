package io.stagecoach.rank;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import io.aeron.logbuffer.FrameDescriptor;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.pipeline.trace.LiveTraceFile;
import io.stagecoach.pipeline.trace.StageTraceContext;
import io.stagecoach.pipeline.transport.aeron.AeronTransportContext;
import io.stagecoach.pipeline.transport.aeron.PeerAddress;
import io.stagecoach.protocol.wire.EnvelopeFlyweight;
import io.stagecoach.protocol.wire.ErrorFlyweight;
import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import io.stagecoach.rank.bootstrap.RendezvousClient;
import io.stagecoach.rank.engine.EngineSettings;
import io.stagecoach.rank.engine.ProgressEngine;
import io.stagecoach.rank.engine.WireSender;
import io.stagecoach.rank.memory.SharedArena;

/**
 * Configuration of a rank, Aeron style: setters return this, {@link #conclude()} validates and fills in what was
 * left unset. Defaults come from system properties {@code stagecoach.*}, then environment variables
 * {@code STAGECOACH_*} (the property upper-cased, dots as underscores), then the launch environment
 * ({@link LaunchEnvironment#detect()}), then the values below.
 * <table>
 * <caption>Settings</caption>
 * <tr><th>property</th><th>default</th><th>meaning</th></tr>
 * <tr><td>stagecoach.rank, stagecoach.size</td><td>launcher</td><td>this rank and the number of ranks</td></tr>
 * <tr><td>stagecoach.job</td><td>launcher</td><td>job id; separates jobs sharing a media driver</td></tr>
 * <tr><td>stagecoach.node</td><td>launcher</td><td>node name: ranks with equal names talk over IPC</td></tr>
 * <tr><td>stagecoach.aeron.dir</td><td>none: embedded driver</td><td>the node's media driver, e.g. the
 * launcher's ({@code STAGECOACH_AERON_DIR})</td></tr>
 * <tr><td>stagecoach.eager.threshold.bytes</td><td>16384</td><td>largest message sent eagerly</td></tr>
 * <tr><td>stagecoach.eager.window.bytes</td><td>262144</td><td>eager bytes in flight to one peer</td></tr>
 * <tr><td>stagecoach.connect.timeout.ms</td><td>30000</td><td>wait for every rank at start</td></tr>
 * <tr><td>stagecoach.liveness.timeout.ms</td><td>1000</td><td>grace for a peer whose inbox vanished</td></tr>
 * <tr><td>stagecoach.close.timeout.ms</td><td>30000</td><td>wait at close for every peer to confirm it read what
 * this rank sent</td></tr>
 * <tr><td>stagecoach.idle</td><td>backoff</td><td>how waiting threads idle: backoff, yield, spin</td></tr>
 * <tr><td>stagecoach.shared.arena.bytes</td><td>1 GiB</td><td>the rank's shared arena (sparse): packed scattered
 * sends and the memory of {@code Communicator.allocate}; 0 for none</td></tr>
 * <tr><td>stagecoach.device.path</td><td>auto</td><td>same-node device messages: {@code auto} (got over CUDA IPC by
 * the receiver where the path model or the IPC threshold says so), {@code staged} (never over IPC: eager up to the
 * eager threshold, through the stage pipeline above it, as between nodes)</td></tr>
 * <tr><td>stagecoach.device.ipc.threshold.bytes</td><td>-2: the path model chooses</td><td>largest device message
 * to a same-node rank sent eagerly rather than got over IPC, fixed instead of chosen per message by the path model
 * (from the device's costs, measured once per node and cached; {@code stagecoach tune} prints them and its choices):
 * 0 gets every message with a byte over IPC, -1 sets it to the eager threshold</td></tr>
 * <tr><td>stagecoach.same.node.reads</td><td>true</td><td>large same-node messages read from the sender's memory
 * (one copy) instead of streamed through the log buffer</td></tr>
 * <tr><td>stagecoach.ipc.term.length, stagecoach.ipc.mtu</td><td>1 MiB, 65504</td><td>IPC streams</td></tr>
 * <tr><td>stagecoach.udp.term.length, stagecoach.udp.mtu</td><td>1 MiB, 1408</td><td>UDP streams</td></tr>
 * <tr><td>stagecoach.udp.host, stagecoach.udp.port.base</td><td>127.0.0.1, 40100</td><td>UDP inbox of rank r:
 * host:(base + local rank)</td></tr>
 * <tr><td>stagecoach.trace.dir</td><td>none: no trace</td><td>private folder (0700) in which the rank writes the
 * stage trace of its pipelined transfers, {@code rank-<rank>.stagetrace}; {@code stagecoach run --trace} sets
 * {@code STAGECOACH_TRACE_DIR}</td></tr>
 * <tr><td>stagecoach.trace.ring.bytes</td><td>8 MiB</td><td>the stage trace's ring, a power of two</td></tr>
 * <tr><td>stagecoach.trace.live.dir</td><td>none</td><td>private folder (0700) in which the rank creates its live
 * trace file, {@code rank-<rank>.stagelive}, read while the job runs; {@code stagecoach run --dashboard} sets
 * {@code STAGECOACH_TRACE_LIVE_DIR}</td></tr>
 * <tr><td>stagecoach.trace.live.ring.bytes</td><td>1 MiB</td><td>the live file's ring, a power of two</td></tr>
 * </table>
 */
public final class StagecoachContext
{
    /** Default largest packed message sent eagerly. */
    public static final int DEFAULT_EAGER_THRESHOLD_BYTES = 16 * 1024;
    /**
     * Default length of a rank's shared arena: 1 GiB, a sparse file whose pages are used as buffers are first
     * written (packed sends, and the memory of {@link Communicator#allocate(long)}).
     */
    public static final long DEFAULT_SHARED_ARENA_BYTES = 1L << 30;
    /** Default bytes of a slot of the stage pipeline: the largest chunk of a large device message. */
    public static final long DEFAULT_PIPELINE_SLOT_BYTES = 1024 * 1024;
    /** Default chunks of one large device message that may be in host memory at once. */
    public static final int DEFAULT_PIPELINE_SLOTS = 4;
    /** Default slots of each of the stage pipeline's pools of pinned host memory (sends, receives). */
    public static final int DEFAULT_PIPELINE_POOL_SLOTS = 8;
    /**
     * {@link #deviceIpcThresholdBytes()} by default: no threshold is fixed, and the path model chooses per message
     * whether a device message to a same-node rank goes over IPC.
     */
    public static final int DEVICE_IPC_THRESHOLD_MODEL = -2;
    /** Default eager bytes one rank may have outstanding at each peer. */
    public static final long DEFAULT_EAGER_WINDOW_BYTES = 256 * 1024;

    private int rank = intSetting("stagecoach.rank", -1);
    private int size = intSetting("stagecoach.size", -1);
    private String jobId = setting("stagecoach.job", null);
    private String nodeName = setting("stagecoach.node", null);
    private String aeronDirectoryName = setting("stagecoach.aeron.dir", null);
    private List<PeerAddress> peers;
    private int eagerThresholdBytes = intSetting("stagecoach.eager.threshold.bytes", DEFAULT_EAGER_THRESHOLD_BYTES);
    private long eagerWindowBytes = longSetting("stagecoach.eager.window.bytes", DEFAULT_EAGER_WINDOW_BYTES);
    private long dataBudgetBytes = 1024 * 1024;
    private Duration connectTimeout = Duration.ofMillis(longSetting("stagecoach.connect.timeout.ms", 30_000));
    private Duration livenessTimeout = Duration.ofMillis(longSetting("stagecoach.liveness.timeout.ms", 1_000));
    private Duration closeTimeout = Duration.ofMillis(longSetting("stagecoach.close.timeout.ms", 30_000));
    private IdleMode idleMode = IdleMode.parse(setting("stagecoach.idle", "backoff"));
    private long awaitMaxParkNs = longSetting("stagecoach.await.max.park.ns", 20_000);
    private long progressMaxParkNs = longSetting("stagecoach.progress.max.park.ns", 250_000);
    private int ipcTermLengthBytes = intSetting(
        "stagecoach.ipc.term.length", AeronTransportContext.DEFAULT_IPC_TERM_LENGTH_BYTES);
    private int ipcMtuBytes = intSetting("stagecoach.ipc.mtu", AeronTransportContext.DEFAULT_IPC_MTU_BYTES);
    private int udpTermLengthBytes = intSetting(
        "stagecoach.udp.term.length", AeronTransportContext.DEFAULT_UDP_TERM_LENGTH_BYTES);
    private int udpMtuBytes = intSetting("stagecoach.udp.mtu", AeronTransportContext.DEFAULT_UDP_MTU_BYTES);
    private String udpHost = setting("stagecoach.udp.host", "127.0.0.1");
    private int udpPortBase = intSetting("stagecoach.udp.port.base", 40100);
    private int streamIdBase = intSetting("stagecoach.stream.base", -1);
    private boolean sameNodeReads = Boolean.parseBoolean(setting("stagecoach.same.node.reads", "true"));
    private long sharedArenaBytes = longSetting("stagecoach.shared.arena.bytes", DEFAULT_SHARED_ARENA_BYTES);
    private long chunkBytes = longSetting("stagecoach.chunk.bytes", 0);
    private long pipelineSlotBytes = longSetting("stagecoach.pipeline.slot.bytes", DEFAULT_PIPELINE_SLOT_BYTES);
    private int pipelineSlots = intSetting("stagecoach.pipeline.slots", DEFAULT_PIPELINE_SLOTS);
    private int pipelinePoolSlots = intSetting("stagecoach.pipeline.pool.slots", DEFAULT_PIPELINE_POOL_SLOTS);
    private String pipelineWire = setting("stagecoach.pipeline.wire", "arena");
    private String devicePath = setting("stagecoach.device.path", "auto");
    private int deviceIpcThresholdBytes =
        intSetting("stagecoach.device.ipc.threshold.bytes", DEVICE_IPC_THRESHOLD_MODEL);
    private Path traceDirectory = pathSetting(StageTraceContext.DIRECTORY_PROPERTY);
    private Path liveTraceDirectory = pathSetting(StageTraceContext.LIVE_DIRECTORY_PROPERTY);
    private int liveTraceRingBytes =
        intSetting(StageTraceContext.LIVE_RING_BYTES_PROPERTY, LiveTraceFile.DEFAULT_CAPACITY_BYTES);
    private int traceRingBytes =
        intSetting(StageTraceContext.RING_BYTES_PROPERTY, StageTraceContext.DEFAULT_RING_CAPACITY_BYTES);
    private DeviceRuntime deviceRuntime;
    private RendezvousClient rendezvousClient;
    private boolean useRendezvous = true;
    private LaunchEnvironment launchEnvironment;
    private Consumer<Throwable> asyncErrorHandler;
    private boolean concluded;

    /**
     * Fills in unset values from the launch environment and validates everything.
     *
     * @return this.
     * @throws IllegalArgumentException naming the setting, its value and the limit.
     */
    public StagecoachContext conclude()
    {
        if (concluded)
        {
            return this;
        }
        if (rank < 0 || size < 0 || jobId == null || nodeName == null)
        {
            final LaunchEnvironment environment = launchEnvironment();
            rank = rank < 0 ? environment.rank() : rank;
            size = size < 0 ? environment.size() : size;
            jobId = jobId == null ? environment.jobId() : jobId;
            nodeName = nodeName == null ? environment.nodeName() : nodeName;
        }
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank " + rank + " is outside [0, " + size + ")");
        }
        if (peers != null && peers.size() != size)
        {
            throw new IllegalArgumentException(peers.size() + " peer addresses given for " + size + " ranks");
        }
        final int termLengthBytes = Math.min(ipcTermLengthBytes, udpTermLengthBytes);
        final int maxThresholdBytes =
            FrameDescriptor.computeMaxMessageLength(termLengthBytes) - EnvelopeFlyweight.HEADER_LENGTH;
        if (eagerThresholdBytes < 0 || eagerThresholdBytes > maxThresholdBytes)
        {
            throw new IllegalArgumentException("eager threshold " + eagerThresholdBytes +
                " bytes is outside [0, " + maxThresholdBytes + "]: an EAGER message (" +
                EnvelopeFlyweight.HEADER_LENGTH + "-byte envelope + payload) must fit the largest Aeron message " +
                "of a " + termLengthBytes + "-byte term (an eighth of it); raise stagecoach.ipc.term.length and " +
                "stagecoach.udp.term.length or lower the threshold");
        }
        if (sharedArenaBytes != 0 && (sharedArenaBytes <= SharedArena.FIRST_OFFSET ||
            sharedArenaBytes > Integer.MAX_VALUE))
        {
            throw new IllegalArgumentException("shared arena of " + sharedArenaBytes + " bytes is outside (" +
                SharedArena.FIRST_OFFSET + ", " + Integer.MAX_VALUE + "]; 0 turns it off");
        }
        final long smallestWindow = WireSender.eagerLength(eagerThresholdBytes);
        if (eagerWindowBytes < smallestWindow)
        {
            throw new IllegalArgumentException("eager window " + eagerWindowBytes + " bytes is below one eager " +
                "message of the threshold, " + smallestWindow + " bytes");
        }
        if (pipelineSlotBytes < 4096 || pipelineSlotBytes > (1L << 30))
        {
            throw new IllegalArgumentException("pipeline slot of " + pipelineSlotBytes + " bytes is outside [4096, " +
                (1L << 30) + "] (stagecoach.pipeline.slot.bytes)");
        }
        if (chunkBytes != 0 && (chunkBytes < 4096 || chunkBytes > pipelineSlotBytes))
        {
            throw new IllegalArgumentException("chunk of " + chunkBytes + " bytes is outside [4096, " +
                pipelineSlotBytes + "], the pipeline's slot (stagecoach.chunk.bytes; 0 lets the stage costs choose)");
        }
        if (!pipelineWire.equals("arena") && !pipelineWire.equals("stream"))
        {
            throw new IllegalArgumentException("pipeline wire '" + pipelineWire + "' is neither arena nor stream " +
                "(stagecoach.pipeline.wire)");
        }
        if (deviceIpcThresholdBytes < DEVICE_IPC_THRESHOLD_MODEL)
        {
            throw new IllegalArgumentException("device IPC threshold " + deviceIpcThresholdBytes + " bytes is below " +
                "-2, which lets the path model choose (-1: the eager threshold; " +
                "stagecoach.device.ipc.threshold.bytes)");
        }
        if (!devicePath.equals("auto") && !devicePath.equals("staged"))
        {
            throw new IllegalArgumentException("device path '" + devicePath + "' is neither auto nor staged " +
                "(stagecoach.device.path)");
        }
        if (pipelineSlots < 1 || pipelineSlots > pipelinePoolSlots)
        {
            throw new IllegalArgumentException("pipeline slots " + pipelineSlots + " per transfer are outside [1, " +
                pipelinePoolSlots + "], the slots of a pool (stagecoach.pipeline.slots, stagecoach.pipeline.pool.slots)");
        }
        checkPositive("connect timeout", connectTimeout);
        checkPositive("close timeout", closeTimeout);
        checkPositive("liveness timeout", livenessTimeout);
        if (streamIdBase < 0)
        {
            streamIdBase = AeronTransportContext.DEFAULT_STREAM_ID_BASE + (jobHash() & 0x3FFF) * 1024;
        }
        stageTraceContext().conclude();
        concluded = true;
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
     * @param rank this rank, in [0, size).
     * @return this.
     */
    public StagecoachContext rank(final int rank)
    {
        this.rank = rank;
        return this;
    }

    /**
     * @return number of ranks.
     */
    public int size()
    {
        return size;
    }

    /**
     * @param size number of ranks.
     * @return this.
     */
    public StagecoachContext size(final int size)
    {
        this.size = size;
        return this;
    }

    /**
     * @return the job id.
     */
    public String jobId()
    {
        return jobId;
    }

    /**
     * @param jobId the job id; ranks of one job share it, jobs sharing a media driver must differ.
     * @return this.
     */
    public StagecoachContext jobId(final String jobId)
    {
        this.jobId = jobId;
        return this;
    }

    /**
     * @return name of this rank's node.
     */
    public String nodeName()
    {
        return nodeName;
    }

    /**
     * @param nodeName name of this rank's node.
     * @return this.
     */
    public StagecoachContext nodeName(final String nodeName)
    {
        this.nodeName = nodeName;
        return this;
    }

    /**
     * @return directory of the node's external media driver, or null to run one embedded.
     */
    public String aeronDirectoryName()
    {
        return aeronDirectoryName;
    }

    /**
     * @param directoryName the node's media driver (the launcher's {@code STAGECOACH_AERON_DIR}), or null for an
     *                      embedded driver in a directory of its own.
     * @return this.
     */
    public StagecoachContext aeronDirectoryName(final String directoryName)
    {
        this.aeronDirectoryName = directoryName;
        return this;
    }

    /**
     * @return addresses of all ranks given explicitly, or null to learn them from the rendezvous service.
     */
    public List<PeerAddress> peers()
    {
        return peers;
    }

    /**
     * @param peers addresses of all ranks, indexed by rank: for ranks started in one process, or without a
     *              rendezvous service.
     * @return this.
     */
    public StagecoachContext peers(final List<PeerAddress> peers)
    {
        this.peers = List.copyOf(peers);
        return this;
    }

    /**
     * @return largest packed message sent eagerly.
     */
    public int eagerThresholdBytes()
    {
        return eagerThresholdBytes;
    }

    /**
     * @param thresholdBytes largest packed message sent eagerly; larger ones use the rendezvous protocol.
     * @return this.
     */
    public StagecoachContext eagerThresholdBytes(final int thresholdBytes)
    {
        this.eagerThresholdBytes = thresholdBytes;
        return this;
    }

    /**
     * @return eager bytes one rank may have outstanding at each peer.
     */
    public long eagerWindowBytes()
    {
        return eagerWindowBytes;
    }

    /**
     * @param windowBytes eager bytes (64-byte frames included) one rank may have outstanding at each peer: bounds
     *                    what a receiver buffers for unmatched eager messages from one sender. A send beyond it
     *                    uses the rendezvous protocol.
     * @return this.
     */
    public StagecoachContext eagerWindowBytes(final long windowBytes)
    {
        this.eagerWindowBytes = windowBytes;
        return this;
    }

    /**
     * @return wait for every rank to connect at start.
     */
    public Duration connectTimeout()
    {
        return connectTimeout;
    }

    /**
     * @param timeout wait for every rank to connect at start.
     * @return this.
     */
    public StagecoachContext connectTimeout(final Duration timeout)
    {
        this.connectTimeout = timeout;
        return this;
    }

    /**
     * @return grace given to a peer whose inbox vanished to say goodbye before it counts as lost.
     */
    public Duration livenessTimeout()
    {
        return livenessTimeout;
    }

    /**
     * @param timeout grace given to a peer whose inbox vanished before its requests fail.
     * @return this.
     */
    public StagecoachContext livenessTimeout(final Duration timeout)
    {
        this.livenessTimeout = timeout;
        return this;
    }

    /**
     * @return how long {@link Communicator#close()} waits for every peer still there to confirm that it read what
     * this rank sent.
     */
    public Duration closeTimeout()
    {
        return closeTimeout;
    }

    /**
     * @param timeout how long {@link Communicator#close()} waits for every peer still there to confirm (BYE_ACK)
     *                that it read what this rank sent (default 30 s, {@code stagecoach.close.timeout.ms}); a peer
     *                that dies meanwhile is not waited for.
     * @return this.
     */
    public StagecoachContext closeTimeout(final Duration timeout)
    {
        this.closeTimeout = timeout;
        return this;
    }

    /**
     * @return how threads waiting on requests idle.
     */
    public IdleMode idleMode()
    {
        return idleMode;
    }

    /**
     * @param mode how threads waiting on requests idle. The rank's own progress thread always backs off.
     * @return this.
     */
    public StagecoachContext idleMode(final IdleMode mode)
    {
        this.idleMode = mode;
        return this;
    }

    /**
     * @return longest park of the rank's progress thread when idle.
     */
    public long progressMaxParkNs()
    {
        return progressMaxParkNs;
    }

    /**
     * @param maxParkNs longest park of the rank's progress thread when idle: bounds the delay of background
     *                  progress (a CTS answered, an unexpected message drained) while no thread waits.
     * @return this.
     */
    public StagecoachContext progressMaxParkNs(final long maxParkNs)
    {
        this.progressMaxParkNs = maxParkNs;
        return this;
    }

    /**
     * @param termLengthBytes term length of IPC publications.
     * @param mtuBytes        MTU of IPC publications.
     * @return this.
     */
    public StagecoachContext ipc(final int termLengthBytes, final int mtuBytes)
    {
        this.ipcTermLengthBytes = termLengthBytes;
        this.ipcMtuBytes = mtuBytes;
        return this;
    }

    /**
     * @param termLengthBytes term length of UDP publications.
     * @param mtuBytes        MTU of UDP publications.
     * @return this.
     */
    public StagecoachContext udp(final int termLengthBytes, final int mtuBytes)
    {
        this.udpTermLengthBytes = termLengthBytes;
        this.udpMtuBytes = mtuBytes;
        return this;
    }

    /**
     * @param host     address the UDP inbox binds, reachable from other nodes.
     * @param portBase port of local rank 0's UDP inbox; local rank i uses {@code portBase + i}.
     * @return this.
     */
    public StagecoachContext udpEndpoint(final String host, final int portBase)
    {
        this.udpHost = host;
        this.udpPortBase = portBase;
        return this;
    }

    /**
     * @param streamIdBase stream id of rank 0's inbox; by default derived from the job id.
     * @return this.
     */
    public StagecoachContext streamIdBase(final int streamIdBase)
    {
        this.streamIdBase = streamIdBase;
        return this;
    }

    /**
     * @return the device layer used for device buffers, or null when there is none.
     */
    public DeviceRuntime deviceRuntime()
    {
        return deviceRuntime;
    }

    /**
     * @param runtime the device layer that device buffers come from; needed to send or receive them, and to tell
     *                device addresses from host ones.
     * @return this.
     */
    public StagecoachContext deviceRuntime(final DeviceRuntime runtime)
    {
        this.deviceRuntime = runtime;
        return this;
    }

    /**
     * @return a rendezvous client given by the caller, or null.
     */
    public RendezvousClient rendezvousClient()
    {
        return rendezvousClient;
    }

    /**
     * @param client a connected rendezvous client to exchange addresses with and to learn of dead peers from; by
     *               default one is connected when the launch environment names a rendezvous service.
     * @return this.
     */
    public StagecoachContext rendezvousClient(final RendezvousClient client)
    {
        this.rendezvousClient = client;
        return this;
    }

    /**
     * @param use false to ignore a rendezvous service named by the environment.
     * @return this.
     */
    public StagecoachContext useRendezvous(final boolean use)
    {
        this.useRendezvous = use;
        return this;
    }

    /**
     * @return whether a rendezvous service named by the environment is used.
     */
    public boolean useRendezvous()
    {
        return useRendezvous;
    }

    /**
     * @return the launch environment, detected on first use.
     */
    public LaunchEnvironment launchEnvironment()
    {
        if (launchEnvironment == null)
        {
            launchEnvironment = LaunchEnvironment.detect();
        }
        return launchEnvironment;
    }

    /**
     * @param environment the launch environment to use instead of this process's.
     * @return this.
     */
    public StagecoachContext launchEnvironment(final LaunchEnvironment environment)
    {
        this.launchEnvironment = environment;
        return this;
    }

    /**
     * @param handler told of errors no request can carry, such as a receiver rejecting an eager message whose send
     *                already completed, on a thread of its own, one at a time and in order, so that it may call the
     *                communicator (even close it); by default they are logged.
     * @return this.
     */
    public StagecoachContext asyncErrorHandler(final Consumer<Throwable> handler)
    {
        this.asyncErrorHandler = handler;
        return this;
    }

    /**
     * @return the length of this rank's shared send arena in bytes; 0 for none.
     */
    public long sharedArenaBytes()
    {
        return sharedArenaBytes;
    }

    /**
     * @param bytes length of the shared arena, a file in the node's media driver directory that same-node peers
     *              map (default {@link #DEFAULT_SHARED_ARENA_BYTES}, pages used only as buffers are first written): a
     *              scattered message is packed whole into it and the receiver unpacks it from its own mapping, one
     *              copy on each side and no system call, and {@link Communicator#allocate(long)} takes memory from it,
     *              out of which a receiver copies scattered messages straight; 0 turns it off, such messages are
     *              read with {@code process_vm_readv} instead and allocate returns ordinary memory. Needs
     *              {@link #sameNodeReads()}.
     * @return this.
     */
    public StagecoachContext sharedArenaBytes(final long bytes)
    {
        this.sharedArenaBytes = bytes;
        return this;
    }

    /**
     * @return bytes of a chunk of a large device message in the stage pipeline; 0 when the stage costs choose.
     */
    public long chunkBytes()
    {
        return chunkBytes;
    }

    /**
     * @param bytes a chunk of every large device message in the stage pipeline, in [4 KiB, the slot size]; 0 (the
     *              default, {@code stagecoach.chunk.bytes}) lets the model of the stage costs choose per message
     *              size, from costs measured once per device and cached ({@code docs/pipeline.md}).
     * @return this.
     */
    public StagecoachContext chunkBytes(final long bytes)
    {
        this.chunkBytes = bytes;
        return this;
    }

    /**
     * @return bytes of a slot of the stage pipeline: the largest chunk.
     */
    public long pipelineSlotBytes()
    {
        return pipelineSlotBytes;
    }

    /**
     * @param bytes of a slot of the stage pipeline's pools of pinned host memory, the largest chunk (default
     *              {@link #DEFAULT_PIPELINE_SLOT_BYTES}, {@code stagecoach.pipeline.slot.bytes}).
     * @return this.
     */
    public StagecoachContext pipelineSlotBytes(final long bytes)
    {
        this.pipelineSlotBytes = bytes;
        return this;
    }

    /**
     * @return chunks of one large device message that may be in host memory at once.
     */
    public int pipelineSlots()
    {
        return pipelineSlots;
    }

    /**
     * @param slots chunks of one large device message that may be in host memory at once, its window (default
     *              {@link #DEFAULT_PIPELINE_SLOTS}, {@code stagecoach.pipeline.slots}); at most the pool's slots.
     * @return this.
     */
    public StagecoachContext pipelineSlots(final int slots)
    {
        this.pipelineSlots = slots;
        return this;
    }

    /**
     * @return how chunks of large device messages cross to a same-node peer: {@code arena} or {@code stream}.
     */
    public String pipelineWire()
    {
        return pipelineWire;
    }

    /**
     * @param wire how chunks of large device messages cross to a peer of the same node: {@code arena} (the default,
     *             {@code stagecoach.pipeline.wire}): packed into slots of the sender's shared arena, which the
     *             receiver registers with its device and unpacks from in place; {@code stream}: as DATA over Aeron,
     *             as between nodes, into pinned slots of the receiver.
     * @return this.
     */
    public StagecoachContext pipelineWire(final String wire)
    {
        this.pipelineWire = wire;
        return this;
    }

    /**
     * @return how large device messages go to a same-node peer: {@code auto} or {@code staged}.
     */
    public String devicePath()
    {
        return devicePath;
    }

    /**
     * @param path how device messages go to a peer of the same node: {@code auto} (the default,
     *             {@code stagecoach.device.path}): those the path model (or a fixed IPC threshold) sends one-sided
     *             the receiver gets straight out of the sender's device buffer over CUDA IPC, on its own device, and
     *             the stage pipeline runs only where it cannot; {@code staged}: never over IPC, large ones always
     *             through the stage pipeline (pack, device to host, wire, host to device, unpack), the path that
     *             ranks on two nodes take.
     * @return this.
     */
    public StagecoachContext devicePath(final String path)
    {
        this.devicePath = path;
        return this;
    }

    /**
     * @return largest packed device message to a same-node rank sent eagerly rather than got over IPC; -1 for the
     * eager threshold; {@link #DEVICE_IPC_THRESHOLD_MODEL} when the path model chooses.
     */
    public int deviceIpcThresholdBytes()
    {
        return deviceIpcThresholdBytes;
    }

    /**
     * @param thresholdBytes largest packed device message to a same-node rank that is sent eagerly (staged through
     *                       host memory) rather than got by the receiver over IPC, on the default device path, fixed
     *                       instead of chosen by the path model: 0 sends every message with a byte over IPC, which
     *                       was faster than the eager path at every size on an H200 shared by two ranks under MPS (8 B
     *                       one way in 11.3-13.3 us against 17.7-18.0), as the model predicts from costs derived
     *                       there; -1 for the eager threshold, which also caps it; {@link #DEVICE_IPC_THRESHOLD_MODEL}
     *                       (the default, {@code stagecoach.device.ipc.threshold.bytes}) lets the model choose per
     *                       message from the device's measured costs.
     * @return this.
     */
    public StagecoachContext deviceIpcThresholdBytes(final int thresholdBytes)
    {
        this.deviceIpcThresholdBytes = thresholdBytes;
        return this;
    }

    /**
     * @return slots of each of the stage pipeline's pools of pinned host memory.
     */
    public int pipelinePoolSlots()
    {
        return pipelinePoolSlots;
    }

    /**
     * @param slots of each of the stage pipeline's two pools of pinned host memory, one for sends and one for
     *              receives (default {@link #DEFAULT_PIPELINE_POOL_SLOTS}, {@code stagecoach.pipeline.pool.slots}):
     *              each holds slots x chunk bytes.
     * @return this.
     */
    public StagecoachContext pipelinePoolSlots(final int slots)
    {
        this.pipelinePoolSlots = slots;
        return this;
    }

    /**
     * @return whether large messages between ranks of one node are read straight out of the sender's memory.
     */
    public boolean sameNodeReads()
    {
        return sameNodeReads;
    }

    /**
     * @param reads true (the default) to let a receiver read a large message of a same-node sender straight out of
     *              its memory ({@code process_vm_readv}: one copy, where the log buffer costs two), falling back to
     *              the log buffer where the kernel refuses; false to always stream through the log buffer.
     * @return this.
     */
    public StagecoachContext sameNodeReads(final boolean reads)
    {
        this.sameNodeReads = reads;
        return this;
    }

    /**
     * @return the folder of the rank's stage trace, or null when it keeps none.
     */
    public Path traceDirectory()
    {
        return traceDirectory;
    }

    /**
     * @param directory a private folder (mode 0700, this user's) in which the rank writes the stage trace of its
     *                  pipelined transfers, {@code rank-<rank>.stagetrace}, for {@code stagecoach run --trace} to
     *                  merge; null (the default unless {@code stagecoach.trace.dir} or {@code STAGECOACH_TRACE_DIR}
     *                  names one) for no trace.
     * @return this.
     */
    public StagecoachContext traceDirectory(final Path directory)
    {
        this.traceDirectory = directory;
        return this;
    }

    /**
     * @return the folder of the rank's live trace file, or null when it keeps none.
     */
    public Path liveTraceDirectory()
    {
        return liveTraceDirectory;
    }

    /**
     * @param directory a private folder (mode 0700, this user's) in which the rank creates its live trace file,
     *                  {@code rank-<rank>.stagelive}, a ring in shared memory that a dashboard reads while the job
     *                  runs; null (the default unless {@code stagecoach.trace.live.dir} or
     *                  {@code STAGECOACH_TRACE_LIVE_DIR} names one, as {@code stagecoach run --dashboard} does) for
     *                  none.
     * @return this.
     */
    public StagecoachContext liveTraceDirectory(final Path directory)
    {
        this.liveTraceDirectory = directory;
        return this;
    }

    /**
     * @return capacity of the stage trace's ring in bytes.
     */
    public int traceRingBytes()
    {
        return traceRingBytes;
    }

    /**
     * @param bytes capacity of the ring the stage trace records into (default
     *              {@link StageTraceContext#DEFAULT_RING_CAPACITY_BYTES}), a power of two; records that find it full
     *              are dropped and counted.
     * @return this.
     */
    public StagecoachContext traceRingBytes(final int bytes)
    {
        this.traceRingBytes = bytes;
        return this;
    }

    /**
     * @return the settings of the rank's stage tracing, for {@code StageTracing.start}: off without a trace folder
     * and a live folder.
     */
    StageTraceContext stageTraceContext()
    {
        return new StageTraceContext().rank(rank).directory(traceDirectory).ringCapacityBytes(traceRingBytes)
            .liveDirectory(liveTraceDirectory).liveRingCapacityBytes(liveTraceRingBytes);
    }

    EngineSettings engineSettings()
    {
        final long windowBytes = eagerWindowBytes;
        return new EngineSettings(
            eagerThresholdBytes,
            windowBytes,
            (int)Math.min(Integer.MAX_VALUE, windowBytes / 4),
            dataBudgetBytes,
            livenessTimeout.toNanos(),
            10_000_000,
            idleMode,
            awaitMaxParkNs,
            asyncErrorHandler != null ? new AsyncErrorThread(asyncErrorHandler, rank) :
                ProgressEngine.loggingErrorHandler(rank),
            sameNodeReads,
            sharedArenaBytes,
            deviceIpcThresholdBytes == DEVICE_IPC_THRESHOLD_MODEL ? EngineSettings.MODEL_CHOOSES :
                deviceIpcThresholdBytes < 0 ? eagerThresholdBytes :
                    Math.min(deviceIpcThresholdBytes, eagerThresholdBytes));
    }

    AeronTransportContext transportContext(final List<PeerAddress> addresses, final String directoryName)
    {
        return new AeronTransportContext()
            .rank(rank)
            .peers(addresses)
            .aeronDirectoryName(directoryName)
            .streamIdBase(streamIdBase)
            .sessionIdBase(jobHash() & 0x3FFF_0000)
            .ipcTermLengthBytes(ipcTermLengthBytes)
            .ipcMtuBytes(ipcMtuBytes)
            .udpTermLengthBytes(udpTermLengthBytes)
            .udpMtuBytes(udpMtuBytes)
            .largestOfferBytes(Math.max(WireSender.eagerLength(eagerThresholdBytes),
                ErrorFlyweight.HEADER_LENGTH + ErrorFlyweight.MAX_MESSAGE_BYTES));
    }

    String udpEndpoint(final int localRank)
    {
        return udpHost + ":" + (udpPortBase + localRank);
    }

    private static void checkPositive(final String name, final Duration duration)
    {
        if (duration == null || duration.isNegative() || duration.isZero())
        {
            throw new IllegalArgumentException(name + " must be positive, not " + duration);
        }
    }

    private int jobHash()
    {
        return jobId == null ? 0 : jobId.hashCode() & Integer.MAX_VALUE;
    }

    static String setting(final String property, final String fallback)
    {
        final String fromProperty = System.getProperty(property);
        if (fromProperty != null && !fromProperty.isBlank())
        {
            return fromProperty.trim();
        }
        final Map<String, String> environment = System.getenv();
        final String fromEnvironment = environment.get(property.toUpperCase(Locale.ROOT).replace('.', '_'));
        return fromEnvironment != null && !fromEnvironment.isBlank() ? fromEnvironment.trim() : fallback;
    }

    private static Path pathSetting(final String property)
    {
        final String value = setting(property, null);
        return value == null ? null : Path.of(value);
    }

    private static int intSetting(final String property, final int fallback)
    {
        final long value = longSetting(property, fallback);
        if (value != (int)value)
        {
            throw new IllegalArgumentException("setting " + property + " = " + value + " is outside [" +
                Integer.MIN_VALUE + ", " + Integer.MAX_VALUE + "]");
        }
        return (int)value;
    }

    private static long longSetting(final String property, final long fallback)
    {
        final String value = setting(property, null);
        if (value == null)
        {
            return fallback;
        }
        try
        {
            return Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("setting " + property + " = '" + value + "' is not a number", ex);
        }
    }
}
