package io.stagecoach.device.cuda;

import io.stagecoach.device.BackendEvent;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import org.agrona.UnsafeApi;

import static jcuda.driver.JCudaDriver.cuStreamQuery;

/**
 * An event that lives in mapped pinned host memory: two words of its slot count the recordings completed, those the
 * stream wrote ({@code cuStreamWriteValue64} of the next count) and those pack kernels signalled themselves when they
 * finished. The event is complete when both words reach the counts recorded so far; polling is two plain loads, no
 * driver call. Counts only grow, so other streams wait with {@code cuStreamWaitValue64(GEQ)}. Every few thousand
 * unsuccessful polls the stream is queried, so that a failed kernel surfaces as an error instead of a slot that never
 * moves.
 */
final class CudaFlagEvent implements BackendEvent
{
    private static final int POLLS_PER_STREAM_CHECK = 4096;

    private final CudaDevice device;
    private final EventSlots.Slot slot;
    private volatile long expectedWritten;
    private volatile long expectedSignalled;
    private volatile CUstream lastStream;
    private int pollsSinceCheck;

    CudaFlagEvent(final CudaDevice device)
    {
        this.device = device;
        this.slot = device.eventSlots().acquire();
        this.expectedWritten = slot.written;
        this.expectedSignalled = slot.signalled;
    }

    /**
     * @param stream the recording is enqueued on.
     * @return the count the stream writes into the first word.
     */
    synchronized long nextWrite(final CUstream stream)
    {
        slot.written++;
        expectedWritten = slot.written;
        lastStream = stream;
        return slot.written;
    }

    /**
     * Account for a kernel launched on the stream that signals this event when it finishes.
     *
     * @param stream the kernel runs on.
     */
    synchronized void signalledBy(final CUstream stream)
    {
        slot.signalled++;
        expectedSignalled = slot.signalled;
        lastStream = stream;
    }

    long expectedWritten()
    {
        return expectedWritten;
    }

    long expectedSignalled()
    {
        return expectedSignalled;
    }

    long writtenWordDeviceAddress()
    {
        return slot.deviceAddress;
    }

    long signalledWordDeviceAddress()
    {
        return slot.deviceAddress + 8;
    }

    long scratchDeviceAddress()
    {
        return slot.scratchAddress;
    }

    long key()
    {
        return slot.hostAddress;
    }

    @Override
    public boolean poll()
    {
        if (isDone())
        {
            return true;
        }
        if (++pollsSinceCheck >= POLLS_PER_STREAM_CHECK)
        {
            pollsSinceCheck = 0;
            checkStream();
        }
        return false;
    }

    @Override
    public void synchronize()
    {
        int spins = 0;
        while (!isDone())
        {
            if (++spins % 1024 == 0)
            {
                checkStream();
                Thread.yield();
            }
            else
            {
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public void close()
    {
        device.eventSlots().release(slot);
    }

    private boolean isDone()
    {
        return UnsafeApi.getLongVolatile(null, slot.hostAddress) >= expectedWritten &&
            UnsafeApi.getLongVolatile(null, slot.hostAddress + 8) >= expectedSignalled;
    }

    private void checkStream()
    {
        final CUstream stream = lastStream;
        if (stream != null)
        {
            device.makeCurrent();
            final int result = cuStreamQuery(stream);
            if (result != CUresult.CUDA_SUCCESS && result != CUresult.CUDA_ERROR_NOT_READY)
            {
                throw Cuda.failure(result, "cuStreamQuery(stream of an event of device " + device.ordinal() + ")");
            }
        }
    }
}
