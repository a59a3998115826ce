package io.stagecoach.device;

/**
 * Found through {@link java.util.ServiceLoader}: one per back end.
 */
public interface DeviceBackendProvider
{
    /**
     * @return the back end this provider opens.
     */
    DeviceKind kind();

    /**
     * Cheap check, without side effects beyond loading native libraries, that the back end can run here.
     *
     * @return true when {@link #open(DeviceContext)} is expected to succeed.
     */
    boolean isAvailable();

    /**
     * @param context concluded configuration.
     * @return an open back end.
     */
    DeviceBackend open(DeviceContext context);
}
