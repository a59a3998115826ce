package io.stagecoach.examples.lbm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessGridTest
{
    @Test
    void shouldBalanceTheGridAsMpiDimsCreateDoes()
    {
        assertEquals("1x1x1", ProcessGrid.balanced(1).toString());
        assertEquals("2x1x1", ProcessGrid.balanced(2).toString());
        assertEquals("2x2x1", ProcessGrid.balanced(4).toString());
        assertEquals("3x2x1", ProcessGrid.balanced(6).toString());
        assertEquals("2x2x2", ProcessGrid.balanced(8).toString());
        assertEquals("4x4x4", ProcessGrid.balanced(64).toString());
    }

    @Test
    void shouldFindNeighboursAcrossThePeriodicBoundary()
    {
        final ProcessGrid grid = new ProcessGrid(3, 2, 2);
        final int rank = 5;
        assertEquals(2, grid.coordinate(rank, 0));
        assertEquals(1, grid.coordinate(rank, 1));
        assertEquals(0, grid.coordinate(rank, 2));
        assertEquals(3, grid.neighbour(rank, 0, 1));
        assertEquals(4, grid.neighbour(rank, 0, -1));
        assertEquals(2, grid.neighbour(rank, 1, 1));
        assertEquals(2, grid.neighbour(rank, 1, -1));
        assertEquals(11, grid.neighbour(rank, 2, 1));
        assertEquals(0, new ProcessGrid(1, 1, 1).neighbour(0, 2, -1));
    }

    @Test
    void shouldSplitTheLatticeIntoEqualBlocks()
    {
        final Block block = new ProcessGrid(2, 2, 1).block(3, 8, 6, 4);
        assertEquals(new Block(4, 3, 4, 4, 3, 0, 8, 6, 4), block);
        assertEquals(((long)2 * 6 + 5) * 8 + 6, block.globalIndex(3, 3, 3));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new ProcessGrid(2, 1, 1).block(0, 7, 4, 4));
        assertTrue(ex.getMessage().contains("x needs a multiple of 2"), ex.getMessage());
    }
}
