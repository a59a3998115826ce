package io.stagecoach.pipeline.transport.cudaipc;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceRuntime;

/**
 * Ranges of host memory registered with the device ({@code cuMemHostRegister}) so that copies and kernels reach them
 * in place, kept for reuse since registering costs far more than a copy: a receive buffer in this rank's shared arena,
 * a send buffer in a same-node peer's arena mapped here. Ranges are widened to whole pages. Registering a range drops
 * the registrations it overlaps (the driver refuses overlaps); the least recently used goes beyond the bound. One
 * thread uses it.
 */
final class HostRegistrations implements AutoCloseable
{
    private record Range(long address, long lengthBytes)
    {
        boolean overlaps(final long otherAddress, final long otherLength)
        {
            return address < otherAddress + otherLength && otherAddress < address + lengthBytes;
        }
    }

    private static final long PAGE_BYTES = 4096;

    private final DeviceRuntime runtime;
    private final int maxRanges;
    private final Map<Range, Allocation> ranges = new LinkedHashMap<>(16, 0.75f, true);

    HostRegistrations(final DeviceRuntime runtime, final int maxRanges)
    {
        this.runtime = runtime;
        this.maxRanges = maxRanges;
    }

    /**
     * @return true when the range is registered, now or already; false when the device refuses it.
     */
    boolean register(final long start, final long length)
    {
        final long address = start & ~(PAGE_BYTES - 1);
        final long lengthBytes = ((start + length + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1)) - address;
        final Range range = new Range(address, lengthBytes);
        if (ranges.get(range) != null)
        {
            return true;
        }
        final List<Range> overlapping = new ArrayList<>();
        for (final Range known : ranges.keySet())
        {
            if (known.overlaps(address, lengthBytes))
            {
                overlapping.add(known);
            }
        }
        for (final Range known : overlapping)
        {
            ranges.remove(known).free();
        }
        final Allocation registered;
        try
        {
            registered = runtime.register(address, lengthBytes);
        }
        catch (final RuntimeException ex)
        {
            return false;
        }
        ranges.put(range, registered);
        final Iterator<Allocation> eldest = ranges.values().iterator();
        while (ranges.size() > maxRanges && eldest.hasNext())
        {
            eldest.next().free();
            eldest.remove();
        }
        return true;
    }

    int size()
    {
        return ranges.size();
    }

    public void close()
    {
        for (final Allocation registered : ranges.values())
        {
            registered.free();
        }
        ranges.clear();
    }
}
