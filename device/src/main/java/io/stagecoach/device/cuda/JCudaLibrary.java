package io.stagecoach.device.cuda;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.stagecoach.device.DeviceException;
import io.stagecoach.protocol.host.NativeLibraryCache;
import jcuda.JCudaVersion;
import jcuda.LibUtils;

/**
 * Loads JCuda's driver library before anything else touches {@code JCudaDriver}, from a place only this user can
 * write. JCuda's own loader tries {@code System.loadLibrary} (java.library.path) and, whenever that fails for any
 * reason, loads {@code <java.io.tmpdir>/<library file>} as it finds it, or writes its jar's copy there first, in
 * place: a file another user put in /tmp would be loaded, and two processes writing it at once crash. So while
 * {@code JCudaDriver} initialises, under this class's lock, {@code java.io.tmpdir} names a folder of this user's
 * {@link NativeLibraryCache}: the folder holding the jar's copy, extracted and checked there, when the jar is on the
 * class path; the cache's (empty) root otherwise, where JCuda finds nothing to load and, lacking the resource,
 * writes nothing. The property is restored at once.
 */
final class JCudaLibrary
{
    private static final String TMPDIR = "java.io.tmpdir";
    private static boolean tried;
    private static Throwable failure;
    private static String origin;

    private JCudaLibrary()
    {
    }

    /**
     * Initialises {@code JCudaDriver} once, loading its library as described above.
     *
     * @return null when it is loaded, otherwise what went wrong.
     */
    static synchronized Throwable load()
    {
        if (!tried)
        {
            tried = true;
            failure = initialise();
        }
        return failure;
    }

    /**
     * @return where the library was taken from (after {@link #load()}).
     */
    static synchronized String origin()
    {
        return origin;
    }

    /**
     * @throws DeviceException when the library did not load.
     */
    static void ensureLoaded()
    {
        final Throwable problem = load();
        if (problem != null)
        {
            throw new DeviceException("JCuda did not load: " + problem, problem);
        }
    }

    private static Throwable initialise()
    {
        try
        {
            final String fileName = LibUtils.createLibraryFileName(
                LibUtils.createPlatformLibraryName("JCudaDriver-" + JCudaVersion.get()));
            final Path onLibraryPath = findOnLibraryPath(fileName);
            final Path folder = privateFolder(fileName);
            origin = onLibraryPath != null ? onLibraryPath + " (java.library.path), else " + folder.resolve(fileName) :
                folder.resolve(fileName).toString();
            initialiseWithTemporaryFolder(folder);
            return null;
        }
        catch (final Throwable ex)
        {
            return ex;
        }
    }

    private static Path privateFolder(final String fileName) throws IOException
    {
        final String resource = "/lib/" + fileName;
        if (LibUtils.class.getResource(resource) == null)
        {
            return NativeLibraryCache.directory();
        }
        return NativeLibraryCache.extract(LibUtils.class, resource, fileName).getParent();
    }

    private static void initialiseWithTemporaryFolder(final Path folder) throws ClassNotFoundException
    {
        final String previous = System.getProperty(TMPDIR);
        System.setProperty(TMPDIR, folder.toString());
        try
        {
            Class.forName("jcuda.driver.JCudaDriver", true, JCudaLibrary.class.getClassLoader());
        }
        finally
        {
            if (previous == null)
            {
                System.clearProperty(TMPDIR);
            }
            else
            {
                System.setProperty(TMPDIR, previous);
            }
        }
    }

    private static Path findOnLibraryPath(final String fileName)
    {
        final String libraryPath = System.getProperty("java.library.path", "");
        for (final String entry : libraryPath.split(File.pathSeparator))
        {
            if (!entry.isEmpty() && Files.isRegularFile(Path.of(entry, fileName)))
            {
                return Path.of(entry, fileName);
            }
        }
        return null;
    }
}
