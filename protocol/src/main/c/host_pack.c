/*
 * Native strided copy for the datatype engine's host pack and unpack (io.stagecoach.protocol.datatype.NativeCopier).
 * One call copies n blocks of lengthBytes from src + e * srcStride to dst + e * dstStride with the C library's
 * memmove, which on glibc is the same vectorised routine as memcpy, the one Open MPI's MPI_Pack calls per block.
 * A base is either null (the offset is a raw address) or a byte[] (the offset is an index into it).
 */
#include <jni.h>
#include <stdint.h>
#include <string.h>

static void gather(const char *src, jlong srcStride, char *dst, jlong dstStride, jlong lengthBytes, jlong n)
{
    if (srcStride == lengthBytes && dstStride == lengthBytes)
    {
        memmove(dst, src, (size_t)(lengthBytes * n));
        return;
    }
    for (jlong e = 0; e < n; e++)
    {
        memmove(dst + e * dstStride, src + e * srcStride, (size_t)lengthBytes);
    }
}

JNIEXPORT void JNICALL Java_io_stagecoach_protocol_datatype_NativeCopier_gather0(
    JNIEnv *env, jclass type, jbyteArray srcArray, jlong src, jlong srcStride, jbyteArray dstArray, jlong dst,
    jlong dstStride, jlong lengthBytes, jlong n)
{
    (void)type;
    char *srcBase = srcArray == NULL ? NULL : (*env)->GetPrimitiveArrayCritical(env, srcArray, NULL);
    char *dstBase = dstArray == NULL ? NULL : (*env)->GetPrimitiveArrayCritical(env, dstArray, NULL);
    if ((srcArray == NULL || srcBase != NULL) && (dstArray == NULL || dstBase != NULL))
    {
        gather((const char *)((srcArray == NULL ? (char *)0 : srcBase) + src), srcStride,
            (dstArray == NULL ? (char *)0 : dstBase) + dst, dstStride, lengthBytes, n);
    }
    if (dstBase != NULL)
    {
        (*env)->ReleasePrimitiveArrayCritical(env, dstArray, dstBase, 0);
    }
    if (srcBase != NULL)
    {
        (*env)->ReleasePrimitiveArrayCritical(env, srcArray, srcBase, JNI_ABORT);
    }
}

JNIEXPORT void JNICALL Java_io_stagecoach_protocol_datatype_NativeCopier_gatherAddresses0(
    JNIEnv *env, jclass type, jlong src, jlong srcStride, jlong dst, jlong dstStride, jlong lengthBytes, jlong n)
{
    (void)env;
    (void)type;
    gather((const char *)(intptr_t)src, srcStride, (char *)(intptr_t)dst, dstStride, lengthBytes, n);
}
