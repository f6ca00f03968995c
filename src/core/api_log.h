/* SPDX-License-Identifier: Apache-2.0
 * The cuDNN logger, as the generated entry points (api_entries.c) drive it.
 *
 * cuDNN 8.x logs when CUDNN_LOGDEST_DBG names stdout, stderr or a file and
 * one of CUDNN_LOGINFO_DBG (every call with its arguments), CUDNN_LOGWARN_DBG
 * or CUDNN_LOGERR_DBG (failures with their reason) is 1; or when a program
 * installs a callback with cudnnSetCallback.  Records follow the 8.x format:
 *
 *   I! CuDNN (v8904) function cudnnCreate() called:
 *   i!     handle: location=host; addr=0x...;
 *   i! Time: 2026-12-02T13:45:01.123456 (0d+0h+0m+0s since start)
 *   i! Process=123; Thread=123; GPU=NULL; Handle=NULL; StreamId=NULL.
 *
 * Thread-safety: every function here may be called from any thread. */
#ifndef FDNN_CORE_API_LOG_H
#define FDNN_CORE_API_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "cudnn.h"

#define FDNN_API_RECORD_TEXT 3072

/* One public call being logged.  Lives on the entry point's stack. */
typedef struct fdnn_api_record {
    const char *func;
    cudnnHandle_t handle; /* the call's handle argument, if any */
    bool info;            /* the call is being recorded for INFO */
    size_t len;
    char text[FDNN_API_RECORD_TEXT]; /* the parameter lines */
} fdnn_api_record_t;

/* Starts a call: clears the thread's failure reason.  Returns true when the
 * parameters should be recorded (INFO logging on). */
bool fdnn_api_begin(fdnn_api_record_t *rec, const char *func);

void fdnn_log_param_int(fdnn_api_record_t *rec, const char *name, const char *type, long long v);
void fdnn_log_param_real(fdnn_api_record_t *rec, const char *name, const char *type, double v);
void fdnn_log_param_enum(fdnn_api_record_t *rec, const char *name, const char *type, const char *vname,
                         int v);
void fdnn_log_param_ptr(fdnn_api_record_t *rec, const char *name, const char *type, const void *p);
void fdnn_log_param_desc(fdnn_api_record_t *rec, const char *name, const char *type, const void *p);

/* Emits the INFO record of the call. */
void fdnn_api_log_call(fdnn_api_record_t *rec);

/* Ends a call: a failing status is logged at ERROR with the reason.
 * Returns status unchanged. */
cudnnStatus_t fdnn_api_end(fdnn_api_record_t *rec, cudnnStatus_t status);

/* What a function that is not implemented yet returns. */
cudnnStatus_t fdnn_api_not_supported(fdnn_api_record_t *rec, const char *sublib);

/* A warning record (CUDNN_LOGWARN_DBG / CUDNN_SEV_WARNING_EN). */
void fdnn_log_warning(const char *func, const char *fmt, ...)
#if defined(__MINGW32__) /* MinGW's own printf: see FDNN_PRINTF in fail.h */
    __attribute__((format(gnu_printf, 2, 3)))
#elif defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The logger's settings, read from the environment once.  Callbacks set with
 * cudnnSetCallback replace the environment's choice of destination. */
cudnnStatus_t fdnn_log_set_callback(unsigned mask, void *udata, cudnnCallback_t fptr);
void fdnn_log_get_callback(unsigned *mask, void **udata, cudnnCallback_t *fptr);

#endif /* FDNN_CORE_API_LOG_H */
