package io.stagecoach.pipeline.tune;

/**
 * What the device work of the two paths that do not pipeline costs, measured on one device: the one-sided path's
 * get (one device-to-device copy when both layouts are contiguous, one pack kernel reading one layout and writing the
 * other when they scatter, each with its event) and the eager path's inline staging (a small message packed into
 * pinned host memory on the sender, unpacked out of it on the receiver, each polled to completion). Each is a fixed
 * part, timed on a message of a few bytes from the launch to the completion the caller sees, and a part per byte;
 * the eager path's bytes cost what the stage pipeline's pack and unpack cost per byte ({@link StageCosts}).
 *
 * @param copyFixedNs         fixed cost of a device-to-device copy and its event, ns.
 * @param copyBytesPerNs      device-to-device copy throughput, bytes per ns (GB/s).
 * @param kernelFixedNs       fixed cost of a pack kernel from device memory to device memory and its event, ns.
 * @param kernelBytesPerNs    its throughput in packed bytes, bytes per ns.
 * @param inlinePackFixedNs   fixed cost of packing a small message into pinned host memory and seeing it done, ns.
 * @param inlineUnpackFixedNs fixed cost of unpacking a small message out of pinned host memory and seeing it done,
 *                            ns.
 */
public record PathCosts(
    double copyFixedNs,
    double copyBytesPerNs,
    double kernelFixedNs,
    double kernelBytesPerNs,
    double inlinePackFixedNs,
    double inlineUnpackFixedNs)
{
    /**
     * @param packedBytes of a message.
     * @param contiguous  whether both layouts are contiguous (one copy) rather than scattered (one kernel).
     * @return the receiver's device work of a one-sided get of the message, ns.
     */
    public double getNs(final long packedBytes, final boolean contiguous)
    {
        return contiguous ? copyFixedNs + packedBytes / copyBytesPerNs : kernelFixedNs + packedBytes / kernelBytesPerNs;
    }
}
