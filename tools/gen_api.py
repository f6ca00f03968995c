#!/usr/bin/env python3
"""One list drives the API surface: tests/data/cudnn-8.9.4-api.json.

From the inventory of the 264 public functions and 65 enums of cuDNN 8.9.4 this
script produces

  headers   include/cudnn*.h (checked in; `--check` fails when they are stale)
  build     for the build tree: the public entry point of every function
            (call logging, then the implementation or a logged
            NOT_SUPPORTED), enumerator names, forwarders for the six
            sub-libraries, and the linker version scripts
  coverage  docs/coverage.md (checked in; `--check` fails when it is stale)

A function cudnnX counts as implemented when a C file under src/ defines
fdnn_api_cudnnX at the start of a line (return type on the line before).
"""
import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
API_JSON = os.path.join(ROOT, "tests", "data", "cudnn-8.9.4-api.json")

SUBLIBS = ["ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"]
VERSION = (8, 9, 4)

# ---------------------------------------------------------------------------
# What each header holds besides its enums and functions.  The enum and
# function lists come from the JSON; the opaque types, structs and macros are
# written here because the JSON does not carry them.
# ---------------------------------------------------------------------------

OPS_INFER_PRE = r"""
/* Opaque objects.  Every handle and descriptor is a pointer to a structure
 * that only the library knows; callers create, set, query and destroy them
 * through the functions below. */
struct cudnnContext;
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnPoolingStruct *cudnnPoolingDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnLRNStruct *cudnnLRNDescriptor_t;
typedef struct cudnnActivationStruct *cudnnActivationDescriptor_t;
typedef struct cudnnSpatialTransformerStruct *cudnnSpatialTransformerDescriptor_t;
typedef struct cudnnOpTensorStruct *cudnnOpTensorDescriptor_t;
typedef struct cudnnReduceTensorStruct *cudnnReduceTensorDescriptor_t;
typedef struct cudnnCTCLossStruct *cudnnCTCLossDescriptor_t;
typedef struct cudnnTensorTransformStruct *cudnnTensorTransformDescriptor_t;
typedef struct cudnnDropoutStruct *cudnnDropoutDescriptor_t;
typedef struct cudnnAlgorithmStruct *cudnnAlgorithmDescriptor_t;
typedef struct cudnnAlgorithmPerformanceStruct *cudnnAlgorithmPerformance_t;

/* Only ever used through a pointer, which must be NULL (see
 * cudnnQueryRuntimeError). */
typedef struct cudnnRuntimeTag_t cudnnRuntimeTag_t;

/* CUDA's library_types.h defines this too; define it only when it is absent. */
#ifndef __LIBRARY_TYPES_H__
typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
#endif

/* Largest rank of a tensor, filter or convolution descriptor. */
#define CUDNN_DIM_MAX 8

/* Limits of the LRN descriptor (cudnnSetLRNDescriptor). */
#define CUDNN_LRN_MIN_N 1
#define CUDNN_LRN_MAX_N 16
#define CUDNN_LRN_MIN_K 1e-5
#define CUDNN_LRN_MIN_BETA 0.01

/* Smallest epsilon accepted by batch normalization. */
#define CUDNN_BN_MIN_EPSILON 0.0
"""

OPS_INFER_POST_ENUMS = r"""
/* One algorithm of any kind, as stored by the (deprecated) algorithm
 * descriptors.  4 bytes. */
typedef struct cudnnAlgorithmUnionStruct {
    union Algorithm {
        cudnnConvolutionFwdAlgo_t convFwdAlgo;
        cudnnConvolutionBwdFilterAlgo_t convBwdFilterAlgo;
        cudnnConvolutionBwdDataAlgo_t convBwdDataAlgo;
        cudnnRNNAlgo_t RNNAlgo;
        cudnnCTCLossAlgo_t CTCLossAlgo;
    } algo;
} cudnnAlgorithm_t;

/* Masks for cudnnSetCallback, one bit per severity. */
#define CUDNN_SEV_ERROR_EN (1U << CUDNN_SEV_ERROR)
#define CUDNN_SEV_WARNING_EN (1U << CUDNN_SEV_WARNING)
#define CUDNN_SEV_INFO_EN (1U << CUDNN_SEV_INFO)

/* What a logging callback receives besides the message.  120 bytes; the
 * layout is part of the ABI. */
typedef struct cudnnDebugStruct {
    unsigned cudnn_version;
    cudnnStatus_t cudnnStatus;
    unsigned time_sec;   /* seconds since the epoch */
    unsigned time_usec;  /* microseconds within that second */
    unsigned time_delta; /* seconds since the previous record */
    cudnnHandle_t handle;
    cudaStream_t stream;
    unsigned long long pid;
    unsigned long long tid;
    int cudaDeviceId;
    int reserved[15];
} cudnnDebug_t;

typedef void (*cudnnCallback_t)(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg);
"""

CNN_INFER_PRE = r"""
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;
typedef struct cudnnFusedOpsConstParamStruct *cudnnFusedOpsConstParamPack_t;
typedef struct cudnnFusedOpsVariantParamStruct *cudnnFusedOpsVariantParamPack_t;
typedef struct cudnnFusedOpsPlanStruct *cudnnFusedOpsPlan_t;
"""

PERF_STRUCT = r"""
/* One entry of the ranked list returned by the algorithm queries.  48 bytes:
 * the stride of the arrays is part of the ABI. */
typedef struct cudnn{kind}AlgoPerfStruct {{
    cudnn{kind}Algo_t algo;
    cudnnStatus_t status;
    float time;    /* milliseconds */
    size_t memory; /* workspace bytes */
    cudnnDeterminism_t determinism;
    cudnnMathType_t mathType;
    int reserved[3];
}} cudnn{kind}AlgoPerf_t;
"""

CNN_INFER_POST_ENUMS = (PERF_STRUCT.format(kind="ConvolutionFwd") +
                        PERF_STRUCT.format(kind="ConvolutionBwdData"))
CNN_TRAIN_POST_ENUMS = PERF_STRUCT.format(kind="ConvolutionBwdFilter")

ADV_INFER_PRE = r"""
/* Flags of cudnnSetRNNDescriptor_v8's auxFlags. */
#define CUDNN_RNN_PADDED_IO_DISABLED 0
#define CUDNN_RNN_PADDED_IO_ENABLED (1U << 0)

/* Number of axes of a sequence-data descriptor. */
#define CUDNN_SEQDATA_DIM_COUNT 4

/* Flags of cudnnSetAttnDescriptor's attnMode. */
typedef unsigned cudnnAttnQueryMap_t;
#define CUDNN_ATTN_QUERYMAP_ALL_TO_ONE 0
#define CUDNN_ATTN_QUERYMAP_ONE_TO_ONE (1U << 0)
#define CUDNN_ATTN_DISABLE_PROJ_BIASES 0
#define CUDNN_ATTN_ENABLE_PROJ_BIASES (1U << 1)

/* Number of kinds of multi-head attention weights. */
#define CUDNN_ATTN_WKIND_COUNT 8

typedef unsigned cudnnRNNPaddingMode_t;

typedef struct cudnnRNNStruct *cudnnRNNDescriptor_t;
typedef struct cudnnPersistentRNNPlan *cudnnPersistentRNNPlan_t;
typedef struct cudnnRNNDataStruct *cudnnRNNDataDescriptor_t;
typedef struct cudnnSeqDataStruct *cudnnSeqDataDescriptor_t;
typedef struct cudnnAttnStruct *cudnnAttnDescriptor_t;
"""

BACKEND_PRE = r"""
/* Every backend object is reached through an untyped pointer. */
typedef void *cudnnBackendDescriptor_t;

/* A rational number, as used by the resample operation.  16 bytes. */
typedef struct cudnnFractionStruct {
    int64_t numerator;
    int64_t denominator;
} cudnnFraction_t;
"""

HEADERS = {
    "cudnn_ops_infer.h": dict(
        sublib="cudnn_ops_infer", macro="OPS_INFER", guard_name="OPS INFER",
        includes=["<cuda_runtime.h>", "<stdint.h>", '"cudnn_version.h"'],
        pre=OPS_INFER_PRE, post_enums=OPS_INFER_POST_ENUMS,
        summary="handle, version, errors and logging; tensor and operation descriptors; "
                "the inference forms of the non-convolution operations"),
    "cudnn_ops_train.h": dict(
        sublib="cudnn_ops_train", macro="OPS_TRAIN", guard_name="OPS TRAIN",
        includes=["<cuda_runtime.h>", "<stdint.h>", '"cudnn_version.h"', '"cudnn_ops_infer.h"'],
        summary="backward and training forms of the non-convolution operations"),
    "cudnn_cnn_infer.h": dict(
        sublib="cudnn_cnn_infer", macro="CNN_INFER", guard_name="CNN INFER",
        includes=["<cuda_runtime.h>", "<stdint.h>", '"cudnn_version.h"', '"cudnn_ops_infer.h"'],
        pre=CNN_INFER_PRE, post_enums=CNN_INFER_POST_ENUMS,
        summary="convolution descriptor, forward and backward-data convolution, fused-ops types"),
    "cudnn_cnn_train.h": dict(
        sublib="cudnn_cnn_train", macro="CNN_TRAIN", guard_name="CNN INFER",
        includes=["<cuda_runtime.h>", "<stdint.h>", '"cudnn_version.h"', '"cudnn_ops_infer.h"',
                  '"cudnn_ops_train.h"', '"cudnn_cnn_infer.h"'],
        post_enums=CNN_TRAIN_POST_ENUMS,
        summary="backward-filter and backward-bias convolution, the fused-ops API"),
    "cudnn_adv_infer.h": dict(
        sublib="cudnn_adv_infer", macro="ADV_INFER", guard_name="ADV INFER",
        includes=["<cuda_runtime.h>", "<stdint.h>", '"cudnn_version.h"', '"cudnn_ops_infer.h"'],
        pre=ADV_INFER_PRE,
        summary="recurrent networks, multi-head attention and sequence data: inference"),
    "cudnn_adv_train.h": dict(
        sublib="cudnn_adv_train", macro="ADV_TRAIN", guard_name="ADV TRAIN",
        includes=["<cuda_runtime.h>", "<stdint.h>", '"cudnn_version.h"', '"cudnn_ops_infer.h"',
                  '"cudnn_ops_train.h"', '"cudnn_adv_infer.h"'],
        summary="recurrent networks and attention: training; CTC loss"),
    "cudnn_backend.h": dict(
        sublib="cudnn_backend", macro=None,
        includes=['"cudnn_ops_infer.h"', '"cudnn_cnn_infer.h"'],
        pre=BACKEND_PRE,
        summary="the backend (graph) API"),
}

LICENSE_LINE = "SPDX-License-Identifier: Apache-2.0"


def load_api():
    with open(API_JSON) as f:
        return json.load(f)


def c_param(ptype, pname):
    """Render a parameter: 'const int*' + 'dimA' -> 'const int *dimA'."""
    stars = ptype.count("*")
    base = ptype.replace("*", "").strip()
    return f"{base} {'*' * stars}{pname}" if stars else f"{base} {pname}"


def c_ret(ret):
    stars = ret.count("*")
    base = ret.replace("*", "").strip()
    return f"{base} {'*' * stars}" if stars else f"{base} "


def declaration(fn):
    params = ", ".join(c_param(t, n) for t, n in fn["params"]) or "void"
    dep = "CUDNN_DEPRECATED " if fn.get("deprecated_8_9") else ""
    return f"{dep}{c_ret(fn['ret'])}CUDNNWINAPI\n{fn['name']}({params});\n"


def render_enum(enum):
    width = max(len(n) for n, _ in enum["values"])
    lines = [f"typedef enum {{"]
    for name, value in enum["values"]:
        lines.append(f"    {name.ljust(width)} = {value},")
    lines.append(f"}} {enum['name']};\n")
    return "\n".join(lines)


def render_version_header():
    major, minor, patch = VERSION
    return f"""/* {LICENSE_LINE}
 * FreeDNN: a CPU implementation of the cuDNN 8.9.4 API.
 * cudnn_version.h: the version of the API this library implements.
 * Generated by tools/gen_api.py; edit the generator, not this file. */

#ifndef CUDNN_VERSION_H_
#define CUDNN_VERSION_H_

#define CUDNN_MAJOR {major}
#define CUDNN_MINOR {minor}
#define CUDNN_PATCHLEVEL {patch}

/* 8.x formula (9.x multiplies the major by 10000 instead). */
#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)

/* Newest GPU architecture the 8.9 API knows about, as major*100 + minor*10. */
#define CUDNN_MAX_SM_MAJOR_NUMBER 9
#define CUDNN_MAX_SM_MINOR_NUMBER 0
#define CUDNN_MAX_DEVICE_VERSION (CUDNN_MAX_SM_MAJOR_NUMBER * 100 + CUDNN_MAX_SM_MINOR_NUMBER * 10)

/* Compute capabilities, as major*100 + minor*10. */
#define CUDNN_SM_50 500
#define CUDNN_SM_52 520
#define CUDNN_SM_53 530
#define CUDNN_SM_60 600
#define CUDNN_SM_61 610
#define CUDNN_SM_62 620
#define CUDNN_SM_70 700
#define CUDNN_SM_72 720
#define CUDNN_SM_75 750
#define CUDNN_SM_80 800
#define CUDNN_SM_86 860
#define CUDNN_SM_87 870
#define CUDNN_SM_89 890
#define CUDNN_SM_90 900
#define CUDNN_SM_9X_END 999
#define CUDNN_MIN_DEVICE_VERSION CUDNN_SM_50

#endif /* CUDNN_VERSION_H_ */
"""


def render_umbrella():
    return f"""/* {LICENSE_LINE}
 * FreeDNN: a CPU implementation of the cuDNN 8.9.4 API.
 * cudnn.h: the whole API.  Including this one header is all a program needs.
 * Generated by tools/gen_api.py; edit the generator, not this file. */

#ifndef CUDNN_H_
#define CUDNN_H_

#include <cuda_runtime.h>
#include <stdint.h>

#include "cudnn_version.h"
#include "cudnn_ops_infer.h"
#include "cudnn_ops_train.h"
#include "cudnn_adv_infer.h"
#include "cudnn_adv_train.h"
#include "cudnn_cnn_infer.h"
#include "cudnn_cnn_train.h"
#include "cudnn_backend.h"

#endif /* CUDNN_H_ */
"""


WINAPI_BLOCK = r"""
/* Calling convention of every entry point (__stdcall only matters on 32-bit
 * Windows). */
#ifndef CUDNNWINAPI
#ifdef _WIN32
#define CUDNNWINAPI __stdcall
#else
#define CUDNNWINAPI
#endif
#endif

/* Functions deprecated in 8.x warn only when the program asks for it by
 * defining CUDNN_WARN_DEPRECATED. */
#if defined(CUDNN_WARN_DEPRECATED) && (defined(__GNUC__) || defined(__clang__))
#define CUDNN_DEPRECATED __attribute__((deprecated))
#elif defined(CUDNN_WARN_DEPRECATED) && defined(_MSC_VER)
#define CUDNN_DEPRECATED __declspec(deprecated)
#elif defined(CUDNN_WARN_DEPRECATED) && defined(__cplusplus) && (__cplusplus >= 201402L)
#define CUDNN_DEPRECATED [[deprecated]]
#else
#define CUDNN_DEPRECATED
#endif
"""


def render_sub_header(fname, spec, api):
    guard = fname.upper().replace(".", "_") + "_"
    out = [f"/* {LICENSE_LINE}\n * FreeDNN: a CPU implementation of the cuDNN 8.9.4 API.\n"
           f" * {fname}: {spec['summary']}.\n"
           f" * Generated by tools/gen_api.py from tests/data/cudnn-8.9.4-api.json;\n"
           f" * edit the generator, not this file. */\n",
           f"#ifndef {guard}\n#define {guard}\n"]
    for inc in spec["includes"]:
        out.append(f"#include {inc}")
    out.append("")
    if spec.get("macro"):
        m = spec["macro"]
        major, minor, patch = VERSION
        out.append(f"#define CUDNN_{m}_MAJOR {major}\n#define CUDNN_{m}_MINOR {minor}\n"
                   f"#define CUDNN_{m}_PATCH {patch}\n")
        out.append(f"#if (CUDNN_{m}_MAJOR != CUDNN_MAJOR) || (CUDNN_{m}_MINOR != CUDNN_MINOR) || \\\n"
                   f"    (CUDNN_{m}_PATCH != CUDNN_PATCHLEVEL)\n"
                   f"#error Version mismatch in cuDNN {spec['guard_name']}!!!\n#endif")
    if fname == "cudnn_ops_infer.h":
        out.append(WINAPI_BLOCK)
    out.append("#if defined(__cplusplus)\nextern \"C\" {\n#endif")
    if spec.get("pre"):
        out.append(spec["pre"])
    for enum in api["enums"]:
        if enum["header"] == fname:
            out.append(render_enum(enum))
    if spec.get("post_enums"):
        out.append(spec["post_enums"])
    for fn in api["functions"]:
        if fn["sublib"] == spec["sublib"]:
            out.append(declaration(fn))
    out.append("#if defined(__cplusplus)\n}\n#endif\n")
    out.append(f"#endif /* {guard} */\n")
    return "\n".join(out)


def all_headers(api):
    files = {"cudnn_version.h": render_version_header(), "cudnn.h": render_umbrella()}
    for fname, spec in HEADERS.items():
        files[fname] = render_sub_header(fname, spec, api)
    return files


# ---------------------------------------------------------------------------
# Implemented functions, entry points, forwarders, version scripts
# ---------------------------------------------------------------------------

# An implementation is a definition, at the start of a line, of
# fdnn_api_<cudnn name>( with its return type on the line before.
DEF_RE = re.compile(r"^fdnn_api_(cudnn\w+)\(", re.M)


def implemented_functions(src_dir):
    """Map function name -> relative path of the file under src/ that defines it."""
    found = {}
    for dirpath, _, files in sorted(os.walk(src_dir)):
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8") as fh:
                for m in DEF_RE.finditer(fh.read()):
                    found[m.group(1)] = os.path.relpath(path, ROOT)
    return found


def short_sublib(sublib):
    return sublib.replace("cudnn_", "")


# The sub-library whose .so.8 exports a function.  NVIDIA's 8.x ships the
# backend (graph) API in libcudnn_cnn_infer.so.8: cudnn_backend.h includes
# cudnn_cnn_infer.h, and the graph engines (runtime fusion, NVRTC) live in
# that library.
EXPORTED_BY = {"backend": "cnn_infer"}


def exporting_sublib(fn):
    sub = short_sublib(fn["sublib"])
    return EXPORTED_BY.get(sub, sub)


def base_type(t):
    return re.sub(r"\bconst\b", "", t).replace("*", "").strip()


def log_param(ptype, pname, enums, descriptors):
    """The C statement that appends one parameter to the call record."""
    base = base_type(ptype)
    stars = ptype.count("*")
    if stars == 0 and base in enums:
        return f'fdnn_log_param_enum(&rec, "{pname}", "{base}", fdnn_enum_name_{base}((int){pname}), (int){pname});'
    if stars == 0 and base in descriptors:
        return f'fdnn_log_param_desc(&rec, "{pname}", "{base}", (const void *){pname});'
    if stars == 0 and base in ("int", "int32_t", "unsigned int", "uint32_t"):
        return f'fdnn_log_param_int(&rec, "{pname}", "{base}", (long long){pname});'
    if stars == 0 and base in ("size_t", "int64_t", "unsigned long long"):
        return f'fdnn_log_param_int(&rec, "{pname}", "{base}", (long long){pname});'
    if stars == 0 and base == "cudnnAlgorithm_t":
        return f'fdnn_log_param_int(&rec, "{pname}", "{base}", (long long){pname}.algo.convFwdAlgo);'
    if stars == 0 and base in ("float", "double"):
        return f'fdnn_log_param_real(&rec, "{pname}", "{base}", (double){pname});'
    return f'fdnn_log_param_ptr(&rec, "{pname}", "{ptype}", (const void *){pname});'


def render_impl_header(api):
    out = [f"/* {LICENSE_LINE}\n * Generated by tools/gen_api.py at build time.  The prototype of the\n"
           " * implementation behind every public function: fdnn_api_cudnnX has cudnnX's\n"
           " * exact parameters.  The public symbol itself lives in the generated\n"
           " * api_entries.c, which logs the call and forwards here. */\n",
           "#ifndef FDNN_GENERATED_API_IMPL_H\n#define FDNN_GENERATED_API_IMPL_H\n",
           "#include \"cudnn.h\"\n"]
    for fn in api["functions"]:
        params = ", ".join(c_param(t, n) for t, n in fn["params"]) or "void"
        out.append(f"{c_ret(fn['ret'])}fdnn_api_{fn['name']}({params});")
    out.append("\n#endif\n")
    return "\n".join(out)


def parks_workers(fn):
    """Whether the entry point lets the handle's workers sleep after the call:
    every function taking a handle first that may run work on its pool, i.e.
    all but the queries (cudnnGet*) and cudnnDestroy (the handle is gone)."""
    name = fn["name"]
    return (bool(fn["params"]) and fn["params"][0][0] == "cudnnHandle_t"
            and not name.startswith("cudnnGet") and name != "cudnnDestroy")


def render_entries(api, impl):
    enums = {e["name"] for e in api["enums"]}
    descriptors = {base_type(t) for fn in api["functions"] for t, _ in fn["params"]
                   if base_type(t).endswith("Descriptor_t") or base_type(t) in
                   ("cudnnHandle_t", "cudnnFusedOpsPlan_t", "cudnnFusedOpsConstParamPack_t",
                    "cudnnFusedOpsVariantParamPack_t", "cudnnAlgorithmPerformance_t",
                    "cudnnPersistentRNNPlan_t")}
    out = [f"/* {LICENSE_LINE}\n * Generated by tools/gen_api.py at build time: the public entry point of\n"
           " * every cuDNN function.  Each one records the call for the cuDNN logger\n"
           " * (CUDNN_LOGINFO_DBG and friends), runs the implementation, and reports a\n"
           " * failure with the reason the implementation gave.  A function that no\n"
           " * file under src/ implements yet returns CUDNN_STATUS_NOT_SUPPORTED and\n"
           " * says so. */\n",
           '#include "core/api_log.h"\n#include "core/handle.h"\n#include "enum_names.h"\n#include "api_impl.h"\n']
    for fn in api["functions"]:
        name = fn["name"]
        params = ", ".join(c_param(t, n) for t, n in fn["params"]) or "void"
        args = ", ".join(n for _, n in fn["params"])
        ret = c_ret(fn["ret"])
        logs = "".join(f"        {log_param(t, n, enums, descriptors)}\n" for t, n in fn["params"])
        unused = "".join(f"    (void){n};\n" for _, n in fn["params"])
        body = [f"{ret}CUDNNWINAPI\n{name}({params})\n{{"]
        body.append(f"    fdnn_api_record_t rec;\n    if (fdnn_api_begin(&rec, \"{name}\")) {{\n{logs}"
                    f"        fdnn_api_log_call(&rec);\n    }}")
        if fn["ret"] != "cudnnStatus_t":
            if name not in impl:
                sys.exit(f"gen_api: {name} returns {fn['ret']} and must be implemented")
            body.append(f"    return fdnn_api_{name}({args});\n}}\n")
        elif name in impl and parks_workers(fn):
            handle = fn["params"][0][1]
            body.append(f"    cudnnStatus_t status = fdnn_api_{name}({args});\n"
                        f"    fdnn_handle_park_workers({handle});\n"
                        f"    return fdnn_api_end(&rec, status);\n}}\n")
        elif name in impl:
            body.append(f"    return fdnn_api_end(&rec, fdnn_api_{name}({args}));\n}}\n")
        else:
            body.append(f"{unused}    return fdnn_api_end(&rec, fdnn_api_not_supported(&rec, "
                        f"\"{short_sublib(fn['sublib'])}\"));\n}}\n")
        out.append("\n".join(body))
    return "\n".join(out)


def render_enum_names(api):
    h = [f"/* {LICENSE_LINE}\n * Generated by tools/gen_api.py at build time: the name of every\n"
         " * enumerator, for logs and cudnnGetErrorString.  Unknown values give NULL. */\n",
         "#ifndef FDNN_GENERATED_ENUM_NAMES_H\n#define FDNN_GENERATED_ENUM_NAMES_H\n"]
    c = [f"/* {LICENSE_LINE}\n * Generated by tools/gen_api.py at build time. */\n",
         '#include "enum_names.h"\n#include <stddef.h>\n']
    for e in api["enums"]:
        h.append(f"const char *fdnn_enum_name_{e['name']}(int value);")
        cases = "".join(f"    case {v}: return \"{n}\";\n" for n, v in _unique_values(e["values"]))
        c.append(f"const char *\nfdnn_enum_name_{e['name']}(int value)\n{{\n    switch (value) {{\n{cases}"
                 f"    default: return NULL;\n    }}\n}}\n")
    h.append("\n#endif\n")
    return "\n".join(h), "\n".join(c)


def _unique_values(values):
    seen = set()
    for n, v in values:
        if v not in seen:
            seen.add(v)
            yield n, v


def render_forwarders(api, sublib):
    """A sub-library re-exports its functions by forwarding each one to the
    definition in libcudnn.so.8, so the whole process shares one state."""
    out = [f"/* {LICENSE_LINE}\n * Generated by tools/gen_api.py: libcudnn_{sublib}.so.8 forwards each of its\n"
           " * functions to libcudnn.so.8, which holds the one process-wide state. */\n",
           "#include \"cudnn.h\"\n"]
    for fn in api["functions"]:
        if exporting_sublib(fn) != sublib:
            continue
        name = fn["name"]
        params = ", ".join(c_param(t, n) for t, n in fn["params"]) or "void"
        args = ", ".join(n for _, n in fn["params"])
        ret = c_ret(fn["ret"])
        real = f"fdnn_real_{name}"
        out.append(f"extern {ret}{real}({params});\n"
                   f"__asm__(\".symver {real}, {name}@libcudnn.so.8\");\n"
                   f"{ret}CUDNNWINAPI\n{name}({params})\n{{\n    return {real}({args});\n}}\n")
    return "\n".join(out)


def render_version_script(names, node):
    body = "".join(f"    {n};\n" for n in names)
    return f"{node} {{\n  global:\n{body}  local:\n    *;\n}};\n"


def build(out_dir, src_dir):
    api = load_api()
    impl = implemented_functions(src_dir)
    os.makedirs(out_dir, exist_ok=True)
    enum_h, enum_c = render_enum_names(api)
    files = {"api_entries.c": render_entries(api, impl), "api_impl.h": render_impl_header(api),
             "enum_names.h": enum_h, "enum_names.c": enum_c}
    names = [fn["name"] for fn in api["functions"]]
    ext = sorted(set(re.findall(r"^(freednn\w+)\(", read(os.path.join(ROOT, "include", "freednn.h")), re.M)))
    # The cuDNN API under the node NVIDIA's binaries import (libcudnn.so.8);
    # FreeDNN's own extensions under a node of their own.
    files["libcudnn.map"] = ("libcudnn.so.8 {\n  global:\n" + "".join(f"    {n};\n" for n in names) + "};\n"
                             "FREEDNN_1 {\n  global:\n" + "".join(f"    {n};\n" for n in ext) +
                             "  local:\n    *;\n};\n")
    for sub in SUBLIBS:
        subnames = [fn["name"] for fn in api["functions"] if exporting_sublib(fn) == sub]
        files[f"forward_{sub}.c"] = render_forwarders(api, sub)
        files[f"libcudnn_{sub}.map"] = render_version_script(subnames, f"libcudnn_{sub}.so.8")
    files.update(render_windows_defs(api, names, ext))
    for name, text in files.items():
        write_if_changed(os.path.join(out_dir, name), text)


def render_windows_defs(api, names, ext):
    """Module-definition files of the Windows build (cmake/Windows.cmake):
    cudnn64_8.def exports the whole API and FreeDNN's extensions from the
    implementation; cudnn_<sub>64_8.def makes each sub-library DLL export its
    functions as forwarders to cudnn64_8.dll (the loader resolves them there,
    so the process has one state, as the Linux forwarders give); and
    cudnn_<sub>.def lists the same names without the forwarding, for
    dlltool to make the import library lib/x64/cudnn_<sub>.lib."""
    out = {"cudnn64_8.def": "LIBRARY cudnn64_8.dll\nEXPORTS\n" + "".join(f"  {n}\n" for n in names + ext)}
    for sub in SUBLIBS:
        subnames = [fn["name"] for fn in api["functions"] if exporting_sublib(fn) == sub]
        out[f"cudnn_{sub}64_8.def"] = (f"LIBRARY cudnn_{sub}64_8.dll\nEXPORTS\n" +
                                       "".join(f"  {n} = cudnn64_8.{n}\n" for n in subnames))
        out[f"cudnn_{sub}.def"] = (f"LIBRARY cudnn_{sub}64_8.dll\nEXPORTS\n" +
                                   "".join(f"  {n}\n" for n in subnames))
    return out


# ---------------------------------------------------------------------------
# Coverage table
# ---------------------------------------------------------------------------

# ---- gaps: FDNN_GAP sites (src/core/fail.h) --------------------------------

GAP_RE = re.compile(r"\bFDNN_GAP\(")
FUNC_START_RE = re.compile(r"^(\w+)\(", re.M)
STRING_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')

# Which public functions a gap in a helper file reaches: the fdnn_api_
# functions of the files listed.  A gap in a file that defines fdnn_api_
# functions itself reaches those.  A gap anywhere else stops the generator,
# so every gap is attributed.
GAP_OWNERS = {
    "src/core/conv.c": ["src/api/cnn_infer/conv_fwd.c", "src/api/cnn_infer/conv_bwd_data.c",
                        "src/api/cnn_train/conv_bwd_filter.c", "src/api/cnn_infer/conv_bias_act.c"],
    "src/core/conv_config.c": ["src/api/cnn_infer/conv_fwd.c", "src/api/cnn_infer/conv_bwd_data.c",
                               "src/api/cnn_train/conv_bwd_filter.c", "src/api/cnn_infer/conv_bias_act.c"],
    "src/api/adv_infer/rnn_common.c": ["src/api/adv_infer/rnn_ops.c", "src/api/adv_infer/rnn_ex.c",
                                       "src/api/adv_infer/rnn_legacy.c", "src/api/adv_infer/rnn_find.c",
                                       "src/api/adv_train/rnn_bwd.c", "src/api/adv_train/rnn_ex_bwd.c",
                                       "src/api/adv_train/rnn_legacy_bwd.c", "src/api/adv_train/rnn_find_bwd.c"],
    "src/api/adv_infer/attn_common.c": ["src/api/adv_infer/attn_ops.c", "src/api/adv_train/attn_bwd.c"],
    "src/api/backend/be_values.c": ["src/api/backend/be_finalize_api.c"],
    "src/api/backend/be_graph.c": ["src/api/backend/be_finalize_api.c"],
}


def gap_sites(src_dir):
    """[(relative path, line, reason, enclosing function)] of every FDNN_GAP
    in src/, the reason being the format string of its first argument."""
    sites = []
    for dirpath, _, files in sorted(os.walk(src_dir)):
        for f in sorted(files):
            if not f.endswith((".c", ".h")) or f == "fail.h":
                continue
            path = os.path.join(dirpath, f)
            text = read(path)
            for m in GAP_RE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                rest = text[m.end():]
                # adjacent string literals up to the first argument's end
                reason, pos = "", 0
                while True:
                    lit = STRING_RE.match(rest, pos + len(rest[pos:]) - len(rest[pos:].lstrip()))
                    if not lit:
                        break
                    reason += lit.group(1)
                    pos = lit.end()
                if not reason:
                    raise SystemExit(f"gen_api: {path}:{line}: FDNN_GAP needs a string literal reason")
                # The function the site is in: project style puts each
                # definition's name at column 0 ("fdnn_api_cudnnX(").
                defs = list(FUNC_START_RE.finditer(text, 0, m.start()))
                func = defs[-1].group(1) if defs else ""
                sites.append((os.path.relpath(path, ROOT), line, reason.replace("\\\"", "\""), func))
    return sites


def gap_functions(sites, impl):
    """Map function name -> list of gap sites that reach it."""
    by_file = {}
    for name, path in impl.items():
        by_file.setdefault(path, []).append(name)
    reach = {}
    for site in sites:
        path, func = site[0], site[3]
        if func.startswith("fdnn_api_") and func[len("fdnn_api_"):] in impl:
            # inside a public function's own body: that function only
            reach.setdefault(func[len("fdnn_api_"):], []).append(site)
            continue
        # inside a helper: every public function of the owning files
        owners = GAP_OWNERS.get(path, [path] if path in by_file else None)
        if owners is None:
            raise SystemExit(f"gen_api: {path}:{site[1]}: FDNN_GAP in a file without fdnn_api_ functions; "
                             "add the file to GAP_OWNERS in tools/gen_api.py")
        for owner in owners:
            for name in by_file.get(owner, []):
                reach.setdefault(name, []).append(site)
    return reach


def render_coverage(api, impl, sites=()):
    total = len(api["functions"])
    done = sum(1 for fn in api["functions"] if fn["name"] in impl)
    reach = gap_functions(sites, impl)
    partial = sum(1 for fn in api["functions"] if fn["name"] in reach)
    out = ["# API coverage\n",
           "Generated by `python3 tools/gen_api.py coverage` from the code: a function is",
           "*implemented* when a file under `src/` defines `fdnn_api_<name>`; every other function is",
           "answered by its generated entry point, which logs the reason and returns",
           "`CUDNN_STATUS_NOT_SUPPORTED`. An implemented function is *partial* when a gap reaches",
           "it: an `FDNN_GAP` site (`src/core/fail.h`), a request that cuDNN 8.9 accepts and FreeDNN",
           "answers with `CUDNN_STATUS_NOT_SUPPORTED`; every site is listed under \"Gaps\" below.",
           "CI fails when this page is stale.\n",
           f"**{done} of {total} functions implemented, {partial} of them partial "
           f"({len(sites)} gaps).**\n",
           "| sub-library | implemented | of which partial | missing |", "| --- | --- | --- | --- |"]
    for sub in SUBLIBS + ["backend"]:
        fns = [fn for fn in api["functions"] if short_sublib(fn["sublib"]) == sub]
        d = sum(1 for fn in fns if fn["name"] in impl)
        pa = sum(1 for fn in fns if fn["name"] in reach)
        out.append(f"| {sub} | {d} | {pa} | {len(fns) - d} |")
    out.append("")
    for sub in SUBLIBS + ["backend"]:
        out.append(f"## {sub}\n")
        out.append("| function | status | where |")
        out.append("| --- | --- | --- |")
        for fn in api["functions"]:
            if short_sublib(fn["sublib"]) != sub:
                continue
            dep = " (deprecated in 8.x)" if fn.get("deprecated_8_9") else ""
            if fn["name"] in reach:
                n = len(reach[fn["name"]])
                out.append(f"| `{fn['name']}`{dep} | **partial** ({n} gap{'s' if n > 1 else ''}) "
                           f"| `{impl[fn['name']]}` |")
            elif fn["name"] in impl:
                out.append(f"| `{fn['name']}`{dep} | implemented | `{impl[fn['name']]}` |")
            else:
                out.append(f"| `{fn['name']}`{dep} | **missing** (NOT_SUPPORTED) | |")
        out.append("")
    out.append("## Gaps\n")
    out.append("Legal in cuDNN 8.9, `CUDNN_STATUS_NOT_SUPPORTED` here (the reason is logged as written; "
               "`%` fields are filled in at run time).\n")
    out.append("| site | reason | reaches |")
    out.append("| --- | --- | --- |")
    for site in sites:
        path, line, reason = site[:3]
        names = sorted(n for n, ss in reach.items() if site in ss)
        shown = ", ".join(f"`{n}`" for n in names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        out.append(f"| `{path}:{line}` | {reason.replace('|', '/')} | {shown} |")
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------

def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def write_if_changed(path, text):
    if read(path) != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def sync(files, check):
    stale = [p for p, t in files.items() if read(p) != t]
    if check:
        for p in stale:
            print(f"gen_api: {os.path.relpath(p, ROOT)} is stale; run tools/gen_api.py", file=sys.stderr)
        return 1 if stale else 0
    for p in stale:
        write_if_changed(p, files[p])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["headers", "build", "coverage", "all"])
    ap.add_argument("--check", action="store_true", help="fail instead of writing when a file is stale")
    ap.add_argument("--out", help="output folder for 'build'")
    args = ap.parse_args()
    api = load_api()
    rc = 0
    if args.what in ("headers", "all"):
        files = {os.path.join(ROOT, "include", n): t for n, t in all_headers(api).items()}
        rc |= sync(files, args.check)
    if args.what in ("coverage", "all"):
        impl = implemented_functions(os.path.join(ROOT, "src"))
        sites = gap_sites(os.path.join(ROOT, "src"))
        rc |= sync({os.path.join(ROOT, "docs", "coverage.md"): render_coverage(api, impl, sites)}, args.check)
    if args.what == "build":
        if not args.out:
            ap.error("build needs --out")
        build(args.out, os.path.join(ROOT, "src"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
