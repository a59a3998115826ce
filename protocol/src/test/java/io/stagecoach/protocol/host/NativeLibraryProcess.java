package io.stagecoach.protocol.host;

/**
 * Loads the native host library, says so, and sleeps until killed.
 */
public final class NativeLibraryProcess
{
    private NativeLibraryProcess()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final String failure = NativeLibrary.loadFailure();
        System.out.println(failure == null ? "loaded" : "failed: " + failure);
        System.out.flush();
        Thread.sleep(60_000);
    }
}
