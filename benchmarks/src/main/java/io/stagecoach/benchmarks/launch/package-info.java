/**
 * Programs that measure how jobs start.
 */
package io.stagecoach.benchmarks.launch;
