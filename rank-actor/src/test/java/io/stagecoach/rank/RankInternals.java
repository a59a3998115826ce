package io.stagecoach.rank;

import java.util.List;

import io.stagecoach.pipeline.transport.aeron.AeronTransportContext;
import io.stagecoach.pipeline.transport.aeron.PeerAddress;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.engine.EngineSettings;
import io.stagecoach.rank.engine.ProgressEngine;

/**
 * The package-private parts of the API that tests of the engine (in {@code io.stagecoach.rank.engine}) build on: a
 * request made without a communicator, and the engine settings and transport context a concluded context derives.
 * They stay package-private in the API so that applications do not see them.
 */
public final class RankInternals
{
    private RankInternals()
    {
    }

    /**
     * @return a request as {@link Communicator} makes one, pending.
     */
    public static Request request(
        final ProgressEngine engine,
        final String operation,
        final int peer,
        final int tag,
        final long count,
        final Datatype type)
    {
        return new Request(engine, operation, peer, tag, count, type);
    }

    /**
     * @return the settings of the engine of a rank with this (concluded) context.
     */
    public static EngineSettings engineSettings(final StagecoachContext context)
    {
        return context.engineSettings();
    }

    /**
     * @return the transport context of a rank with this (concluded) context, these peers and this media driver.
     */
    public static AeronTransportContext transportContext(
        final StagecoachContext context, final List<PeerAddress> addresses, final String directoryName)
    {
        return context.transportContext(addresses, directoryName);
    }
}
