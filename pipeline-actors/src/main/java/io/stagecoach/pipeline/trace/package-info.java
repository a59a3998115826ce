/**
 * The stage trace: every stage of every chunk of a pipelined transfer (pack, device to host, wire, host to device,
 * unpack) recorded into a lock-free ring of the rank, drained into a binary file per rank, and merged by the launcher
 * into a Chrome trace (Trace Event Format) that ui.perfetto.dev opens. See {@code docs/tracing.md}.
 */
package io.stagecoach.pipeline.trace;
