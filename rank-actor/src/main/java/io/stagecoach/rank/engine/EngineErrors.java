package io.stagecoach.rank.engine;

import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.DatatypeException;
import io.stagecoach.protocol.datatype.SignatureMismatchException;
import io.stagecoach.protocol.datatype.TruncationException;
import io.stagecoach.protocol.datatype.TypeSignature;
import io.stagecoach.protocol.wire.ErrorFlyweight;
import io.stagecoach.rank.PeerLostException;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.StagecoachException;

/**
 * The errors the progress engine gives requests: the matching rules a message must meet to land in a receive
 * (capacity, type signature), errors reported by a peer, a lost peer and a closed communicator. Each names the value,
 * the limit and the request.
 */
final class EngineErrors
{
    private EngineErrors()
    {
    }

    /**
     * Checks that an incoming message may land in a matched receive: it fits, and its type signature is a prefix of
     * the receive's (or either side is {@link Datatype#PACKED}).
     *
     * @return null when it may, otherwise the error for the receive, which also rejects the send.
     */
    static RuntimeException checkMatch(
        final ReceiveOperation receive,
        final int source,
        final int tag,
        final long packedBytes,
        final long signatureHash,
        final long signatureLength,
        final long signatureSizeBytes)
    {
        if (packedBytes > receive.capacityBytes)
        {
            return new TruncationException(receive.capacityBytes, packedBytes, context(tag, source));
        }
        if (receive.signature.matches(signatureHash, signatureLength, signatureSizeBytes))
        {
            return null;
        }
        final String context = context(tag, source);
        final TypeSignature incoming;
        try
        {
            incoming = TypeSignature.decode(new long[]{ signatureHash, signatureLength, signatureSizeBytes }, 0);
        }
        catch (final DatatypeException ex)
        {
            return new StagecoachException(ErrorClass.INTERN, "rank " + source + " sent an invalid signature (" +
                context + "): " +
                ex.getMessage());
        }
        final TypeSignature expected = receive.signature.signature;
        if (incoming.sizeBytes() != packedBytes)
        {
            return new StagecoachException(ErrorClass.TYPE, "message of " + packedBytes +
                " bytes carries the signature of " +
                incoming.sizeBytes() + " bytes (" + context + ")");
        }
        if (isPacked(incoming) || isPacked(expected) ||
            incoming.length() <= expected.length() && expected.prefix(incoming.length()).equals(incoming))
        {
            return null;
        }
        return new SignatureMismatchException("message signature " + incoming + " is not a prefix of the " +
            "receive signature " + expected + " of " + receive.count + " x " + receive.signature.type + " (" +
            context + ")");
    }

    /**
     * @param mismatch from {@link #checkMatch}.
     * @return the ERROR code that tells the sender why its message was rejected.
     */
    static int rejectionCode(final RuntimeException mismatch)
    {
        return mismatch instanceof TruncationException ? ErrorFlyweight.CODE_TRUNCATED :
            mismatch instanceof SignatureMismatchException ? ErrorFlyweight.CODE_SIGNATURE_MISMATCH :
            ErrorFlyweight.CODE_PROTOCOL;
    }

    /**
     * @param peer the rank that sent the ERROR.
     * @param code its error code.
     * @param what the request it fails, or what it concerns when no request waits.
     * @param text its message.
     * @return the error for the request.
     */
    static RuntimeException remoteError(final int peer, final int code, final String what, final String text)
    {
        final String message = text + " [" + what + "]";
        if (code == ErrorFlyweight.CODE_SIGNATURE_MISMATCH)
        {
            return new SignatureMismatchException(message);
        }
        return new StagecoachException(remoteClass(code),
            "rank " + peer + " reported " + ErrorFlyweight.codeName(code) + ": " + message);
    }

    static PeerLostException goneError(final Peer peer, final Request request)
    {
        return new PeerLostException(peer.rank, "rank " + peer.rank + " " + peer.goneReason + ": " + request);
    }

    static StagecoachException closedError(final int rank, final Request request)
    {
        return new StagecoachException(ErrorClass.COMM, "rank " + rank + " closed its communicator: " + request);
    }

    private static ErrorClass remoteClass(final int code)
    {
        return switch (code)
        {
            case ErrorFlyweight.CODE_TRUNCATED -> ErrorClass.TRUNCATE;
            case ErrorFlyweight.CODE_SIGNATURE_MISMATCH -> ErrorClass.TYPE;
            case ErrorFlyweight.CODE_CLOSED -> ErrorClass.COMM;
            case ErrorFlyweight.CODE_PROTOCOL -> ErrorClass.INTERN;
            default -> ErrorClass.OTHER;
        };
    }

    private static String context(final int tag, final int source)
    {
        return "tag=" + tag + ", source=" + source;
    }

    private static boolean isPacked(final TypeSignature signature)
    {
        return Datatype.PACKED.signature(signature.length()).equals(signature);
    }
}
