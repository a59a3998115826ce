package io.stagecoach.node.launch;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CoreBindingTest
{
    @Test
    void shouldParseLinuxCpuLists()
    {
        assertArrayEquals(new int[]{ 0, 1, 2, 3, 8, 10, 11 }, CoreBinding.parseCpuList("0-3,8,10-11"));
        assertArrayEquals(new int[]{ 5 }, CoreBinding.parseCpuList("5"));
    }

    @Test
    void shouldNameACpuListItCannotRead()
    {
        final IllegalArgumentException error =
            assertThrows(IllegalArgumentException.class, () -> CoreBinding.parseCpuList("3-1"));
        assertTrue(error.getMessage().contains("'3-1'"), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CoreBinding.parseCpuList("a,b"));
    }

    @Test
    void shouldRunEachRankOnItsCoreThroughTaskset()
    {
        final CoreBinding binding = CoreBinding.ofThisProcess();
        final int[] cpus = CoreBinding.parseCpuList(TestCpus.allowed());
        assertEquals(List.of("taskset", "-c", Integer.toString(cpus[0]), "java", "-cp", "x", "Main"),
            binding.bind(0, List.of("java", "-cp", "x", "Main")));
        assertEquals(cpus[cpus.length - 1], binding.cpuOf(cpus.length - 1));
        assertEquals(cpus[0], binding.cpuOf(cpus.length));
    }
}
