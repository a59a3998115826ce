package io.stagecoach.node.launch;

import java.nio.file.Path;
import java.util.function.BiConsumer;

/**
 * Told when a job's private folder exists and its ranks are about to start, and when its ranks have all ended while
 * the folder is still there: for something that watches the job from this process (a dashboard reading the ranks'
 * live trace). Called on the launcher's thread; must not block.
 */
public interface JobObserver
{
    /**
     * Watches nothing.
     */
    JobObserver NONE = new JobObserver()
    {
        public void jobStarting(
            final String jobId, final String mainClass, final int size, final Path jobFolder,
            final BiConsumer<String, String> environment)
        {
        }

        public void ranksEnded()
        {
        }
    };

    /**
     * @param jobId       the job's id.
     * @param mainClass   what its ranks run.
     * @param size        its number of ranks.
     * @param jobFolder   its private folder (0700), removed after {@link #ranksEnded()}.
     * @param environment sets a variable of every rank's environment.
     * @throws LaunchException when the job cannot be watched; the job does not start.
     */
    void jobStarting(
        String jobId, String mainClass, int size, Path jobFolder, BiConsumer<String, String> environment);

    /**
     * Every rank has ended (or the job was given up); the job's folder goes next.
     */
    void ranksEnded();
}
