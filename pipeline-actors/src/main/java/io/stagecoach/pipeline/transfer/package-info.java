/**
 * The transfer-level, chunk-aware contract between the rank's protocol engine and the stage pipeline that moves the
 * device side of large messages: {@link io.stagecoach.pipeline.transfer.TransferPipeline},
 * {@link io.stagecoach.pipeline.transfer.TransferSpec}, {@link io.stagecoach.pipeline.transfer.ChunkPlan}, and the
 * two directions of the conversation, {@link io.stagecoach.pipeline.transfer.TransferPort} (pipeline to engine) and
 * {@link io.stagecoach.pipeline.transfer.TransferHandle} (engine to pipeline).
 */
package io.stagecoach.pipeline.transfer;
