/**
 * Native host memory operations: the library that holds them and same-node cross-memory reads.
 */
package io.stagecoach.protocol.host;
