package io.stagecoach.node.launch;

import java.util.Map;

/**
 * The job's rendezvous as a launcher of some of its ranks sees it: where its ranks connect, with which secret, and
 * where the exits of the ranks it started go. A launcher of the whole job runs a {@link RendezvousServer} itself;
 * the launcher of one node's ranks in a job across nodes is given the job's, run where the job was submitted.
 */
public interface JobEvents
{
    /**
     * @return where ranks connect, {@code host:port}: the value of {@code STAGECOACH_RENDEZVOUS}.
     */
    String rendezvousAddress();

    /**
     * @return the job's secret, the value of {@code STAGECOACH_SECRET}.
     */
    String secretText();

    /**
     * A rank started by this launcher exited.
     *
     * @param rank        that exited.
     * @param exitStatus  its exit status (128 + n for signal n).
     * @param description of the exit, e.g. {@code "exit status 137 (signal 9, SIGKILL)"}.
     */
    void rankExited(int rank, int exitStatus, String description);

    /**
     * @return the first peer each rank reported lost, by reporting rank; empty where the rendezvous is elsewhere.
     */
    Map<Integer, PeerLoss> lostPeers();
}
