package io.stagecoach.pipeline.tune;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chunk size the stage costs choose: the shortest modelled transfer, larger chunks where fixed costs dominate,
 * smaller ones where the pipeline must fill early, never more than the slot nor more than the message needs.
 */
class ChunkModelTest
{
    private static final long MIB = 1024 * 1024;

    @Test
    void shouldTakeTheChunkThatMakesTheModelledTransferShortest()
    {
        final ChunkModel model = new ChunkModel(new StageCosts(5_000, 20, 5_000, Double.POSITIVE_INFINITY, 5_000, 20),
            4 * MIB);
        final long chosen = model.chunkBytes(4 * MIB);
        for (long chunk = ChunkModel.MIN_CHUNK_BYTES; chunk <= 4 * MIB; chunk *= 2)
        {
            assertTrue(model.transferNs(4 * MIB, chosen) <= model.transferNs(4 * MIB, chunk),
                "chunks of " + chosen + " bytes are no slower than of " + chunk);
        }
        assertTrue(chosen > ChunkModel.MIN_CHUNK_BYTES && chosen < 4 * MIB, "a 4 MiB message is pipelined: " + chosen);
    }

    @Test
    void shouldTakeLargerChunksWhenFixedCostsGrow()
    {
        final long cheap = new ChunkModel(new StageCosts(1_000, 20, 1_000, Double.POSITIVE_INFINITY, 1_000, 20),
            4 * MIB).chunkBytes(16 * MIB);
        final long dear = new ChunkModel(new StageCosts(50_000, 20, 50_000, Double.POSITIVE_INFINITY, 50_000, 20),
            4 * MIB).chunkBytes(16 * MIB);
        assertTrue(dear > cheap, "fixed costs of 50 us take chunks of " + dear + " bytes, of 1 us " + cheap);
    }

    @Test
    void shouldStayWithinTheSlotAndTheMessage()
    {
        final ChunkModel model = new ChunkModel(new StageCosts(100_000, 20, 0, 1e9, 100_000, 20), MIB);
        assertEquals(MIB, model.chunkBytes(64 * MIB), "no chunk is larger than the slot");
        assertEquals(128 * 1024, model.chunkBytes(100_000), "a small message is one chunk of the next power of two");
        assertEquals(32 * 1024, new ChunkModel(new StageCosts(0, 20, 0, 1e9, 0, 20), 32 * 1024).chunkBytes(MIB),
            "a slot below the smallest chunk tried is the chunk");
    }
}
