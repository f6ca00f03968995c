// SPDX-License-Identifier: Apache-2.0
// The backend API from C++, the language of NVIDIA's header-only frontend,
// compiled with -Wall -Wextra -Werror against the public headers and the
// shipped libcudnn.so.8 only.  A small RAII builder in the frontend's style
// (descriptor owner, builders that set attributes in the frontend's order
// and finalize, a status check that throws with the status)
// builds a matmul + bias + ReLU graph and, when an engine runs it, checks
// the result; otherwise the heuristics' NOT_SUPPORTED is expected.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudnn.h"

namespace {

int failures = 0;
int passes = 0;

void
expect(bool ok, const char *what, int line)
{
    if (ok) {
        ++passes;
    } else {
        ++failures;
        std::fprintf(stderr, "test_backend_cpp:%d: FAILED: %s\n", line, what);
    }
}
#define EXPECT(x) expect((x), #x, __LINE__)

struct Error : std::runtime_error {
    cudnnStatus_t status;
    Error(const std::string &what, cudnnStatus_t s) : std::runtime_error(what), status(s) {}
};

void
check(cudnnStatus_t s, const char *call)
{
    if (s != CUDNN_STATUS_SUCCESS) {
        throw Error(std::string(call) + ": " + cudnnGetErrorString(s), s);
    }
}
#define CK(x) check((x), #x)

// Owns one backend descriptor, like the frontend's ManagedOpaqueDescriptor.
class Desc {
  public:
    explicit Desc(cudnnBackendDescriptorType_t t) { CK(cudnnBackendCreateDescriptor(t, &d_)); }
    ~Desc()
    {
        if (d_ != nullptr)
            cudnnBackendDestroyDescriptor(d_);
    }
    Desc(const Desc &) = delete;
    Desc &operator=(const Desc &) = delete;
    Desc(Desc &&o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
    cudnnBackendDescriptor_t get() const { return d_; }

    template <typename T>
    Desc &set(cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, const std::vector<T> &v)
    {
        CK(cudnnBackendSetAttribute(d_, n, t, static_cast<int64_t>(v.size()), v.data()));
        return *this;
    }
    template <typename T>
    Desc &set1(cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, T v)
    {
        CK(cudnnBackendSetAttribute(d_, n, t, 1, &v));
        return *this;
    }
    Desc &ref(cudnnBackendAttributeName_t n, const Desc &o)
    {
        cudnnBackendDescriptor_t p = o.get();
        CK(cudnnBackendSetAttribute(d_, n, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &p));
        return *this;
    }
    Desc &finalize()
    {
        CK(cudnnBackendFinalize(d_));
        return *this;
    }

  private:
    cudnnBackendDescriptor_t d_ = nullptr;
};

Desc
tensor(int64_t uid, std::vector<int64_t> dims, bool is_virtual)
{
    std::vector<int64_t> strides(dims.size());
    int64_t s = 1;
    for (size_t i = dims.size(); i-- > 0;)
        strides[i] = s, s *= dims[i];
    Desc t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    t.set1(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT)
        .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims)
        .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides)
        .set1(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid)
        .set1<int64_t>(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 16)
        .set1(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, is_virtual)
        .finalize();
    return t;
}

Desc
pointwise(cudnnPointwiseMode_t mode, const Desc &x, const Desc *b, const Desc &y)
{
    Desc pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    pw.set1(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode)
        .set1(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT)
        .finalize();
    Desc op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op.ref(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw).ref(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x);
    if (b != nullptr)
        op.ref(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
    op.ref(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y).finalize();
    return op;
}

void
run(cudnnHandle_t handle)
{
    const int64_t M = 4, K = 6, N = 5;
    Desc a = tensor(1, {1, M, K}, false), b = tensor(2, {1, K, N}, false), bias = tensor(3, {1, 1, N}, false);
    Desc c = tensor(4, {1, M, N}, false), v1 = tensor(10, {1, M, N}, true), v2 = tensor(11, {1, M, N}, true);
    Desc mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    mm.set1(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT).finalize();
    Desc mmop(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    mmop.ref(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a)
        .ref(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
        .ref(CUDNN_ATTR_OPERATION_MATMUL_CDESC, v1)
        .ref(CUDNN_ATTR_OPERATION_MATMUL_DESC, mm)
        .finalize();
    Desc add = pointwise(CUDNN_POINTWISE_ADD, v1, &bias, v2);
    Desc relu = pointwise(CUDNN_POINTWISE_RELU_FWD, v2, nullptr, c);
    Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    std::vector<cudnnBackendDescriptor_t> ops = {mmop.get(), add.get(), relu.get()};
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops)
        .set1(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle)
        .finalize();

    Desc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    heur.ref(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph)
        .set1(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, CUDNN_HEUR_MODE_INSTANT);
    cudnnStatus_t st = cudnnBackendFinalize(heur.get());
    int64_t engines = 0, n = 0;
    CK(cudnnBackendGetAttribute(graph.get(), CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &n,
                                &engines));
    if (engines == 0) {
        EXPECT(st == CUDNN_STATUS_NOT_SUPPORTED);
        return;
    }
    check(st, "heuristics finalize");
    int64_t count = 0;
    CK(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                nullptr));
    EXPECT(count >= 1);
    Desc cfg(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    cudnnBackendDescriptor_t cfgp = cfg.get();
    CK(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &cfgp));
    Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    plan.set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle)
        .ref(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfg)
        .finalize();
    int64_t wsbytes = 0;
    CK(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                                &wsbytes));
    std::vector<float> A(M * K), B(K * N), Bias(N), Cv(M * N, NAN);
    for (size_t i = 0; i < A.size(); i++)
        A[i] = static_cast<float>((static_cast<int>(i) * 7 % 11) - 5) / 4.0f;
    for (size_t i = 0; i < B.size(); i++)
        B[i] = static_cast<float>((static_cast<int>(i) * 5 % 13) - 6) / 8.0f;
    for (size_t i = 0; i < Bias.size(); i++)
        Bias[i] = static_cast<float>(i) - 2.0f;
    std::vector<char> ws(static_cast<size_t>(wsbytes) + 64);
    void *wsp = ws.data();
    Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    std::vector<int64_t> uids = {1, 2, 3, 4};
    std::vector<void *> ptrs = {A.data(), B.data(), Bias.data(), Cv.data()};
    pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids)
        .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, ptrs)
        .set1(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, wsp)
        .finalize();
    CK(cudnnBackendExecute(handle, plan.get(), pack.get()));
    double maxerr = 0;
    for (int64_t m = 0; m < M; m++)
        for (int64_t j = 0; j < N; j++) {
            double acc = Bias[static_cast<size_t>(j)];
            for (int64_t k = 0; k < K; k++)
                acc += static_cast<double>(A[static_cast<size_t>(m * K + k)]) * B[static_cast<size_t>(k * N + j)];
            acc = acc > 0 ? acc : 0;
            double err = std::fabs(Cv[static_cast<size_t>(m * N + j)] - acc);
            maxerr = std::isnan(err) ? INFINITY : (err > maxerr ? err : maxerr);
        }
    EXPECT(maxerr < 1e-5);
}

}  // namespace

int
main()
{
    cudnnHandle_t handle = nullptr;
    check(cudnnCreate(&handle), "cudnnCreate");
    try {
        run(handle);
        // a bad attribute throws BAD_PARAM
        bool threw = false;
        try {
            Desc t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
            t.set1<int64_t>(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_INT64, 0);
        } catch (const Error &e) {
            threw = e.status == CUDNN_STATUS_BAD_PARAM;
        }
        EXPECT(threw);
    } catch (const Error &e) {
        std::fprintf(stderr, "test_backend_cpp: %s\n", e.what());
        ++failures;
    }
    cudnnDestroy(handle);
    std::printf("test_backend_cpp: %d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
