package io.stagecoach.node.launch;

/**
 * The fields of a {@code HELLO <version> <job> <rank> <size> <proof>} line; a number that is missing, negative or
 * does not fit reads as -1.
 *
 * @param version of the protocol the client speaks.
 * @param jobId   the client's job, or {@code -} for any.
 * @param rank    the client's rank.
 * @param size    the number of ranks the client believes its job has.
 * @param proof   the client's HMAC of the challenge and these fields under the job's secret.
 */
record HelloRequest(int version, String jobId, int rank, int size, String proof)
{
    static final String FORM = "'HELLO <version> <job> <rank> <size> <proof>'";
    private static final int WORDS = 5;

    /**
     * @param arguments the words after {@code HELLO}.
     * @return its fields, as far as they can be read.
     */
    static HelloRequest parse(final String arguments)
    {
        final String[] words = arguments.split(" ", -1);
        final int version = Decimals.parseInt(words[0]);
        if (words.length != WORDS)
        {
            return new HelloRequest(version, "", -1, -1, "");
        }
        return new HelloRequest(version, words[1], Decimals.parseInt(words[2]), Decimals.parseInt(words[3]), words[4]);
    }

    /**
     * @return whether every field could be read.
     */
    boolean isWellFormed()
    {
        return version >= 0 && !jobId.isEmpty() && rank >= 0 && size >= 0 && !proof.isEmpty();
    }
}
