package io.stagecoach.node.cli;

/**
 * The rank settings that {@code stagecoach tune} runs the path model with, as a rank would take them (the
 * {@code stagecoach.*} properties and {@code STAGECOACH_*} variables, or the command's options).
 *
 * @param eagerThresholdBytes the largest message sent eagerly.
 * @param slotBytes           the stage pipeline's slot: the largest chunk.
 * @param chunkBytes          the chunk every staged message takes; 0 when the model picks.
 * @param devicePath          {@code auto} or {@code staged}.
 * @param ipcThresholdBytes   the IPC threshold set: at least 0 fixed, -1 the eager threshold, -2 the model's choice.
 */
record TuneSettings(int eagerThresholdBytes, long slotBytes, long chunkBytes, String devicePath, int ipcThresholdBytes)
{
    /**
     * @return what the settings decide in the model's place between ranks of one node, or null where nothing.
     */
    String override()
    {
        if (devicePath.equals("staged"))
        {
            return "stagecoach.device.path=staged: no device message goes one-sided";
        }
        if (ipcThresholdBytes >= -1)
        {
            final long threshold = ipcThresholdBytes < 0 ? eagerThresholdBytes :
                Math.min(ipcThresholdBytes, eagerThresholdBytes);
            return "stagecoach.device.ipc.threshold.bytes=" + ipcThresholdBytes + ": device messages of more than " +
                threshold + " bytes to a rank of one node go one-sided, the others eagerly";
        }
        return null;
    }
}
