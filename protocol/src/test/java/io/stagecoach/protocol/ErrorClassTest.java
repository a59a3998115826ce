package io.stagecoach.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ErrorClassTest
{
    @Test
    void shouldNameEachClassAsMpiDoes()
    {
        assertEquals("MPI_ERR_TRUNCATE", ErrorClass.TRUNCATE.mpiName());
        assertEquals("MPI_ERR_PROC_FAILED", ErrorClass.PROC_FAILED.mpiName());
        assertEquals("MPI_ERR_VALUE_TOO_LARGE", ErrorClass.VALUE_TOO_LARGE.mpiName());
        for (final String name : new String[]{ "COUNT", "ARG", "TYPE", "RANK", "TAG", "BUFFER", "OTHER", "INTERN",
            "NO_MEM", "SIZE" })
        {
            assertEquals("MPI_ERR_" + name, ErrorClass.valueOf(name).mpiName());
        }
    }
}
