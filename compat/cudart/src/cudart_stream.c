/* SPDX-License-Identifier: Apache-2.0
 * Streams and events of the host CUDA runtime.
 *
 * Every runtime call and every cuDNN call completes before it returns, so a
 * stream never has pending work: synchronizing is a no-op and a query always
 * answers cudaSuccess.  An event records the CLOCK_MONOTONIC time at which
 * cudaEventRecord ran, which is when all earlier work in the stream has
 * finished, so cudaEventElapsedTime measures real time.
 *
 * Live handles are kept in a set so that a destroyed or invented handle is
 * refused with cudaErrorInvalidResourceHandle without being dereferenced. */
#define _POSIX_C_SOURCE 200809L
#include "cudart_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct CUstream_st {
    unsigned int flags;
    int priority;
};

struct CUevent_st {
    unsigned int flags;
    bool recorded;
    struct timespec when;
};

/* ---- the set of live handles ------------------------------------------------------- */

typedef struct handle_set {
    void **items;
    size_t count;
    size_t capacity;
} handle_set_t;

static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static handle_set_t streams;
static handle_set_t events;

static bool
set_add(handle_set_t *s, void *p)
{
    bool ok = true;
    pthread_mutex_lock(&handles_lock);
    if (s->count == s->capacity) {
        size_t cap = s->capacity ? 2 * s->capacity : 16;
        void **grown = realloc(s->items, cap * sizeof(*grown));
        if (!grown) {
            ok = false;
            goto out_unlock;
        }
        s->items = grown;
        s->capacity = cap;
    }
    s->items[s->count++] = p;
out_unlock:
    pthread_mutex_unlock(&handles_lock);
    return ok;
}

static bool
set_contains(handle_set_t *s, const void *p)
{
    bool found = false;
    pthread_mutex_lock(&handles_lock);
    for (size_t i = 0; i < s->count && !found; i++)
        found = s->items[i] == p;
    pthread_mutex_unlock(&handles_lock);
    return found;
}

static bool
set_remove(handle_set_t *s, const void *p)
{
    bool found = false;
    pthread_mutex_lock(&handles_lock);
    for (size_t i = 0; i < s->count; i++)
        if (s->items[i] == p) {
            s->items[i] = s->items[--s->count];
            found = true;
            break;
        }
    pthread_mutex_unlock(&handles_lock);
    return found;
}

static void
set_release_all(handle_set_t *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->items[i]);
    s->count = 0;
}

void
fdnn_cudart_streams_release_all(void)
{
    pthread_mutex_lock(&handles_lock);
    set_release_all(&streams);
    set_release_all(&events);
    pthread_mutex_unlock(&handles_lock);
}

bool
fdnn_cudart_stream_valid(cudaStream_t stream)
{
    if (stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return true;
    return set_contains(&streams, stream);
}

/* ---- streams ------------------------------------------------------------------------ */

cudaError_t
cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    if (!pStream || (flags & ~(unsigned)cudaStreamNonBlocking))
        return fdnn_cudart_record(cudaErrorInvalidValue);
    struct CUstream_st *s = malloc(sizeof(*s));
    if (!s)
        return fdnn_cudart_record(cudaErrorMemoryAllocation);
    /* Priorities have no effect here; the range is [0, 0] (see
     * cudaDeviceProp.streamPrioritiesSupported), so CUDA's clamping gives 0. */
    (void)priority;
    *s = (struct CUstream_st){flags, 0};
    if (!set_add(&streams, s)) {
        free(s);
        return fdnn_cudart_record(cudaErrorMemoryAllocation);
    }
    *pStream = s;
    return cudaSuccess;
}

cudaError_t
cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t
cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

cudaError_t
cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    if (!flags)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (!fdnn_cudart_stream_valid(hStream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    int special = hStream == NULL || hStream == cudaStreamLegacy || hStream == cudaStreamPerThread;
    *flags = special ? cudaStreamDefault : hStream->flags;
    return cudaSuccess;
}

/* Priorities do not exist here: the range is [0, 0] and every stream has 0. */
cudaError_t
cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    if (!priority)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (!fdnn_cudart_stream_valid(hStream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    *priority = 0;
    return cudaSuccess;
}

/* Either pointer may be NULL (that value is then not returned), as in CUDA. */
cudaError_t
cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = 0;
    return cudaSuccess;
}

/* The default streams cannot be destroyed. */
cudaError_t
cudaStreamDestroy(cudaStream_t stream)
{
    if (!set_remove(&streams, stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    free(stream);
    return cudaSuccess;
}

cudaError_t
cudaStreamSynchronize(cudaStream_t stream)
{
    if (!fdnn_cudart_stream_valid(stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t
cudaStreamQuery(cudaStream_t stream)
{
    if (!fdnn_cudart_stream_valid(stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

/* The event's work is already done, so there is nothing to wait for. */
cudaError_t
cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    if (flags != cudaEventWaitDefault)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (!fdnn_cudart_stream_valid(stream) || !set_contains(&events, event))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

/* Host functions run at once, in the calling thread: everything queued
 * before them in the stream has already completed. */
cudaError_t
cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    if (!fn)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (!fdnn_cudart_stream_valid(stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    fn(userData);
    return cudaSuccess;
}

cudaError_t
cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags)
{
    if (!callback || flags != 0)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (!fdnn_cudart_stream_valid(stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    callback(stream, cudaSuccess, userData);
    return cudaSuccess;
}

/* ---- events ------------------------------------------------------------------------- */

static bool
event_valid(cudaEvent_t event)
{
    return event != NULL && set_contains(&events, event);
}

cudaError_t
cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (!event || (flags & ~known))
        return fdnn_cudart_record(cudaErrorInvalidValue);
    /* CUDA: an interprocess event must also disable timing. */
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
        return fdnn_cudart_record(cudaErrorInvalidValue);
    struct CUevent_st *e = calloc(1, sizeof(*e));
    if (!e)
        return fdnn_cudart_record(cudaErrorMemoryAllocation);
    e->flags = flags;
    if (!set_add(&events, e)) {
        free(e);
        return fdnn_cudart_record(cudaErrorMemoryAllocation);
    }
    *event = e;
    return cudaSuccess;
}

cudaError_t
cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t
cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (!event_valid(event) || !fdnn_cudart_stream_valid(stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    clock_gettime(CLOCK_MONOTONIC, &event->when);
    event->recorded = true;
    return cudaSuccess;
}

/* cudaEventRecordExternal only matters while capturing a graph, which this
 * runtime never does; it is accepted and records as the default does. */
cudaError_t
cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    if (flags & ~(unsigned)cudaEventRecordExternal)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    return cudaEventRecord(event, stream);
}

/* CUDA answers cudaSuccess for an event never recorded, too. */
cudaError_t
cudaEventQuery(cudaEvent_t event)
{
    if (!event_valid(event))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t
cudaEventSynchronize(cudaEvent_t event)
{
    if (!event_valid(event))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

/* Milliseconds from start to end.  As in CUDA: an event never recorded, or
 * created with cudaEventDisableTiming, is an invalid handle here. */
cudaError_t
cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (!event_valid(start) || !event_valid(end))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    if (!start->recorded || !end->recorded)
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    double s = (double)(end->when.tv_sec - start->when.tv_sec);
    double ns = (double)(end->when.tv_nsec - start->when.tv_nsec);
    *ms = (float)(s * 1e3 + ns * 1e-6);
    return cudaSuccess;
}

cudaError_t
cudaEventDestroy(cudaEvent_t event)
{
    if (!event || !set_remove(&events, event))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    free(event);
    return cudaSuccess;
}
