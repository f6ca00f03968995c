/* SPDX-License-Identifier: Apache-2.0
 * The backend API's attribute-level statuses against NVIDIA's cuDNN 9 (a
 * second opinion, tests/util/cudnn9.h; skipped where it is absent).  Only
 * what cuDNN 9 answers without a GPU is compared: its finalize traps on a
 * machine without one.  Same category for: a wrong element type, zero
 * elements, NULL elements, an attribute of another descriptor type, a read
 * before finalize.  Known difference: 9 dimensions are refused by FreeDNN
 * at the set (BAD_PARAM, the 8.9 reference's count rule) and accepted by
 * cuDNN 9 until finalize. */
#include <stdbool.h>
#include <string.h>

#include "cudnn9.h"
#include "testutil.h"

typedef cudnnStatus_t (*create_fn)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *);
typedef cudnnStatus_t (*destroy_fn)(cudnnBackendDescriptor_t);
typedef cudnnStatus_t (*set_fn)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t,
                                int64_t, const void *);
typedef cudnnStatus_t (*get_fn)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t,
                                int64_t, int64_t *, void *);

typedef struct api {
    create_fn create;
    destroy_fn destroy;
    set_fn set;
    get_fn get;
    bool nv;
} api_t;

enum { WRONG_TYPE, ZERO_COUNT, NULL_ELEMS, OTHER_ATTR, GET_BEFORE, COUNT_SET_OK, NCASES };
static const char *const names[NCASES] = {"wrong type", "zero count", "NULL elements", "other attribute",
                                          "get before finalize", "valid set"};

static void
run(const api_t *a, cudnnStatus_t *out)
{
    cudnnBackendDescriptor_t t = NULL;
    a->create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t);
    int64_t d[4] = {2, 3, 4, 5}, n = 0;
    int dt = CUDNN_DATA_FLOAT;
    int raw[NCASES];
    raw[WRONG_TYPE] = a->set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_INT64, 1, d);
    raw[ZERO_COUNT] = a->set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, d);
    raw[NULL_ELEMS] = a->set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, NULL);
    raw[OTHER_ATTR] = a->set(t, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    raw[GET_BEFORE] = a->get(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, &n, d);
    raw[COUNT_SET_OK] = a->set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, d);
    for (int i = 0; i < NCASES; i++)
        out[i] = a->nv ? fdnn_cudnn9_category(raw[i]) : (cudnnStatus_t)raw[i];
    a->destroy(t);
}

int
main(void)
{
    api_t ours = {cudnnBackendCreateDescriptor, cudnnBackendDestroyDescriptor, cudnnBackendSetAttribute,
                  (get_fn)cudnnBackendGetAttribute, false};
    api_t nv = {(create_fn)fdnn_cudnn9_sym("cudnnBackendCreateDescriptor"),
                (destroy_fn)fdnn_cudnn9_sym("cudnnBackendDestroyDescriptor"),
                (set_fn)fdnn_cudnn9_sym("cudnnBackendSetAttribute"), (get_fn)fdnn_cudnn9_sym("cudnnBackendGetAttribute"),
                true};
    cudnnStatus_t a[NCASES], b[NCASES];
    run(&ours, a);
    CHECK(a[WRONG_TYPE] == CUDNN_STATUS_BAD_PARAM && a[GET_BEFORE] == CUDNN_STATUS_NOT_INITIALIZED &&
          a[COUNT_SET_OK] == CUDNN_STATUS_SUCCESS);
    if (nv.create == NULL || nv.set == NULL || nv.get == NULL || nv.destroy == NULL) {
        printf("cuDNN 9 absent: comparison skipped\n");
        return fdnn_test_finish("test_backend_cudnn9");
    }
    run(&nv, b);
    for (int i = 0; i < NCASES; i++)
        CHECK_MSG(a[i] == b[i], "%s: FreeDNN %s, cuDNN 9 %s", names[i], cudnnGetErrorString(a[i]),
                  cudnnGetErrorString(b[i]));
    return fdnn_test_finish("test_backend_cudnn9");
}
