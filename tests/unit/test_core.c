/* SPDX-License-Identifier: Apache-2.0
 * Handle, versions, error strings, the logging callback, and the generated
 * NOT_SUPPORTED path. */
#include <string.h>

#include "freednn.h"
#include "testutil.h"

static int callback_calls;
static cudnnSeverity_t last_sev;
static cudnnDebug_t last_dbg;
static char last_msg[4096];

static void
capture(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    callback_calls++;
    last_sev = sev;
    last_dbg = *dbg;
    strncpy(last_msg, msg, sizeof(last_msg) - 1);
    *(int *)udata += 1;
}

static void
test_versions(void)
{
    CHECK(cudnnGetVersion() == 8904);
    CHECK(CUDNN_VERSION == 8904);
    CHECK(cudnnGetMaxDeviceVersion() == 900);
    CHECK(cudnnGetCudartVersion() >= 12000 && cudnnGetCudartVersion() < 13000);
    int v = -1;
    CHECK_OK(cudnnGetProperty(MAJOR_VERSION, &v));
    CHECK(v == 8);
    CHECK_OK(cudnnGetProperty(MINOR_VERSION, &v));
    CHECK(v == 9);
    CHECK_OK(cudnnGetProperty(PATCH_LEVEL, &v));
    CHECK(v == 4);
    CHECK_STATUS(cudnnGetProperty((libraryPropertyType)7, &v), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetProperty(MAJOR_VERSION, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnOpsInferVersionCheck());
    CHECK_OK(cudnnOpsTrainVersionCheck());
    CHECK_OK(cudnnCnnInferVersionCheck());
    CHECK_OK(cudnnCnnTrainVersionCheck());
    CHECK_OK(cudnnAdvInferVersionCheck());
    CHECK_OK(cudnnAdvTrainVersionCheck());
}

static void
test_error_strings(void)
{
    CHECK(strcmp(cudnnGetErrorString(CUDNN_STATUS_SUCCESS), "CUDNN_STATUS_SUCCESS") == 0);
    CHECK(strcmp(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM") == 0);
    CHECK(strcmp(cudnnGetErrorString(CUDNN_STATUS_VERSION_MISMATCH), "CUDNN_STATUS_VERSION_MISMATCH") == 0);
    CHECK(strcmp(cudnnGetErrorString((cudnnStatus_t)99), "CUDNN_UNKNOWN_STATUS") == 0);
}

static void
test_handle(void)
{
    cudnnHandle_t h = NULL;
    CHECK_STATUS(cudnnCreate(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreate(&h));
    CHECK(h != NULL);
    cudaStream_t s = (cudaStream_t)0x1234;
    CHECK_OK(cudnnGetStream(h, &s));
    CHECK(s == NULL);
    CHECK_OK(cudnnSetStream(h, (cudaStream_t)0x40));
    CHECK_OK(cudnnGetStream(h, &s));
    CHECK(s == (cudaStream_t)0x40);
    CHECK_STATUS(cudnnGetStream(h, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetStream(NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnStatus_t rs = CUDNN_STATUS_INTERNAL_ERROR;
    CHECK_OK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_BLOCKING, NULL));
    CHECK(rs == CUDNN_STATUS_SUCCESS);

    int threads = 0;
    CHECK_OK(freednnSetNumThreads(h, 2));
    CHECK_OK(freednnGetNumThreads(h, &threads));
    CHECK(threads == 2);
    CHECK_STATUS(freednnSetNumThreads(h, 0), CUDNN_STATUS_BAD_PARAM);
    const char *isa = NULL;
    CHECK_OK(freednnGetIsa(h, &isa));
    CHECK(isa != NULL);
    CHECK_OK(freednnSetIsa(h, "scalar"));
    CHECK_STATUS(freednnSetIsa(h, "sse9"), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroy(h));
    CHECK_STATUS(cudnnDestroy(NULL), CUDNN_STATUS_BAD_PARAM);
}

static void
test_callback(void)
{
    int count = 0;
    CHECK_OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN | CUDNN_SEV_INFO_EN, &count, capture));
    unsigned mask = 0;
    void *ud = NULL;
    cudnnCallback_t fp = NULL;
    CHECK_OK(cudnnGetCallback(&mask, &ud, &fp));
    CHECK(mask == (CUDNN_SEV_ERROR_EN | CUDNN_SEV_INFO_EN));
    CHECK(ud == &count);
    CHECK(fp == capture);

    int v;
    callback_calls = 0;
    CHECK_OK(cudnnGetProperty(MAJOR_VERSION, &v));
    CHECK(callback_calls == 1);
    CHECK(last_sev == CUDNN_SEV_INFO);
    CHECK(strstr(last_msg, "I! CuDNN (v8904) function cudnnGetProperty() called:") != NULL);
    CHECK(strstr(last_msg, "type: type=libraryPropertyType") != NULL);
    CHECK(last_dbg.cudnn_version == 8904);

    callback_calls = 0;
    CHECK_STATUS(cudnnGetProperty(MAJOR_VERSION, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK(callback_calls == 2); /* the call, then the error */
    CHECK(last_sev == CUDNN_SEV_ERROR);
    CHECK(last_dbg.cudnnStatus == CUDNN_STATUS_BAD_PARAM);
    CHECK(strstr(last_msg, "CUDNN_STATUS_BAD_PARAM") != NULL);
    CHECK(strstr(last_msg, "value is NULL") != NULL);
    CHECK(count == 4);

    /* Tensor descriptors are expanded one level in the record. */
    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
    size_t bytes = 0;
    CHECK_OK(cudnnGetTensorSizeInBytes(t, &bytes));
    CHECK(bytes == 2 * 3 * 4 * 5 * sizeof(float));
    CHECK(strstr(last_msg, "dimA: type=int; val=[2,3,4,5];") != NULL);
    CHECK(strstr(last_msg, "strideA: type=int; val=[60,1,15,3];") != NULL);
    CHECK(strstr(last_msg, "CUDNN_DATA_FLOAT") != NULL);
    CHECK_OK(cudnnDestroyTensorDescriptor(t));

    CHECK_OK(cudnnSetCallback(0, NULL, NULL));
    callback_calls = 0;
    CHECK_OK(cudnnGetProperty(MAJOR_VERSION, &v));
    CHECK(callback_calls == 0);
}

int
main(void)
{
    test_versions();
    test_error_strings();
    test_handle();
    test_callback();
    return fdnn_test_finish("test_core");
}
