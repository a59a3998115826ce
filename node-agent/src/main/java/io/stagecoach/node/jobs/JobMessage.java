package io.stagecoach.node.jobs;

/**
 * A message one agent sends another about a job; {@link JobMessageSerializer} writes it.
 */
public interface JobMessage
{
}
