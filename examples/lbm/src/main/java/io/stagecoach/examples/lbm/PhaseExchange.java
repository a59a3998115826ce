package io.stagecoach.examples.lbm;

/**
 * The messages of one halo phase as a variant moves them. {@link #start(int)} posts them, once the kernels that wrote
 * what they send are done; {@link #finish(int)} waits for them, after which what they carried is in place (for the
 * device's later work in the step's stream).
 */
interface PhaseExchange extends AutoCloseable
{
    /**
     * @param parity of the step (which population buffer is current).
     */
    void start(int parity);

    /**
     * @param parity of the step, as given to {@link #start(int)}.
     */
    void finish(int parity);

    @Override
    void close();
}
