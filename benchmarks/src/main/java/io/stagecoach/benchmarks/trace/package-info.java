/**
 * The stage trace's cost ({@code StageTracerBenchmark}, JMH) and a modelled trace of a pipelined transfer for the
 * picture script and Perfetto ({@code SyntheticTrace}).
 */
package io.stagecoach.benchmarks.trace;
