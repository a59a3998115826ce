package io.stagecoach.rank.engine;

import org.agrona.collections.Long2ObjectHashMap;

/**
 * The transfers in flight, by the id this rank gave them: sends that wait for a CTS or an ACK or stream their DATA,
 * and rendezvous receives that wait for DATA and FIN. Sends and receives take their ids from one sequence.
 */
final class Transfers
{
    final Long2ObjectHashMap<SendOperation> sends = new Long2ObjectHashMap<>();
    final Long2ObjectHashMap<ReceiveOperation> receives = new Long2ObjectHashMap<>();
    private long nextId = 1;

    /**
     * @return a transfer id not given before.
     */
    long nextId()
    {
        return nextId++;
    }
}
