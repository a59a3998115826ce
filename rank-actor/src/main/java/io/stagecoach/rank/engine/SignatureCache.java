package io.stagecoach.rank.engine;

import io.stagecoach.protocol.datatype.Datatype;

/**
 * A small direct-mapped cache of type signatures by (datatype, count), so that repeated sends and receives of the
 * same shape do not recompute them. Safe for racing threads: entries are immutable and replaced whole.
 */
public final class SignatureCache
{
    private static final int SLOTS = 256;

    private final SignatureEntry[] entries = new SignatureEntry[SLOTS];

    public SignatureEntry lookup(final Datatype type, final long count)
    {
        final int slot = (System.identityHashCode(type) * 31 + Long.hashCode(count)) & (SLOTS - 1);
        final SignatureEntry cached = entries[slot];
        if (cached != null && cached.type == type && cached.count == count)
        {
            return cached;
        }
        final SignatureEntry made = new SignatureEntry(type, count, type.signature(count));
        entries[slot] = made;
        return made;
    }
}
