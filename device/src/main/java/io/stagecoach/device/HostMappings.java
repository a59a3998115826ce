package io.stagecoach.device;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether an address is mapped readable in this process, from /proc/self/maps (address ranges the driver only reserved
 * are mapped without access). Asked only when an address falls in device
 * memory freed earlier and the driver no longer knows it: the host may have mapped the same virtual range since
 * (unified addressing hands freed ranges back), which is legitimate pageable memory, not a use after free.
 */
final class HostMappings
{
    private static final Path MAPS = Path.of("/proc/self/maps");

    private HostMappings()
    {
    }

    /**
     * @param address to look for.
     * @return true if a readable mapping holds it, or if the mappings cannot be read (then nothing can be concluded).
     */
    static boolean isMapped(final long address)
    {
        try (BufferedReader reader = Files.newBufferedReader(MAPS, StandardCharsets.US_ASCII))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                final int dash = line.indexOf('-');
                final int space = line.indexOf(' ');
                if (dash > 0 && space > dash)
                {
                    final long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
                    final long end = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
                    if (Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0)
                    {
                        return line.length() > space + 1 && line.charAt(space + 1) == 'r';
                    }
                }
            }
            return false;
        }
        catch (final IOException | RuntimeException ex)
        {
            return true;
        }
    }
}
