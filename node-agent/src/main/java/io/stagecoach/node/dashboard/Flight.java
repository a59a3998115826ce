package io.stagecoach.node.dashboard;

/**
 * A transfer in flight as the trace shows it: begun, not yet ended. Reused from a pool.
 */
final class Flight
{
    long key;
    int rank;
    int peer;
    int path;
    boolean receiving;
    long bytes;
    int chunks;
    long startNs;
    long doneBytes;
    int doneChunks;
}
