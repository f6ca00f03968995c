#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ABI test: the public headers against the inventory, and the built
libraries' exported symbols.

1. Generates a C/C++ translation unit from tests/data/cudnn-8.9.4-api.json
   that static-asserts every enumerator's value, the macros, the sizes and
   field offsets of the ABI structs, and the exact signature of all 264
   functions (by initialising a pointer of the inventory's type with each
   function), then compiles it as C11 and C++17 with gcc and clang under
   -Wall -Wextra -Werror -pedantic.
2. Checks with readelf that libcudnn.so.8 exports exactly the 264 functions
   under the version node libcudnn.so.8, and each sub-library exactly its own
   functions under its own node, with nothing else but FreeDNN's extensions.

Usage: check_abi.py SOURCE_DIR BUILD_DIR
       check_abi.py SOURCE_DIR BUILD_DIR --cross CC CXX [RUNNER...]
With --cross (the Windows build: tests/windows), part 1 uses the cross
compilers CC (C11) and CXX (C++17), links each translation unit into a
program and runs it (under RUNNER, e.g. wine), so the sizes, offsets and
enumerator values hold for that target's ABI; part 2 is the export-table
test of that platform (tests/windows/check_exports.py).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC, BUILD = sys.argv[1], sys.argv[2]
CROSS = sys.argv[4:6] if len(sys.argv) > 5 and sys.argv[3] == "--cross" else None
RUNNER = sys.argv[6:] if CROSS else []
api = json.load(open(os.path.join(SRC, "tests", "data", "cudnn-8.9.4-api.json")))
failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAILED:", what, file=sys.stderr)


MACROS = {
    "CUDNN_MAJOR": 8, "CUDNN_MINOR": 9, "CUDNN_PATCHLEVEL": 4, "CUDNN_VERSION": 8904,
    "CUDNN_DIM_MAX": 8, "CUDNN_LRN_MIN_N": 1, "CUDNN_LRN_MAX_N": 16,
    "CUDNN_SEV_ERROR_EN": 2, "CUDNN_SEV_WARNING_EN": 4, "CUDNN_SEV_INFO_EN": 8,
    "CUDNN_RNN_PADDED_IO_DISABLED": 0, "CUDNN_RNN_PADDED_IO_ENABLED": 1,
    "CUDNN_SEQDATA_DIM_COUNT": 4, "CUDNN_ATTN_QUERYMAP_ALL_TO_ONE": 0, "CUDNN_ATTN_QUERYMAP_ONE_TO_ONE": 1,
    "CUDNN_ATTN_DISABLE_PROJ_BIASES": 0, "CUDNN_ATTN_ENABLE_PROJ_BIASES": 2, "CUDNN_ATTN_WKIND_COUNT": 8,
    "CUDNN_MAX_DEVICE_VERSION": 900, "CUDNN_MIN_DEVICE_VERSION": 500, "CUDNN_SM_9X_END": 999,
    "CUDNN_OPS_INFER_MAJOR": 8, "CUDNN_OPS_TRAIN_MINOR": 9, "CUDNN_CNN_INFER_PATCH": 4,
    "CUDNN_CNN_TRAIN_MAJOR": 8, "CUDNN_ADV_INFER_MINOR": 9, "CUDNN_ADV_TRAIN_PATCH": 4,
}
FLOAT_MACROS = {"CUDNN_LRN_MIN_K": 1e-5, "CUDNN_LRN_MIN_BETA": 0.01, "CUDNN_BN_MIN_EPSILON": 0.0}
STRUCTS = {
    "cudnnConvolutionFwdAlgoPerf_t": (48, [("algo", 0), ("status", 4), ("time", 8), ("memory", 16),
                                           ("determinism", 24), ("mathType", 28), ("reserved", 32)]),
    "cudnnConvolutionBwdDataAlgoPerf_t": (48, [("algo", 0), ("status", 4), ("time", 8), ("memory", 16),
                                               ("determinism", 24), ("mathType", 28), ("reserved", 32)]),
    "cudnnConvolutionBwdFilterAlgoPerf_t": (48, [("algo", 0), ("status", 4), ("time", 8), ("memory", 16),
                                                 ("determinism", 24), ("mathType", 28), ("reserved", 32)]),
    "cudnnDebug_t": (120, [("cudnn_version", 0), ("cudnnStatus", 4), ("time_sec", 8), ("time_usec", 12),
                           ("time_delta", 16), ("handle", 24), ("stream", 32), ("pid", 40), ("tid", 48),
                           ("cudaDeviceId", 56), ("reserved", 60)]),
    "cudnnAlgorithm_t": (4, [("algo", 0)]),
    "cudnnFraction_t": (16, [("numerator", 0), ("denominator", 8)]),
}


def translation_unit(cplusplus):
    sa = "static_assert" if cplusplus else "_Static_assert"
    lines = ["#include <stddef.h>", "#include \"cudnn.h\"", ""]
    n = 0
    for e in api["enums"]:
        lines.append(f"{sa}(sizeof({e['name']}) == 4, \"{e['name']} is int-sized\");")
        for name, value in e["values"]:
            lines.append(f"{sa}({name} == {value}, \"{name} == {value}\");")
            n += 1
    for m, v in MACROS.items():
        lines.append(f"{sa}({m} == {v}, \"{m} == {v}\");")
    for s, (size, fields) in STRUCTS.items():
        lines.append(f"{sa}(sizeof({s}) == {size}, \"sizeof({s}) == {size}\");")
        for f, off in fields:
            lines.append(f"{sa}(offsetof({s}, {f}) == {off}, \"offsetof({s}, {f}) == {off}\");")
    for fn in api["functions"]:
        params = ", ".join(t for t, _ in fn["params"]) or "void"
        lines.append(f"{fn['ret']} (CUDNNWINAPI *check_{fn['name']})({params}) = {fn['name']};")
    fl = " && ".join(f"({m} == {v!r})" for m, v in FLOAT_MACROS.items())
    lines.append(f"int float_macros_ok(void) {{ return {fl}; }}")
    lines.append("int main(void) { return float_macros_ok() ? 0 : 1; }")
    return "\n".join(lines) + "\n", n


tmp = tempfile.mkdtemp(prefix="fdnn-abi-")
includes = ["-I", os.path.join(SRC, "include"), "-I", os.path.join(SRC, "compat", "cudart", "include")]
for lang, ext, std, compilers in (("C", "c", "-std=c11", [CROSS[0]] if CROSS else ["gcc", "clang"]),
                                  ("C++", "cpp", "-std=c++17", [CROSS[1]] if CROSS else ["g++", "clang++"])):
    text, nenum = translation_unit(lang == "C++")
    path = os.path.join(tmp, f"abi.{ext}")
    open(path, "w").write(text)
    for cc in compilers:
        if shutil.which(cc) is None:
            print(f"skip: {cc} not installed")
            continue
        exe = os.path.join(tmp, f"abi-{os.path.basename(cc)}")
        # Cross: the C program links cudnn.lib, the C++ one the six
        # sub-library import libraries, so loading them resolves all 264
        # functions through cudnn64_8.dll or the forwarders.
        libs = ["cudnn"] if lang == "C" else [f"cudnn_{s}" for s in
                                               ("ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train")]
        link = (["-o", exe + ".exe", *[os.path.join(BUILD, "lib", "x64", f"{l}.lib") for l in libs]] if CROSS
                else ["-c", "-o", exe + ".o"])
        r = subprocess.run([cc, std, "-Wall", "-Wextra", "-Werror", "-pedantic", *includes, path, *link],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"{lang} headers with {cc} {std}: {r.stderr[:3000]}")
        if CROSS and r.returncode == 0:
            r = subprocess.run([*RUNNER, exe + ".exe"], capture_output=True, text=True)
            check(r.returncode == 0, f"{lang} ABI program built with {cc} exits {r.returncode}: {r.stderr[:500]}")
        # Every header on its own, as a program may include just one.
        for h in sorted(os.listdir(os.path.join(SRC, "include"))):
            one = os.path.join(tmp, f"one.{ext}")
            open(one, "w").write(f"#include \"{h}\"\nint fdnn_unused;\n")
            r = subprocess.run([cc, std, "-Wall", "-Wextra", "-Werror", "-pedantic", *includes, one, "-c",
                                "-o", os.devnull], capture_output=True, text=True)
            check(r.returncode == 0, f"{h} alone with {cc} {std}: {r.stderr[:2000]}")
print(f"checked {nenum} enumerators, {len(MACROS) + len(FLOAT_MACROS)} macros, {len(STRUCTS)} structs, "
      f"{len(api['functions'])} signatures")

if CROSS:
    print(f"abi: {passed} passed, {len(failures)} failed")
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failures else 0)

# ---- exported symbols -------------------------------------------------------


def exports(lib):
    out = subprocess.run(["readelf", "--dyn-syms", "-W", lib], capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[6] != "UND" and parts[3] in ("FUNC", "OBJECT") and parts[4] == "GLOBAL":
            name = parts[7]
            base, _, node = name.partition("@@")
            syms[base] = node
    return syms


main_lib = os.path.join(BUILD, "libcudnn.so.8")
syms = exports(main_lib)
names = [fn["name"] for fn in api["functions"]]
missing = [n for n in names if n not in syms]
check(not missing, f"libcudnn.so.8 misses {missing[:10]}")
wrong_node = [n for n in names if n in syms and syms[n] != "libcudnn.so.8"]
check(not wrong_node, f"symbols without version node libcudnn.so.8: {wrong_node[:10]}")
extra = [n for n in syms if n not in names and not n.startswith("freednn") and n not in ("libcudnn.so.8",
                                                                                          "FREEDNN_1")]
check(not extra, f"libcudnn.so.8 exports more than the API: {extra[:10]}")
for sub in ["ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"]:
    path = os.path.join(BUILD, f"libcudnn_{sub}.so.8")
    s = exports(path)
    # the backend API is exported by libcudnn_cnn_infer.so.8 (tools/gen_api.py EXPORTED_BY)
    want = {fn["name"] for fn in api["functions"]
            if fn["sublib"] == f"cudnn_{sub}" or (sub == "cnn_infer" and fn["sublib"] == "cudnn_backend")}
    got = {n for n in s if n.startswith("cudnn")}
    check(got == want, f"libcudnn_{sub}.so.8 exports {len(got)} functions, expected {len(want)}: "
                       f"missing {sorted(want - got)[:5]} extra {sorted(got - want)[:5]}")
    check(all(s[n] == f"libcudnn_{sub}.so.8" for n in got), f"libcudnn_{sub}.so.8 version node")
print(f"abi: {passed} passed, {len(failures)} failed")
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
