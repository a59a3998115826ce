package io.stagecoach.pipeline.tune;

/**
 * The path the model chose for a message, and what it predicts.
 *
 * @param path        the path.
 * @param chunkBytes  the chunk size of a staged message; 0 for the other paths.
 * @param predictedNs the model's one-way time of the message on the path, ns.
 */
public record PathChoice(TransferPath path, long chunkBytes, double predictedNs)
{
}
