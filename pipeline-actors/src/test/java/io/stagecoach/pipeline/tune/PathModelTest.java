package io.stagecoach.pipeline.tune;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The path and chunk the model chooses for given costs: with the costs derived from the H200's figures, one-sided at
 * every size with a byte between ranks of one node and eager or staged between nodes (by the eager threshold);
 * eager where the device work costs less than the messages a get needs; staged where a get would be slower than the
 * pipeline; the predictions and chunk sizes are the model's formulas.
 */
class PathModelTest
{
    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;
    private static final long SLOT_BYTES = MIB;
    private static final long EAGER_BYTES = 16 * KIB;
    private static final long[] SIZES = { 8, KIB, 16 * KIB, 256 * KIB, MIB, 4 * MIB, 16 * MIB, 64 * MIB };

    private final PathModel h200 = new PathModel(H200Costs.COSTS, SLOT_BYTES, 0, EAGER_BYTES);

    @Test
    void shouldGetEveryMessageWithAByteOneSidedOnOneNodeWithTheH200Costs()
    {
        for (long bytes = 1; bytes <= 64 * MIB; bytes = bytes * 2 + 1)
        {
            assertEquals(TransferPath.ONE_SIDED, h200.path(bytes, true), bytes + " bytes");
        }
        for (final long bytes : SIZES)
        {
            final PathChoice choice = h200.choose(bytes, true);
            assertEquals(TransferPath.ONE_SIDED, choice.path(), bytes + " bytes");
            assertEquals(0, choice.chunkBytes());
            assertTrue(choice.predictedNs() < h200.stagedNs(bytes, true), bytes + " bytes beat the pipeline");
        }
        assertEquals(TransferPath.EAGER, h200.path(0, true), "a message without a byte goes eagerly");
    }

    @Test
    void shouldSendEagerlyUpToTheThresholdAndStageAboveItBetweenNodesWithTheH200Costs()
    {
        for (final long bytes : SIZES)
        {
            final PathChoice choice = h200.choose(bytes, false);
            if (bytes <= EAGER_BYTES)
            {
                assertEquals(TransferPath.EAGER, choice.path(), bytes + " bytes");
                assertEquals(h200.eagerNs(bytes, false), choice.predictedNs());
            }
            else
            {
                assertEquals(TransferPath.STAGED, choice.path(), bytes + " bytes");
                assertEquals(h200.chunkModel(false).chunkBytes(bytes), choice.chunkBytes(), bytes + " bytes");
                assertEquals(h200.chunkModel(false).transferNs(bytes, choice.chunkBytes()), choice.predictedNs());
            }
        }
        assertEquals(TransferPath.EAGER, h200.path(EAGER_BYTES, false));
        assertEquals(TransferPath.STAGED, h200.path(EAGER_BYTES + 1, false));
    }

    @Test
    void shouldPredictFromTheConstants()
    {
        assertEquals(2 * PathModel.NODE_MESSAGE_NS + 6_040 + 8 / 1_830.0, h200.oneSidedNs(8, true), 1e-6);
        assertEquals(2 * PathModel.NODE_MESSAGE_NS + 6_040 + MIB / 1_770.0, h200.oneSidedNs(MIB, false), 1e-6);
        assertEquals(6_040 + KIB / 47.3 + PathModel.NODE_MESSAGE_NS + KIB / 9.404 + 6_040 + KIB / 52.5,
            h200.eagerNs(KIB, true), 1e-6);
        assertEquals(h200.eagerNs(KIB, true) + PathModel.NETWORK_MESSAGE_NS - PathModel.NODE_MESSAGE_NS,
            h200.eagerNs(KIB, false), 1e-6);
        final double firstChunkNs = 18_000 + MIB / 47.3 + 5_000 + 13_100 + MIB / 52.5;
        assertEquals(MIB, h200.chunkBytes(4 * MIB, true), "1 MiB chunks on the arena wire, as on the H200");
        assertEquals(firstChunkNs + 3 * (18_000 + MIB / 47.3), h200.stagedNs(4 * MIB, true), 1e-6);
    }

    /**
     * The predictions that docs/benchmarks.md ("Path model: prediction beside measured, H200") lists, in
     * microseconds, from the costs derived from the H200's figures.
     */
    @Test
    void shouldGiveThePredictionsThatTheBenchmarksPageLists()
    {
        assertEquals(11.04, h200.oneSidedNs(8, true) / 1_000, 0.005);
        assertEquals(13.33, h200.oneSidedNs(4 * MIB, true) / 1_000, 0.005);
        assertEquals(47.71, h200.oneSidedNs(64 * MIB, true) / 1_000, 0.005);
        assertEquals(14.58, h200.eagerNs(8, true) / 1_000, 0.005);
        assertEquals(198.75, h200.stagedNs(4 * MIB, true) / 1_000, 0.005);
        assertEquals(559.25, h200.stagedNs(4 * MIB, false) / 1_000, 0.005);
        assertEquals(2_608.86, h200.stagedNs(64 * MIB, true) / 1_000, 0.005);
    }

    @Test
    void shouldSendEagerlyOnOneNodeWhereTheDeviceWorkCostsLessThanTheMessagesOfAGet()
    {
        final DeviceCosts cheapDevice = new DeviceCosts(H200Costs.COSTS.stages(), 9.404,
            new PathCosts(6_000, 1_830, 6_000, 1_770, 500, 500));
        final PathModel model = new PathModel(cheapDevice, SLOT_BYTES, 0, EAGER_BYTES);

        assertEquals(TransferPath.EAGER, model.path(8, true));
        assertEquals(TransferPath.EAGER, model.path(KIB, true));
        assertEquals(TransferPath.ONE_SIDED, model.path(EAGER_BYTES + 1, true), "above the threshold: no eager");
    }

    @Test
    void shouldStageOnOneNodeWhereAGetIsSlowerThanThePipeline()
    {
        final DeviceCosts slowGets = new DeviceCosts(H200Costs.COSTS.stages(), 9.404,
            new PathCosts(6_040, 1, 6_040, 1, 6_040, 6_040));
        final PathModel model = new PathModel(slowGets, SLOT_BYTES, 0, EAGER_BYTES);

        assertEquals(TransferPath.ONE_SIDED, model.path(KIB, true));
        final PathChoice choice = model.choose(4 * MIB, true);
        assertEquals(TransferPath.STAGED, choice.path());
        assertEquals(MIB, choice.chunkBytes());
    }

    @Test
    void shouldTakeTheChunkASettingFixes()
    {
        final PathModel model = new PathModel(H200Costs.COSTS, SLOT_BYTES, 64 * KIB, EAGER_BYTES);

        assertEquals(64 * KIB, model.choose(4 * MIB, false).chunkBytes());
        assertEquals(model.chunkModel(false).transferNs(4 * MIB, 64 * KIB), model.stagedNs(4 * MIB, false));
    }
}
