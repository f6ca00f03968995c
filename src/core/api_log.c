/* SPDX-License-Identifier: Apache-2.0
 * The cuDNN logger: environment variables, callbacks and the 8.x record
 * format.  See api_log.h. */
#define _GNU_SOURCE
#include "core/api_log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/os.h"
#include "core/tensor.h"
#include "enum_names.h"

/* ---- failure reasons (fail.h) ---------------------------------------- */

static _Thread_local char fail_reason[512];

cudnnStatus_t
fdnn_fail(cudnnStatus_t status, const char *fmt, ...)
{
    /* Formatted aside, then copied: a new reason may quote the previous
     * one (fdnn_fail_reason() as an argument), which vsnprintf into the
     * buffer it reads would overlap (undefined). */
    char text[sizeof(fail_reason)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    memcpy(fail_reason, text, sizeof(fail_reason));
    return status;
}

const char *
fdnn_fail_reason(void)
{
    return fail_reason;
}

void
fdnn_fail_clear(void)
{
    fail_reason[0] = '\0';
}

/* ---- logger state ----------------------------------------------------- */

/* The only process-wide mutable state of the library, guarded by `lock`:
 * what is logged and where.  Set from the environment on first use and by
 * cudnnSetCallback. */
static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    unsigned mask; /* CUDNN_SEV_*_EN bits */
    void *udata;
    cudnnCallback_t fptr; /* NULL: the built-in writer to `dest` */
    FILE *dest;           /* NULL: nothing is written by the built-in writer */
    struct timeval start;
    struct timeval last;
} logger = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, 0, NULL, NULL, NULL, {0, 0}, {0, 0}};

static bool
env_is_one(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, "1") == 0;
}

static void
logger_init(void)
{
    gettimeofday(&logger.start, NULL);
    logger.last = logger.start;
    const char *dest = getenv("CUDNN_LOGDEST_DBG");
    if (dest == NULL || dest[0] == '\0')
        return; /* as in cuDNN 8: nothing is logged without a destination */
    if (strcmp(dest, "stdout") == 0)
        logger.dest = stdout;
    else if (strcmp(dest, "stderr") == 0)
        logger.dest = stderr;
    else
        logger.dest = fopen(dest, "w");
    if (logger.dest == NULL)
        return;
    if (env_is_one("CUDNN_LOGERR_DBG"))
        logger.mask |= CUDNN_SEV_ERROR_EN;
    if (env_is_one("CUDNN_LOGWARN_DBG"))
        logger.mask |= CUDNN_SEV_WARNING_EN;
    if (env_is_one("CUDNN_LOGINFO_DBG"))
        logger.mask |= CUDNN_SEV_INFO_EN;
}

static unsigned
logger_mask(void)
{
    pthread_once(&logger.once, logger_init);
    return __atomic_load_n(&logger.mask, __ATOMIC_RELAXED);
}

cudnnStatus_t
fdnn_log_set_callback(unsigned mask, void *udata, cudnnCallback_t fptr)
{
    pthread_once(&logger.once, logger_init);
    pthread_mutex_lock(&logger.lock);
    __atomic_store_n(&logger.mask, mask & (CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN | CUDNN_SEV_INFO_EN),
                     __ATOMIC_RELAXED);
    logger.udata = udata;
    logger.fptr = fptr;
    pthread_mutex_unlock(&logger.lock);
    return CUDNN_STATUS_SUCCESS;
}

void
fdnn_log_get_callback(unsigned *mask, void **udata, cudnnCallback_t *fptr)
{
    pthread_once(&logger.once, logger_init);
    pthread_mutex_lock(&logger.lock);
    *mask = logger.mask;
    *udata = logger.udata;
    *fptr = logger.fptr;
    pthread_mutex_unlock(&logger.lock);
}

/* ---- records ---------------------------------------------------------- */

static void
rec_append(fdnn_api_record_t *rec, const char *fmt, ...) FDNN_PRINTF(2, 3);

static void
rec_append(fdnn_api_record_t *rec, const char *fmt, ...)
{
    if (rec->len >= sizeof(rec->text) - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(rec->text + rec->len, sizeof(rec->text) - rec->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        rec->len += (size_t)n;
    if (rec->len > sizeof(rec->text) - 1)
        rec->len = sizeof(rec->text) - 1;
}

bool
fdnn_api_begin(fdnn_api_record_t *rec, const char *func)
{
    fdnn_fail_clear();
    rec->func = func;
    rec->handle = NULL;
    rec->len = 0;
    rec->text[0] = '\0';
    rec->info = (logger_mask() & CUDNN_SEV_INFO_EN) != 0;
    return rec->info;
}

void
fdnn_log_param_int(fdnn_api_record_t *rec, const char *name, const char *type, long long v)
{
    rec_append(rec, "i!     %s: type=%s; val=%lld;\n", name, type, v);
}

void
fdnn_log_param_real(fdnn_api_record_t *rec, const char *name, const char *type, double v)
{
    rec_append(rec, "i!     %s: type=%s; val=%g;\n", name, type, v);
}

void
fdnn_log_param_enum(fdnn_api_record_t *rec, const char *name, const char *type, const char *vname, int v)
{
    if (vname != NULL)
        rec_append(rec, "i!     %s: type=%s; val=%s (%d);\n", name, type, vname, v);
    else
        rec_append(rec, "i!     %s: type=%s; val=%d (not a valid enumerator);\n", name, type, v);
}

void
fdnn_log_param_ptr(fdnn_api_record_t *rec, const char *name, const char *type, const void *p)
{
    rec_append(rec, "i!     %s: type=%s; location=host; addr=%p;\n", name, type, p);
}

/* Tensor and filter descriptors are expanded one level, as cuDNN 8 does:
 * data type, dims and strides.  Other descriptors show their address. */
static void
describe_dims(fdnn_api_record_t *rec, const char *label, int n, const int *v)
{
    rec_append(rec, "i!         %s: type=int; val=[", label);
    for (int i = 0; i < n && i < CUDNN_DIM_MAX; i++)
        rec_append(rec, "%s%d", i ? "," : "", v[i]);
    rec_append(rec, "];\n");
}

void
fdnn_log_param_desc(fdnn_api_record_t *rec, const char *name, const char *type, const void *p)
{
    if (strcmp(type, "cudnnHandle_t") == 0)
        rec->handle = (cudnnHandle_t)p;
    const struct cudnnTensorStruct *t = p;
    const struct cudnnFilterStruct *f = p;
    if (p != NULL && strcmp(type, "cudnnTensorDescriptor_t") == 0 && t->magic == FDNN_TENSOR_MAGIC && t->is_set) {
        rec_append(rec, "i!     %s: type=%s:\n", name, type);
        rec_append(rec, "i!         dataType: type=cudnnDataType_t; val=%s (%d);\n",
                   fdnn_enum_name_cudnnDataType_t((int)t->dtype), (int)t->dtype);
        rec_append(rec, "i!         nbDims: type=int; val=%d;\n", t->nb_dims);
        describe_dims(rec, "dimA", t->nb_dims, t->dims);
        describe_dims(rec, "strideA", t->nb_dims, t->strides);
    } else if (p != NULL && strcmp(type, "cudnnFilterDescriptor_t") == 0 && f->magic == FDNN_FILTER_MAGIC &&
               f->is_set) {
        rec_append(rec, "i!     %s: type=%s:\n", name, type);
        rec_append(rec, "i!         dataType: type=cudnnDataType_t; val=%s (%d);\n",
                   fdnn_enum_name_cudnnDataType_t((int)f->dtype), (int)f->dtype);
        describe_dims(rec, "dimA", f->nb_dims, f->dims);
        rec_append(rec, "i!         format: type=cudnnTensorFormat_t; val=%s (%d);\n",
                   fdnn_enum_name_cudnnTensorFormat_t((int)f->format), (int)f->format);
    } else {
        rec_append(rec, "i!     %s: type=%s; addr=%p;\n", name, type, p);
    }
}

/* Formats the common tail of a record and hands it to the callback or the
 * built-in writer.  `lead` is the record's letter (I, W, E). */
static void
deliver(cudnnSeverity_t sev, char lead, const char *func, const char *body, cudnnStatus_t status,
        cudnnHandle_t handle)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    char lower = (char)(lead - 'A' + 'a');

    pthread_mutex_lock(&logger.lock);
    long long since = (long long)(now.tv_sec - logger.start.tv_sec);
    cudnnDebug_t dbg;
    memset(&dbg, 0, sizeof(dbg));
    dbg.cudnn_version = CUDNN_VERSION;
    dbg.cudnnStatus = status;
    dbg.time_sec = (unsigned)now.tv_sec;
    dbg.time_usec = (unsigned)now.tv_usec;
    dbg.time_delta = (unsigned)(now.tv_sec - logger.last.tv_sec);
    dbg.handle = handle;
    dbg.stream = fdnn_handle_stream_or_null(handle);
    dbg.pid = fdnn_os_process_id();
    dbg.tid = fdnn_os_thread_id();
    dbg.cudaDeviceId = 0;
    logger.last = now;

    struct tm tm;
    time_t secs = now.tv_sec;
    gmtime_r(&secs, &tm);
    char stamp[64];
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);

    char msg[FDNN_API_RECORD_TEXT + 512];
    char handle_text[32], stream_text[32];
    if (handle != NULL)
        snprintf(handle_text, sizeof(handle_text), "%p", (void *)handle);
    else
        snprintf(handle_text, sizeof(handle_text), "NULL");
    if (dbg.stream != NULL)
        snprintf(stream_text, sizeof(stream_text), "%p", (void *)dbg.stream);
    else
        snprintf(stream_text, sizeof(stream_text), "NULL");
    snprintf(msg, sizeof(msg),
             "%c! CuDNN (v%d) function %s() called:\n%s"
             "%c! Time: %s.%06ld (%lldd+%lldh+%lldm+%llds since start)\n"
             "%c! Process=%llu; Thread=%llu; GPU=NULL; Handle=%s; StreamId=%s.\n",
             lead, CUDNN_VERSION, func, body, lower, stamp, (long)now.tv_usec, since / 86400,
             since / 3600 % 24, since / 60 % 60, since % 60, lower, dbg.pid, dbg.tid, handle_text,
             stream_text);
    cudnnCallback_t fptr = logger.fptr;
    void *udata = logger.udata;
    FILE *dest = logger.dest;
    if (fptr == NULL && dest != NULL) {
        fputs(msg, dest);
        fputc('\n', dest);
        fflush(dest);
    }
    pthread_mutex_unlock(&logger.lock);
    if (fptr != NULL)
        fptr(sev, udata, &dbg, msg);
}

void
fdnn_api_log_call(fdnn_api_record_t *rec)
{
    deliver(CUDNN_SEV_INFO, 'I', rec->func, rec->text, CUDNN_STATUS_SUCCESS, rec->handle);
}

cudnnStatus_t
fdnn_api_end(fdnn_api_record_t *rec, cudnnStatus_t status)
{
    if (status == CUDNN_STATUS_SUCCESS || (logger_mask() & CUDNN_SEV_ERROR_EN) == 0)
        return status;
    const char *name = fdnn_enum_name_cudnnStatus_t((int)status);
    const char *reason = fdnn_fail_reason();
    char body[768];
    snprintf(body, sizeof(body), "e!         Error: %s; Reason: %s\n", name ? name : "CUDNN_UNKNOWN_STATUS",
             reason[0] ? reason : "(no reason recorded)");
    deliver(CUDNN_SEV_ERROR, 'E', rec->func, body, status, rec->handle);
    return status;
}

cudnnStatus_t
fdnn_api_not_supported(fdnn_api_record_t *rec, const char *sublib)
{
    return FDNN_NOT_SUPPORTED("%s (%s) is not implemented in FreeDNN yet; see docs/coverage.md", rec->func,
                              sublib);
}

void
fdnn_log_warning(const char *func, const char *fmt, ...)
{
    if ((logger_mask() & CUDNN_SEV_WARNING_EN) == 0)
        return;
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    char body[640];
    snprintf(body, sizeof(body), "w!         Warning: %s\n", reason);
    deliver(CUDNN_SEV_WARNING, 'W', func, body, CUDNN_STATUS_SUCCESS, NULL);
}
