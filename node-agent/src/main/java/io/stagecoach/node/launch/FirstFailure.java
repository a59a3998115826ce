package io.stagecoach.node.launch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Names a failed job's first failure: the first rank that failed by itself, unless it reported ({@code LOST}) that
 * it lost a peer; then that peer, and on while the peer reported losing another. A rank that gave up on a stopped or
 * starved peer is then not blamed for the peer.
 */
final class FirstFailure
{
    private final Map<Integer, RankProcess> ranks = new HashMap<>();
    private final Map<Integer, PeerLoss> losses;

    /**
     * @param ranks  the job's started ranks, all ended.
     * @param losses the first peer each rank reported lost, by reporting rank.
     */
    FirstFailure(final List<RankProcess> ranks, final Map<Integer, PeerLoss> losses)
    {
        ranks.forEach(process -> this.ranks.put(process.rank(), process));
        this.losses = losses;
    }

    /**
     * @param failed the first rank that failed by itself.
     * @return e.g. {@code "rank 1 (pid 7), stopped (SIGSTOP or SIGTSTP) when the launcher ended it; rank 0 lost
     * rank 1 (no message for 20 s) and failed: exit status 1"}, or {@code "rank 0 (pid 6), exit status 1"} when it
     * reported no loss.
     */
    String describe(final RankProcess failed)
    {
        final List<RankProcess> chain = lossesFrom(failed);
        final RankProcess root = chain.get(chain.size() - 1);
        final StringBuilder text = new StringBuilder()
            .append("rank ").append(root.rank()).append(" (pid ").append(root.pid()).append("), ").append(fate(root));
        for (int i = chain.size() - 2; i >= 0; i--)
        {
            final RankProcess loser = chain.get(i);
            text.append("; rank ").append(loser.rank()).append(" lost rank ").append(chain.get(i + 1).rank())
                .append(" (").append(losses.get(loser.rank()).reason()).append(")");
        }
        if (chain.size() > 1)
        {
            text.append(" and failed: ").append(ExitStatus.describe(failed.exitStatus()));
        }
        return text.toString();
    }

    private List<RankProcess> lossesFrom(final RankProcess failed)
    {
        final List<RankProcess> chain = new ArrayList<>();
        final Set<Integer> seen = new HashSet<>();
        RankProcess process = failed;
        while (null != process && seen.add(process.rank()))
        {
            chain.add(process);
            final PeerLoss loss = losses.get(process.rank());
            process = null == loss ? null : ranks.get(loss.peer());
        }
        return chain;
    }

    private static String fate(final RankProcess process)
    {
        if (!process.endedByLauncher())
        {
            return ExitStatus.describe(process.exitStatus());
        }
        final String state = process.lastState();
        return (null == state ? "running" : state) + " when the launcher ended it";
    }
}
