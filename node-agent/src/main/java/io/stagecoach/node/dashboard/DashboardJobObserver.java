package io.stagecoach.node.dashboard;

import java.nio.file.Path;
import java.util.function.BiConsumer;

import io.stagecoach.node.launch.JobObserver;
import io.stagecoach.node.launch.JobSubfolder;
import io.stagecoach.node.launch.LaunchException;
import io.stagecoach.pipeline.trace.StageTraceContext;

/**
 * Shows a job that this process launches on a dashboard: gives its ranks a live folder in the job's private folder
 * ({@value StageTraceContext#LIVE_DIRECTORY_VARIABLE}), adds the job's {@link JobTrace} to the dashboard's jobs and
 * reads the ranks' live files into it until they have ended.
 */
public final class DashboardJobObserver implements JobObserver
{
    /** The live folder's name in the job's folder. */
    public static final String FOLDER = "live";

    private final DashboardJobs jobs;
    private final DashboardContext context;
    private LiveTraceCollector collector;

    /**
     * @param jobs    where the job's trace goes.
     * @param context the bounds of the job's trace.
     */
    public DashboardJobObserver(final DashboardJobs jobs, final DashboardContext context)
    {
        this.jobs = jobs;
        this.context = context;
    }

    public void jobStarting(
        final String jobId, final String mainClass, final int size, final Path jobFolder,
        final BiConsumer<String, String> environment)
    {
        final Path folder = createLiveFolder(jobFolder, environment);
        final JobTrace trace = new JobTrace(jobId, mainClass, size, context);
        jobs.add(trace);
        collector = LiveTraceCollector.start(folder, jobId, trace);
    }

    /**
     * Makes the live folder in a job's private folder and tells the job's ranks to publish their records there.
     *
     * @param jobFolder   the job's private folder.
     * @param environment takes the ranks' variable.
     * @return the folder.
     * @throws LaunchException naming the folder where it cannot be made.
     */
    public static Path createLiveFolder(final Path jobFolder, final BiConsumer<String, String> environment)
    {
        final Path folder = JobSubfolder.create(jobFolder, FOLDER, "live trace");
        environment.accept(StageTraceContext.LIVE_DIRECTORY_VARIABLE, folder.toString());
        return folder;
    }

    public void ranksEnded()
    {
        if (null != collector)
        {
            collector.close();
            collector = null;
        }
    }
}
