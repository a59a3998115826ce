package io.stagecoach.node.jobs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

final class HostSlotsTest
{
    @Test
    void shouldReadHostListsAsMpirunDoes()
    {
        assertEquals(List.of(new HostSlots("node-a", 4), new HostSlots("node-b", 1), new HostSlots("c.1", 2)),
            HostSlots.parseList("node-a:4, node-b,c.1:1,c.1"));
    }

    @Test
    void shouldNameWhatCannotBeUsed()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostSlots.parseList("a:0")).getMessage()
            .contains("slots must be a whole number from 1 to 1024, not '0'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostSlots.parseList("a,,b")).getMessage()
            .contains("'' is not a node name"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostSlots.parseList("a:1000,a:100"))
            .getMessage().contains("node a has 1100 slots, more than 1024"));
    }

    @Test
    void shouldReadOpenMpiHostfiles(@TempDir final Path temp) throws Exception
    {
        final Path file = Files.writeString(temp.resolve("hosts"),
            "# cluster\nnode-a slots=2 max_slots=4\n\n  node-b:3   # GPU node\nnode-c\n");
        assertEquals(List.of(new HostSlots("node-a", 2), new HostSlots("node-b", 3), new HostSlots("node-c", 1)),
            HostSlots.parseFile(file));
        final Path bad = Files.writeString(temp.resolve("bad"), "node-a cpus=2\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostSlots.parseFile(bad)).getMessage()
            .endsWith("bad line 1: 'cpus=2' is neither slots=N nor max_slots=N"));
        final Path empty = Files.writeString(temp.resolve("empty"), "# nothing\n");
        assertThrows(IllegalArgumentException.class, () -> HostSlots.parseFile(empty));
    }

    @Test
    void shouldPlaceRanksBySlotThenRoundTheNodes()
    {
        final Map<String, int[]> placed = Placement.place(5,
            List.of(new HostSlots("a", 2), new HostSlots("b", 2)), true);
        assertArrayEquals(new int[] { 0, 1, 4 }, placed.get("a"));
        assertArrayEquals(new int[] { 2, 3 }, placed.get("b"));
        assertEquals(List.of("a"), List.copyOf(Placement.place(2,
            List.of(new HostSlots("a", 2), new HostSlots("b", 2)), false).keySet()));
        assertEquals("-n 5 asks for more ranks than the 4 slots of the nodes given (a:2,b:2); add --oversubscribe " +
            "to run more ranks than slots", assertThrows(IllegalArgumentException.class, () -> Placement.place(5,
            List.of(new HostSlots("a", 2), new HostSlots("b", 2)), false)).getMessage());
    }

    @Test
    void shouldCarryAJobRequestThroughTheControlSocketUnchanged()
    {
        final JobRequest request = new JobRequest(4, List.of(new HostSlots("a", 2), new HostSlots("b", 2)),
            "latency", List.of("H", "D", "--max-size", "65536"), "/opt/x.jar", List.of("-Xmx1g"),
            Map.of("GREETING", "hello world", "EMPTY", ""), true, false, 60_000);
        final String text = request.toText();
        assertTrue(text.chars().noneMatch(c -> c <= ' '), text);
        assertEquals(request, JobRequest.fromText(text));
        assertThrows(IllegalArgumentException.class, () -> JobRequest.fromText("bm90IGEgam9i"));
        assertEquals("-n must be from 1 to 65536, not 0", assertThrows(IllegalArgumentException.class,
            () -> new JobRequest(0, List.of(new HostSlots("a", 1)), "x", List.of(), "", List.of(), Map.of(),
                false, false, 0)).getMessage());
    }
}
