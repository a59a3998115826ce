package io.stagecoach.protocol.host;

import java.io.IOException;
import java.util.Locale;

/**
 * The native host library, {@code libstagecoach-native.so}, built from {@code src/main/c} when the build found a C
 * compiler and packaged as a resource: the host pack's strided copies and same-node cross-memory reads. Loaded once,
 * on first use, by whichever of its users comes first, from this user's private {@link NativeLibraryCache}.
 */
public final class NativeLibrary
{
    private static final String LIBRARY = "libstagecoach-native.so";
    private static final String LOAD_FAILURE = load();

    private NativeLibrary()
    {
    }

    /**
     * Loads the library if that has not been tried yet.
     *
     * @return null when it is loaded, otherwise why it could not be.
     */
    public static String loadFailure()
    {
        return LOAD_FAILURE;
    }

    private static String load()
    {
        final String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        final String resource = "linux-" + System.getProperty("os.arch") + "/" + LIBRARY;
        if (!os.startsWith("linux") || NativeLibrary.class.getResource(resource) == null)
        {
            return "the native host library was not built for " + os + " " + System.getProperty("os.arch") +
                " (no resource " + resource + ")";
        }
        try
        {
            System.load(NativeLibraryCache.extract(NativeLibrary.class, resource, LIBRARY).toString());
            return null;
        }
        catch (final IOException | UnsatisfiedLinkError | RuntimeException ex)
        {
            return "the native host library " + resource + " could not be loaded: " + ex;
        }
    }
}
