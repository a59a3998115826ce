package io.stagecoach.rank.engine;

import java.util.function.Consumer;
import java.util.function.Predicate;

import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;

/**
 * MPI matching: the posted-receive queue, in posting order, and the unexpected-message queue, in arrival order.
 * An arriving message takes the earliest posted receive that matches it; a new receive takes the earliest
 * unexpected message it matches. Since the messages of one source arrive in the order they were sent, this keeps
 * MPI's non-overtaking rule per (source, tag, communicator), wildcards included. Both queues are intrusive doubly
 * linked lists: removal from the middle costs nothing.
 */
final class MatchQueues
{
    private final ArrivalWatches arrivals;
    private ReceiveOperation postedHead;
    private ReceiveOperation postedTail;
    private int postedCount;
    private long nextPostOrder;
    private UnexpectedMessage unexpectedHead;
    private UnexpectedMessage unexpectedTail;
    private int unexpectedCount;
    private long unexpectedBytes;

    MatchQueues()
    {
        this(null);
    }

    /**
     * @param arrivals told of each message the unexpected queue takes in, or null.
     */
    MatchQueues(final ArrivalWatches arrivals)
    {
        this.arrivals = arrivals;
    }

    void post(final ReceiveOperation receive)
    {
        receive.postOrder = nextPostOrder++;
        receive.previous = postedTail;
        receive.next = null;
        if (postedTail == null)
        {
            postedHead = receive;
        }
        else
        {
            postedTail.next = receive;
        }
        postedTail = receive;
        postedCount++;
    }

    /**
     * @return the earliest posted receive that matches the envelope, removed from the queue; null if none.
     */
    ReceiveOperation takePosted(final int source, final int tag, final int contextId)
    {
        for (ReceiveOperation receive = postedHead; receive != null; receive = receive.next)
        {
            if (receive.matches(source, tag, contextId))
            {
                removePosted(receive);
                return receive;
            }
        }
        return null;
    }

    /**
     * @return the posted receive of a request, removed from the queue; null when no message matched it is not
     * posted (a message matched it, or it completed).
     */
    ReceiveOperation takePosted(final Request request)
    {
        for (ReceiveOperation receive = postedHead; receive != null; receive = receive.next)
        {
            if (receive.request == request)
            {
                removePosted(receive);
                return receive;
            }
        }
        return null;
    }

    void removePosted(final ReceiveOperation receive)
    {
        if (receive.previous == null)
        {
            postedHead = receive.next;
        }
        else
        {
            receive.previous.next = receive.next;
        }
        if (receive.next == null)
        {
            postedTail = receive.previous;
        }
        else
        {
            receive.next.previous = receive.previous;
        }
        receive.previous = null;
        receive.next = null;
        postedCount--;
    }

    /**
     * Removes every posted receive the filter accepts, in posting order, and hands each to the consumer.
     */
    void drainPosted(final Predicate<ReceiveOperation> filter, final Consumer<ReceiveOperation> to)
    {
        ReceiveOperation receive = postedHead;
        while (receive != null)
        {
            final ReceiveOperation next = receive.next;
            if (filter.test(receive))
            {
                removePosted(receive);
                to.accept(receive);
            }
            receive = next;
        }
    }

    void addUnexpected(final UnexpectedMessage message)
    {
        message.previous = unexpectedTail;
        message.next = null;
        if (unexpectedTail == null)
        {
            unexpectedHead = message;
        }
        else
        {
            unexpectedTail.next = message;
        }
        unexpectedTail = message;
        unexpectedCount++;
        unexpectedBytes += message.payload == null ? 0 : message.payload.length;
        if (arrivals != null)
        {
            arrivals.arrived(message);
        }
    }

    /**
     * Hands every unexpected message held to the consumer, in arrival order, leaving them held.
     */
    void forEachUnexpected(final Consumer<UnexpectedMessage> to)
    {
        for (UnexpectedMessage message = unexpectedHead; message != null; message = message.next)
        {
            to.accept(message);
        }
    }

    /**
     * @return the earliest unexpected message the pattern matches, or null; removed from the queue when asked.
     */
    UnexpectedMessage findUnexpected(final int source, final int tag, final int contextId, final boolean remove)
    {
        for (UnexpectedMessage message = unexpectedHead; message != null; message = message.next)
        {
            if ((source == Communicator.ANY_SOURCE || source == message.source) &&
                (tag == Communicator.ANY_TAG || tag == message.tag) && contextId == message.contextId)
            {
                if (remove)
                {
                    removeUnexpected(message);
                }
                return message;
            }
        }
        return null;
    }

    UnexpectedMessage pollUnexpected()
    {
        final UnexpectedMessage head = unexpectedHead;
        if (head != null)
        {
            removeUnexpected(head);
        }
        return head;
    }

    int postedCount()
    {
        return postedCount;
    }

    int unexpectedCount()
    {
        return unexpectedCount;
    }

    /**
     * @return bytes of eager payload held in the unexpected queue.
     */
    long unexpectedBytes()
    {
        return unexpectedBytes;
    }

    private void removeUnexpected(final UnexpectedMessage message)
    {
        if (message.previous == null)
        {
            unexpectedHead = message.next;
        }
        else
        {
            message.previous.next = message.next;
        }
        if (message.next == null)
        {
            unexpectedTail = message.previous;
        }
        else
        {
            message.next.previous = message.previous;
        }
        message.previous = null;
        message.next = null;
        unexpectedCount--;
        unexpectedBytes -= message.payload == null ? 0 : message.payload.length;
    }
}
