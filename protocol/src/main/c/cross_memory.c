/*
 * Cross-memory reads for same-node transfers (io.stagecoach.protocol.host.CrossMemory): one process copies a range
 * of another's memory into its own with process_vm_readv, the kernel copying page to page once, with no shared
 * buffer in between (Linux 3.2+, the caller needs ptrace access to the other process: same user, and Yama's
 * ptrace_scope 0 or a common ancestor rule that allows it).
 */
#define _GNU_SOURCE
#include <jni.h>
#include <errno.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Returns the bytes read (lengthBytes unless the remote range ends early), or -errno. */
JNIEXPORT jlong JNICALL Java_io_stagecoach_protocol_host_CrossMemory_read0(
    JNIEnv *env, jclass type, jlong pid, jlong remoteAddress, jlong localAddress, jlong lengthBytes)
{
    (void)env;
    (void)type;
    jlong done = 0;
    while (done < lengthBytes)
    {
        struct iovec local = { (void *)(intptr_t)(localAddress + done), (size_t)(lengthBytes - done) };
        struct iovec remote = { (void *)(intptr_t)(remoteAddress + done), (size_t)(lengthBytes - done) };
        const ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
        if (n < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            return -(jlong)errno;
        }
        if (n == 0)
        {
            break;
        }
        done += n;
    }
    return done;
}

/*
 * Lets any process of this user read this one (Yama's ptrace_scope 1 otherwise allows only ancestors): ranks are
 * siblings. Returns 0, or -errno (EINVAL where Yama is absent, which needs nothing).
 */
JNIEXPORT jint JNICALL Java_io_stagecoach_protocol_host_CrossMemory_allowReaders0(JNIEnv *env, jclass type)
{
    (void)env;
    (void)type;
#ifdef PR_SET_PTRACER
    if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) != 0)
    {
        return -errno;
    }
#endif
    return 0;
}
