/**
 * The one-sided device path between processes of one node: the receiver opens the sender's device buffer through
 * CUDA IPC (or the emulated device's shared-memory files) and copies, packs or unpacks straight out of it, with no
 * host staging and no wire but two control messages.
 */
package io.stagecoach.pipeline.transport.cudaipc;
