package io.stagecoach.rank.engine;

import java.util.function.Consumer;

import io.stagecoach.rank.IdleMode;

/**
 * The settings of a {@link ProgressEngine}, taken from a concluded {@link io.stagecoach.rank.StagecoachContext}.
 *
 * @param eagerThresholdBytes largest packed message sent eagerly.
 * @param eagerWindowBytes    eager bytes (frames included) a rank may have outstanding at each peer.
 * @param creditFlushBytes    owed credit that triggers a CREDIT message when no other message carries it.
 * @param dataBudgetBytes     rendezvous bytes sent to one peer per duty cycle, for fairness.
 * @param livenessTimeoutNs   how long a peer whose inbox disconnected has to say goodbye before it is lost.
 * @param peerCheckIntervalNs interval between liveness checks.
 * @param idleMode            how waiting threads idle.
 * @param awaitMaxParkNs      longest park of a waiting thread between duty cycles.
 * @param asyncErrorHandler   told of errors that no request can carry (a rejected eager message).
 * @param sameNodeReads       whether a large message between ranks of one node is read by the receiver straight out
 *                            of the sender's memory (one copy) rather than streamed through the log buffer.
 * @param sharedArenaBytes    of the rank's shared arena, 0 for none.
 * @param deviceIpcThresholdBytes largest packed device message to a same-node rank that goes eagerly rather than
 *                            over IPC (at most the eager threshold), or {@link #MODEL_CHOOSES}.
 */
public record EngineSettings(
    int eagerThresholdBytes,
    long eagerWindowBytes,
    int creditFlushBytes,
    long dataBudgetBytes,
    long livenessTimeoutNs,
    long peerCheckIntervalNs,
    IdleMode idleMode,
    long awaitMaxParkNs,
    Consumer<Throwable> asyncErrorHandler,
    boolean sameNodeReads,
    long sharedArenaBytes,
    int deviceIpcThresholdBytes)
{
    /** {@link #deviceIpcThresholdBytes()} when no setting fixes it: the path model chooses per message. */
    public static final int MODEL_CHOOSES = -1;
}
