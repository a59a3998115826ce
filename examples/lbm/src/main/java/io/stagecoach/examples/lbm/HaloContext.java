package io.stagecoach.examples.lbm;

import java.time.Duration;

import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.Status;

/**
 * What the exchanges of one rank work with: the world, the device, the fields, the stream the step's kernels run in
 * and the kernels.
 *
 * @param comm    the world communicator.
 * @param device  the rank's device runtime.
 * @param fields  the block's fields.
 * @param stream  the stream of every kernel and copy of the step.
 * @param kernels the example's kernels.
 */
record HaloContext(Communicator comm, DeviceRuntime device, Fields fields, DeviceStream stream, LbmKernels kernels)
{
    /**
     * Longest wait for the messages of one phase.
     */
    static final Duration TIMEOUT = Duration.ofSeconds(120);

    /**
     * Waits for every request and fails with the first error one carries.
     *
     * @param requests of a phase.
     * @param what     the phase, for the message.
     */
    static void awaitAll(final Request[] requests, final String what)
    {
        final Status[] statuses = Request.waitAll(TIMEOUT, requests);
        for (int i = 0; i < statuses.length; i++)
        {
            if (statuses[i].isError())
            {
                throw new IllegalStateException(what + ": " + requests[i] + " failed", statuses[i].error());
            }
        }
    }
}
