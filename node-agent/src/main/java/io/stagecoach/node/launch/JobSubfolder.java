package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import io.stagecoach.protocol.host.PrivateDirectory;

/**
 * A folder of a job's own in its private job folder (the ranks' trace files, their live rings), mode 0700 whatever
 * the umask.
 */
public final class JobSubfolder
{
    private JobSubfolder()
    {
    }

    /**
     * @param jobFolder the job's private folder.
     * @param name      the new folder's name in it.
     * @param what      what it holds, for the error.
     * @return the new folder.
     * @throws LaunchException naming the folder where it cannot be created (one there already included).
     */
    public static Path create(final Path jobFolder, final String name, final String what)
    {
        final Path folder = jobFolder.resolve(name);
        try
        {
            Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
            Files.setPosixFilePermissions(folder, PrivateDirectory.DIRECTORY_MODE);
        }
        catch (final IOException ex)
        {
            throw new LaunchException("could not create the " + what + " folder " + folder + ": " + ex, ex);
        }
        return folder;
    }
}
