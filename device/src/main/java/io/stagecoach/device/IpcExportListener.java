package io.stagecoach.device;

/**
 * Told when an allocation this runtime exported over IPC is freed, so that the peers it was handed to can drop their
 * mappings of it ({@link DeviceRuntime#invalidateIpc(long, long, long)} on their side).
 */
@FunctionalInterface
public interface IpcExportListener
{
    /**
     * Called on the thread that freed the allocation, after the free: hand the work to another thread rather than
     * block it.
     *
     * @param allocationAddress start of the freed allocation, as its handles name it.
     * @param exportNumber      the number its handles carry ({@link IpcHandle#exportNumber()}).
     */
    void exportFreed(long allocationAddress, long exportNumber);
}
