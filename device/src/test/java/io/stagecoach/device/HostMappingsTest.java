package io.stagecoach.device;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostMappingsTest
{
    @Test
    void shouldTellMappedFromUnmappedAddresses()
    {
        final HostBuffer buffer = new HostBuffer(8192);
        assertTrue(HostMappings.isMapped(buffer.address() + 100));
        assertFalse(HostMappings.isMapped(0x10));
    }
}
