package io.stagecoach.rank.engine;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.TypeSignature;

/**
 * The type signature of {@code count} instances of a datatype, with its wire encoding, captured when a request is
 * posted so that the request stays valid if the datatype is freed while it is in flight.
 */
public final class SignatureEntry
{
    final Datatype type;
    final long count;
    final TypeSignature signature;
    final long hash;
    final long length;
    final long sizeBytes;

    SignatureEntry(final Datatype type, final long count, final TypeSignature signature)
    {
        this.type = type;
        this.count = count;
        this.signature = signature;
        this.hash = signature.hash();
        this.length = signature.length();
        this.sizeBytes = signature.sizeBytes();
    }

    boolean matches(final long hash, final long length, final long sizeBytes)
    {
        return this.hash == hash && this.length == length && this.sizeBytes == sizeBytes;
    }
}
