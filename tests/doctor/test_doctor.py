# SPDX-License-Identifier: Apache-2.0
"""Tests of cudnn-doctor: broken installations built in temporary folders.

Each scenario copies the build tree's FreeDNN libraries (or writes tiny fake
libraries with the C compiler, or hand-made Windows DLLs), runs the doctor
with --json --no-system in a clean environment, and asserts the verdicts,
the versions it read and its exit status.

usage: test_doctor.py DOCTOR LIBDIR INCLUDEDIR CC [PARSE_FUZZ]
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_pe import AMD64, I386, make_dll  # noqa: E402

DOCTOR, LIBDIR, INCLUDE = (os.path.abspath(a) for a in sys.argv[1:4])
CC = sys.argv[4]
PARSE_FUZZ = os.path.abspath(sys.argv[5]) if len(sys.argv) > 5 else None
SUBLIBS8 = ["ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"]
passed = failed = skipped = 0

# A fake cuDNN library: exports what the doctor asks and reports VERSION.
FAKE_SRC = r"""
#include <stddef.h>
#include <stdlib.h>
#ifndef CUDART
#define CUDART 12020
#endif
#ifndef CHECK_STATUS
#define CHECK_STATUS 0
#endif
size_t cudnnGetVersion(void) { return VERSION; }
size_t cudnnGetCudartVersion(void) { return CUDART; }
int cudnnOpsInferVersionCheck(void) { return 0; }
int cudnnOpsTrainVersionCheck(void) { return 0; }
int cudnnCnnInferVersionCheck(void) { return CHECK_STATUS; }
int cudnnCnnTrainVersionCheck(void) { return 0; }
int cudnnAdvInferVersionCheck(void) { return 0; }
int cudnnAdvTrainVersionCheck(void) { return 0; }
#ifdef KILL_GROUP
#include <signal.h>
__attribute__((constructor)) static void kill_group(void) { kill(0, SIGTERM); }
#endif
#ifdef ABORT_ON_LOAD
#include <stdio.h>
__attribute__((constructor)) static void die(void)
{
    fprintf(stderr, "Could not load library libcudnn_cnn_infer.so.8. Error: fake. Please make sure "
            "libcudnn_cnn_infer.so.8 is in your library path!\n");
    abort();
}
#endif
"""


# A fake shim with the legacy convolution API, to drive the self-test's
# outcomes: MODE 0 declines the convolution (NOT_SUPPORTED), 1 computes
# zeros (wrong results), 2 has no GPU (cudnnCreate: NOT_INITIALIZED).
FAKE_CONV_SRC = r"""
#include <stddef.h>
#include <string.h>
static int dummy;
size_t cudnnGetVersion(void) { return 8904; }
size_t cudnnGetCudartVersion(void) { return 12020; }
const char *cudnnGetErrorString(int s) { return s == 9 ? "CUDNN_STATUS_NOT_SUPPORTED" : "CUDNN_STATUS_OTHER"; }
int cudnnCreate(void **h) { *h = &dummy; return MODE == 2 ? 1 : 0; }
int cudnnDestroy(void *h) { (void)h; return 0; }
int cudnnCreateTensorDescriptor(void **d) { *d = &dummy; return 0; }
int cudnnCreateFilterDescriptor(void **d) { *d = &dummy; return 0; }
int cudnnCreateConvolutionDescriptor(void **d) { *d = &dummy; return 0; }
int cudnnDestroyTensorDescriptor(void *d) { (void)d; return 0; }
int cudnnSetTensor4dDescriptor(void *d, int f, int t, int n, int c, int h, int w) { return 0; }
int cudnnSetFilter4dDescriptor(void *d, int t, int f, int k, int c, int h, int w) { return 0; }
int cudnnSetConvolution2dDescriptor(void *d, int a, int b, int c, int e, int f, int g, int m, int t) { return 0; }
int cudnnGetConvolutionForwardWorkspaceSize(void *h, void *x, void *w, void *c, void *y, int a, size_t *s)
{ *s = 0; return 0; }
int cudnnConvolutionForward(void *h, const void *al, void *xd, const void *x, void *wd, const void *w, void *cd,
                            int algo, void *ws, size_t wss, const void *be, void *yd, void *y)
{
    if (MODE == 0)
        return 9;
    memset(y, 0, 8 * 32 * 32 * sizeof(float));
    return 0;
}
#if MODE != 2
int freednnSetIsa(void *h, const char *isa) { return 9; }
#endif
"""


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def clean_env(ld_path=""):
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("CUDNN") or k.startswith("CUDA") or k in
                   ("LD_LIBRARY_PATH", "CONDA_PREFIX", "VIRTUAL_ENV", "CPATH", "C_INCLUDE_PATH",
                    "CPLUS_INCLUDE_PATH", "HOME"))}
    env["HOME"] = "/nonexistent"
    if ld_path:
        env["LD_LIBRARY_PATH"] = ld_path
    return env


def as_nobody():
    """When the tests run as root, permissions do not stop root: scenarios
    about unreadable files run the programs as `nobody`."""
    os.setgid(65534)
    os.setuid(65534)


def doctor(args, ld_path="", env_extra=None, cwd=None, user=None, exe=None):
    env = clean_env(ld_path)
    env.update(env_extra or {})
    p = subprocess.run([exe or DOCTOR, "--json", "--no-system", "--timeout", "30"] + args, env=env,
                       capture_output=True, timeout=300, cwd=cwd, preexec_fn=user)
    try:
        # Strict UTF-8: the output must be valid JSON in valid UTF-8 whatever the paths hold.
        report = json.loads(p.stdout.decode("utf-8"))
    except ValueError:
        if p.returncode != 2:                  # usage errors print no JSON
            print("doctor output is not JSON:", p.stdout[:2000], p.stderr[:2000])
        report = {"verdicts": [], "libraries": [], "headers": [], "windows": []}
    return p.returncode, report


def verdicts(report, check_name, level=None):
    return [v for v in report["verdicts"] if v["check"] == check_name and (level is None or v["level"] == level)]


def lib(report, soname):
    for s in report["libraries"]:
        if s["soname"] == soname:
            return s
    return None


def winner(report, soname):
    s = lib(report, soname)
    if s is None:
        return None
    for c in s["copies"]:
        if c["winner"]:
            return c
    return None


def install_freednn(root):
    """The seven FreeDNN libraries in root/lib (real file + soname link) and
    the headers in root/include: a healthy installation."""
    os.makedirs(os.path.join(root, "lib"), exist_ok=True)
    for name in ["cudnn"] + ["cudnn_" + s for s in SUBLIBS8]:
        real = "lib%s.so.8.9.4" % name
        shutil.copy(os.path.join(LIBDIR, real), os.path.join(root, "lib", real))
        os.symlink(real, os.path.join(root, "lib", "lib%s.so.8" % name))
    shutil.copytree(INCLUDE, os.path.join(root, "include"))
    return os.path.join(root, "lib")


def fake_lib(folder, soname, version, extra_flags=(), abort=False, cudart=12020, plain=False, real_name=None):
    """A fake library `soname` reporting `version` (8600 -> 8.6.0; 91900 ->
    9.19.0), stored as soname.<M.m.p> with the soname link, like NVIDIA's
    files (plain: one file named `soname`, like pip's wheels)."""
    os.makedirs(folder, exist_ok=True)
    src = os.path.join(folder, "fake.c")
    with open(src, "w") as f:
        f.write(FAKE_SRC)
    if version >= 90000:
        ver = "%d.%d.%d" % (version // 10000, version % 10000 // 100, version % 100)
    else:
        ver = "%d.%d.%d" % (version // 1000, version % 1000 // 100, version % 100)
    real = real_name or (soname if plain else soname[:soname.index(".so.") + 4] + ver)
    cmd = [CC, "-shared", "-fPIC", "-o", os.path.join(folder, real), src, "-DVERSION=%d" % version,
           "-DCUDART=%d" % cudart,
           "-Wl,-soname," + soname] + list(extra_flags)
    if abort:
        cmd.append("-DABORT_ON_LOAD")
    subprocess.run(cmd, check=True)
    os.remove(src)
    if real != soname:
        os.symlink(real, os.path.join(folder, soname))


def scenario_healthy(tmp):
    libdir = install_freednn(tmp)
    rc, r = doctor(["--include", os.path.join(tmp, "include")], ld_path=libdir)
    check(rc == 0, "healthy: exit 0, got %d: %s" % (rc, [v for v in r["verdicts"] if v["level"] == "fail"]))
    w = winner(r, "libcudnn.so.8")
    check(w is not None and w["version"] == "8.9.4" and w["path"].startswith(libdir), "healthy: winner 8.9.4")
    check(w is not None and w["probe"]["freednn"], "healthy: probe sees FreeDNN")
    check(w is not None and "libcudnn.so.8" in w["elf"]["version_definitions"], "healthy: ELF version node")
    check(all(winner(r, "libcudnn_%s.so.8" % s) is not None for s in SUBLIBS8), "healthy: all sub-libraries")
    st = r["selftest"]
    check(st is not None and st["result"] in ("pass", "not supported"), "healthy: self-test pass or not supported")
    if st is not None and st["result"] == "pass":
        check("bit-exact at scalar" in st["detail"] and "ms per call" in st["detail"], "healthy: every ISA, timed")
    check(len(verdicts(r, "header", "ok")) >= 1, "healthy: header matches")
    check(lib(r, "libcudnn.so.9")["copies"] == [], "healthy: --no-system hides system cuDNN 9")


def scenario_shadow(tmp):
    libdir = install_freednn(os.path.join(tmp, "good"))
    old = os.path.join(tmp, "old")
    fake_lib(old, "libcudnn.so.8", 8600)
    rc, r = doctor([], ld_path=old + ":" + libdir)
    check(rc == 1, "shadow: exit 1")
    w = winner(r, "libcudnn.so.8")
    check(w is not None and w["path"].startswith(old) and w["version"] == "8.6.0", "shadow: old copy wins")
    f = verdicts(r, "shadow", "fail")
    check(len(f) == 1 and "8.6.0" in f[0]["message"] and "8.9.4" in f[0]["message"], "shadow: verdict %s" % f)
    check(len(verdicts(r, "sublib-mix", "fail")) >= 1, "shadow: the 8.6 shim against 8.9.4 sub-libraries is a mix")


def scenario_mixed(tmp):
    libdir = install_freednn(tmp)
    for f in glob.glob(os.path.join(libdir, "libcudnn_cnn_infer.so*")):
        os.remove(f)
    fake_lib(libdir, "libcudnn_cnn_infer.so.8", 8600)
    rc, r = doctor([], ld_path=libdir)
    check(rc == 1, "mixed: exit 1")
    w = winner(r, "libcudnn_cnn_infer.so.8")
    check(w is not None and w["version"] == "8.6.0" and w["probe"]["version"] == "8.6.0", "mixed: reads 8.6.0")
    f = verdicts(r, "sublib-mix", "fail")
    check(len(f) >= 1 and "libcudnn_cnn_infer.so.8 8.6.0" in f[0]["message"], "mixed: verdict %s" % f)


def scenario_missing_sublib(tmp):
    libdir = install_freednn(tmp)
    for f in glob.glob(os.path.join(libdir, "libcudnn_adv_train.so*")):
        os.remove(f)
    rc, r = doctor([], ld_path=libdir)
    check(rc == 1, "missing: exit 1")
    f = verdicts(r, "sublib-missing", "fail")
    check(len(f) == 1 and "libcudnn_adv_train.so.8 is missing" in f[0]["message"], "missing: verdict %s" % f)
    check(f and libdir in (f[0]["fix"] or ""), "missing: the fix names the folder")


def scenario_header(tmp):
    libdir = install_freednn(tmp)
    h = os.path.join(tmp, "include", "cudnn_version.h")
    text = open(h).read().replace("#define CUDNN_MINOR 9", "#define CUDNN_MINOR 6")
    os.remove(h)
    open(h, "w").write(text)
    rc, r = doctor([], ld_path=libdir)
    check(rc == 1, "header: exit 1")
    f = verdicts(r, "header", "fail")
    check(len(f) == 1 and "8.6.4" in f[0]["message"] and "8.9.4" in f[0]["message"], "header: verdict %s" % f)
    check(any(x["version"] == "8.6.4" for x in r["headers"]), "header: version read")


def scenario_missing_dep(tmp):
    libdir = install_freednn(tmp)
    stub = os.path.join(tmp, "stub")
    os.makedirs(stub)
    subprocess.run([CC, "-shared", "-fPIC", "-o", os.path.join(stub, "libcublasLt.so.12"), "-x", "c", "/dev/null",
                    "-Wl,-soname,libcublasLt.so.12"], check=True)
    for f in glob.glob(os.path.join(libdir, "libcudnn_ops_train.so*")):
        os.remove(f)
    fake_lib(libdir, "libcudnn_ops_train.so.8", 8904, ["-L" + stub, "-Wl,--no-as-needed", "-l:libcublasLt.so.12"])
    shutil.rmtree(stub)
    rc, r = doctor([], ld_path=libdir)
    check(rc == 1, "dep: exit 1")
    f = verdicts(r, "deps", "fail")
    check(len(f) == 1 and "libcublasLt.so.12" in f[0]["message"] and "libcudnn_ops_train" in f[0]["message"],
          "dep: verdict %s" % f)
    f = verdicts(r, "load", "fail")
    check(len(f) == 1 and "libcublasLt.so.12" in f[0]["message"], "dep: load failure names the file %s" % f)


def scenario_abort(tmp):
    old = os.path.join(tmp, "old")
    fake_lib(old, "libcudnn.so.8", 8904, abort=True)
    rc, r = doctor([], ld_path=old)
    check(rc == 1, "abort: exit 1 (the doctor survives)")
    w = winner(r, "libcudnn.so.8")
    check(w is not None and w["probe"]["signal"] != 0, "abort: signal reported")
    f = verdicts(r, "load", "fail")
    check(len(f) == 1 and "Could not load library libcudnn_cnn_infer.so.8" in f[0]["message"],
          "abort: load verdict keeps the library's last words %s" % f)


def scenario_off_path(tmp):
    site = os.path.join(tmp, "site-packages")
    install_freednn(os.path.join(site, "nvidia", "cudnn"))
    os.makedirs(os.path.join(site, "nvidia_cudnn_cu12-8.9.4.25.dist-info"))
    rc, r = doctor(["--python-site", site])
    check(rc == 0, "off-path: warning only, exit 0")
    f = verdicts(r, "found", "warn")
    check(len(f) == 1 and "does not search there" in f[0]["message"] and "LD_LIBRARY_PATH" in f[0]["fix"],
          "off-path: verdict %s" % f)
    rc, r = doctor(["--python-site", site, "--expect", "8.9"])
    check(rc == 1 and len(verdicts(r, "found", "fail")) == 1, "off-path: fails with --expect 8.9")
    # Another wheel version than the files: the files were overwritten.
    os.rename(os.path.join(site, "nvidia_cudnn_cu12-8.9.4.25.dist-info"),
              os.path.join(site, "nvidia_cudnn_cu12-8.5.0.96.dist-info"))
    os.makedirs(os.path.join(site, "nvidia_cudnn_cu11-8.5.0.96.dist-info"))
    rc, r = doctor(["--python-site", site])
    check(len(verdicts(r, "python", "fail")) == 1 and len(verdicts(r, "python", "warn")) == 1,
          "python: overwritten wheel and cu11+cu12 both installed")


def scenario_torch(tmp):
    site = os.path.join(tmp, "site-packages")
    own = install_freednn(os.path.join(site, "nvidia", "cudnn"))
    torch_lib = os.path.join(site, "torch", "lib")
    os.makedirs(torch_lib)
    subprocess.run([CC, "-shared", "-fPIC", "-o", os.path.join(torch_lib, "libtorch_cuda.so"), "-x", "c", "/dev/null",
                    "-L" + own, "-Wl,--no-as-needed", "-l:libcudnn.so.8", "-Wl,--enable-new-dtags",
                    "-Wl,-rpath,$ORIGIN/../../nvidia/cudnn/lib"], check=True)
    rc, r = doctor(["--python-site", site])
    check(len(verdicts(r, "python", "ok")) == 1, "torch: loads its own cuDNN %s" % verdicts(r, "python"))
    old = os.path.join(tmp, "old")
    fake_lib(old, "libcudnn.so.8", 8500)
    rc, r = doctor(["--python-site", site], ld_path=old)
    f = verdicts(r, "python", "fail")
    check(rc == 1 and len(f) == 1 and "8.5.0" in f[0]["message"] and "LD_LIBRARY_PATH" in f[0]["message"],
          "torch: LD_LIBRARY_PATH shadows its RUNPATH %s" % f)


def scenario_tensorflow(tmp):
    site = os.path.join(tmp, "site-packages")
    info = os.path.join(site, "tensorflow", "python", "platform")
    os.makedirs(info)
    open(os.path.join(info, "build_info.py"), "w").write(
        "import collections\nbuild_info = collections.OrderedDict([('cpu_compiler', 'clang'), "
        "('cuda_version', '12.2'), ('cudnn_version', '8.9'), ('is_cuda_build', True)])\n")
    rc, r = doctor(["--python-site", site])
    f = verdicts(r, "python", "fail")
    check(rc == 1 and len(f) == 1 and "cannot find libcudnn.so.8" in f[0]["message"], "tf: no cuDNN %s" % f)
    old = os.path.join(tmp, "old")
    fake_lib(old, "libcudnn.so.8", 8600)
    rc, r = doctor(["--python-site", site], ld_path=old)
    f = verdicts(r, "python", "fail")
    check(len(f) == 1 and "Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9" in f[0]["message"],
          "tf: older minor %s" % f)
    libdir = install_freednn(os.path.join(tmp, "good"))
    rc, r = doctor(["--python-site", site], ld_path=libdir)
    check(len(verdicts(r, "python", "ok")) == 1, "tf: FreeDNN 8.9.4 satisfies 8.9")


def scenario_for_binary(tmp):
    libdir = install_freednn(os.path.join(tmp, "app"))
    old = os.path.join(tmp, "old")
    fake_lib(old, "libcudnn.so.8", 8600)
    src = os.path.join(tmp, "main.c")
    open(src, "w").write("int main(void) { return 0; }\n")
    bins = {}
    for tag, dtags in (("runpath", "--enable-new-dtags"), ("rpath", "--disable-new-dtags")):
        bins[tag] = os.path.join(tmp, "app", "bin", "app_" + tag)
        os.makedirs(os.path.dirname(bins[tag]), exist_ok=True)
        subprocess.run([CC, "-o", bins[tag], src, "-Wl," + dtags, "-Wl,-rpath,$ORIGIN/../lib"], check=True)
    # RUNPATH alone finds the install.
    rc, r = doctor(["--for", bins["runpath"]])
    w = winner(r, "libcudnn.so.8")
    check(rc == 0 and w is not None and w["origin"].startswith("RUNPATH of app_runpath"), "for: RUNPATH found")
    # LD_LIBRARY_PATH beats RUNPATH ...
    rc, r = doctor(["--for", bins["runpath"]], ld_path=old)
    w = winner(r, "libcudnn.so.8")
    check(w is not None and w["path"].startswith(old), "for: LD_LIBRARY_PATH before RUNPATH")
    # ... but RPATH beats LD_LIBRARY_PATH.
    rc, r = doctor(["--for", bins["rpath"]], ld_path=old)
    w = winner(r, "libcudnn.so.8")
    check(w is not None and os.path.realpath(w["path"]).startswith(libdir), "for: RPATH before LD_LIBRARY_PATH")
    check(len(verdicts(r, "shadow", "fail")) == 1, "for: the shadowed 8.6.0 copy is reported")
    # A program that links libcudnn.so.8 itself: fine with its RUNPATH, and
    # "will not start" when the folder its RUNPATH names is gone.
    linked = os.path.join(tmp, "app", "bin", "app_linked")
    subprocess.run([CC, "-o", linked, src, "-L" + libdir, "-Wl,--no-as-needed", "-l:libcudnn.so.8",
                    "-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN/../lib"], check=True)
    rc, r = doctor(["--for", linked])
    check(rc == 0 and len(verdicts(r, "program", "ok")) == 1, "for: the program's libraries are found")
    shutil.move(libdir, libdir + ".moved")
    rc, r = doctor(["--for", linked])
    f = verdicts(r, "program", "fail")
    check(rc == 1 and len(f) == 1 and "libcudnn.so.8" in f[0]["message"], "for: program will not start %s" % f)


def scenario_nvidia_cuda_major(tmp):
    """A fake NVIDIA-style cuDNN 8.9.4 built for CUDA 11.8 next to a CUDA 12.2
    toolkit: the CUDA major is wrong, and cuBLAS/NVRTC 11 are missing."""
    libdir = os.path.join(tmp, "lib")
    for name in ["libcudnn.so.8"] + ["libcudnn_%s.so.8" % s for s in SUBLIBS8]:
        fake_lib(libdir, name, 8904, cudart=11080)
    cuda = os.path.join(tmp, "cuda")
    os.makedirs(cuda)
    open(os.path.join(cuda, "version.json"), "w").write('{"cuda" : {"name" : "CUDA SDK", "version" : "12.2.0"}}')
    rc, r = doctor(["--no-selftest"], ld_path=libdir, env_extra={"CUDA_HOME": cuda})
    w = winner(r, "libcudnn.so.8")
    check(w is not None and w["probe"]["cudart"] == 11080 and not w["probe"]["freednn"], "cuda: probe cudart")
    f = verdicts(r, "cuda", "fail")
    check(rc == 1 and len(f) == 1 and "CUDA 11" in f[0]["message"] and "12.2" in f[0]["message"],
          "cuda: major mismatch %s" % f)
    deps = " ".join(v["message"] for v in verdicts(r, "deps", "fail"))
    # (NVRTC is left out: 8.x also takes an unversioned libnvrtc.so, which
    # this machine's own CUDA may provide.)
    check(all(n in deps for n in ("libcublas.so.11", "libcublasLt.so.11")),
          "cuda: runtime dependencies named: %s" % deps)
    # With cuBLAS/NVRTC 11 on the path the dependencies are found.
    stubs = os.path.join(tmp, "cuda11")
    os.makedirs(stubs)
    for n in ("libcublas.so.11", "libcublasLt.so.11", "libnvrtc.so"):
        subprocess.run([CC, "-shared", "-fPIC", "-o", os.path.join(stubs, n), "-x", "c", "/dev/null"], check=True)
    rc, r = doctor(["--no-selftest"], ld_path=libdir + ":" + stubs, env_extra={"CUDA_HOME": cuda})
    check(verdicts(r, "deps", "fail") == [] and len(verdicts(r, "deps", "ok")) == 1,
          "cuda: dependencies found (8.x accepts libnvrtc.so)")


def scenario_selftest_outcomes(tmp):
    for mode, result, level in ((0, "not supported", "info"), (1, "wrong results", "fail"),
                                (2, "no GPU/device", "skip")):
        folder = os.path.join(tmp, "m%d" % mode)
        os.makedirs(folder)
        src = os.path.join(folder, "conv.c")
        open(src, "w").write(FAKE_CONV_SRC)
        subprocess.run([CC, "-shared", "-fPIC", "-w", "-o", os.path.join(folder, "libcudnn.so.8"), src,
                        "-DMODE=%d" % mode, "-Wl,-soname,libcudnn.so.8"], check=True)
        rc, r = doctor([], ld_path=folder)
        st = r["selftest"]
        check(st is not None and st["result"] == result, "self-test mode %d: %s" % (mode, st))
        check(len(verdicts(r, "selftest", level)) == 1, "self-test mode %d: verdict %s" % (mode, level))


def scenario_wrong_class(tmp):
    libdir = install_freednn(os.path.join(tmp, "good"))
    lib32 = os.path.join(tmp, "lib32")
    os.makedirs(lib32)
    src = os.path.join(tmp, "v.c")
    open(src, "w").write("unsigned cudnnGetVersion(void) { return 8904; }\n")
    p = subprocess.run([CC, "-m32", "-shared", "-fPIC", "-nostdlib", "-Wl,-soname,libcudnn.so.8", "-o",
                        os.path.join(lib32, "libcudnn.so.8"), src], capture_output=True)
    if p.returncode != 0:
        global skipped
        skipped += 1
        print("SKIP: the compiler cannot make 32-bit objects")
        return
    rc, r = doctor([], ld_path=lib32 + ":" + libdir)
    w = winner(r, "libcudnn.so.8")
    check(rc == 0 and w is not None and w["path"].startswith(libdir), "32-bit: skipped by the loader, next wins")
    f = verdicts(r, "file", "warn")
    check(len(f) == 1 and "32-bit" in f[0]["message"], "32-bit: reported %s" % f)


def scenario_broken_files(tmp):
    libdir = install_freednn(os.path.join(tmp, "good"))
    bad = os.path.join(tmp, "bad")
    os.makedirs(bad)
    open(os.path.join(bad, "libcudnn_cnn_train.so.8"), "w").write("/* GNU ld script */\nGROUP ( libfoo.so )\n")
    data = open(os.path.join(libdir, "libcudnn.so.8.9.4"), "rb").read()
    open(os.path.join(bad, "libcudnn.so.8"), "wb").write(data[:3000])
    rc, r = doctor([], ld_path=bad + ":" + libdir)
    check(rc == 1, "broken: exit 1")
    w = winner(r, "libcudnn.so.8")
    check(w is not None and w["path"].startswith(bad) and not w["loadable"], "broken: the truncated copy stops the search")
    check(len(verdicts(r, "found", "fail")) == 1, "broken: shim verdict")
    files = verdicts(r, "file", "fail")
    check(len(files) == 2, "broken: both files reported %s" % files)
    check(len([v for v in verdicts(r, "load", "fail") if "libcudnn_cnn_train" in v["message"]]) == 1,
          "broken: the linker script fails to load")


def write_ld_cache(path, entries, old_prefix=False):
    """An ld.so.cache in glibc's format: optional old table, then the
    "glibc-ld.so.cache1.1" header, 24-byte entries and the strings, whose
    offsets count from the new header."""
    strings = b""
    offs = []
    head = 48 + 24 * len(entries)
    for key, value in entries:
        offs.append((head + len(strings), head + len(strings) + len(key) + 1))
        strings += key.encode() + b"\0" + value.encode() + b"\0"
    new = b"glibc-ld.so.cache1.1" + struct.pack("<IIB3sI12s", len(entries), len(strings), 0, b"", 0, b"")
    for k, v in offs:
        new += struct.pack("<iIIIQ", 0x0303, k, v, 0, 0)
    new += strings
    old = b""
    if old_prefix:
        old = b"ld.so-1.7.0\0" + struct.pack("<I", 1) + struct.pack("<iII", 3, 0, 0)
        old += b"\0" * (-len(old) % 8)
    open(path, "wb").write(old + new)


def scenario_ld_cache(tmp):
    libdir = install_freednn(os.path.join(tmp, "cached"))
    names = ["libcudnn.so.8"] + ["libcudnn_%s.so.8" % s for s in SUBLIBS8]
    for old in (False, True):
        cache = os.path.join(tmp, "ld.so.cache")
        write_ld_cache(cache, [(n, os.path.join(libdir, n)) for n in names], old_prefix=old)
        rc, r = doctor(["--ld-cache", cache])
        w = winner(r, "libcudnn.so.8")
        check(rc == 0 and w is not None and w["origin"].startswith("ld.so.cache") and w["path"].startswith(libdir),
              "ld.so.cache (old table first: %s): found through the cache" % old)


def windows_archive(tmp, imports_ops=("KERNEL32.dll", "zlibwapi.dll", "cublas64_12.dll", "cublasLt64_12.dll")):
    root = os.path.join(tmp, "cudnn-windows-x86_64-8.9.4.25_cuda12-archive")
    os.makedirs(os.path.join(root, "bin"))
    ver = (8, 9, 4, 25)
    make_dll(os.path.join(root, "bin", "cudnn64_8.dll"), AMD64, ["KERNEL32.dll"], version=ver)
    for s in SUBLIBS8:
        imports = list(imports_ops) if s == "ops_infer" else ["KERNEL32.dll", "cudnn_ops_infer64_8.dll"]
        make_dll(os.path.join(root, "bin", "cudnn_%s64_8.dll" % s), AMD64, imports,
                 delay=["nvrtc64_120_0.dll"] if s == "cnn_infer" else (), version=ver)
    cuda = os.path.join(tmp, "cuda", "bin")
    os.makedirs(cuda)
    make_dll(os.path.join(cuda, "cublas64_12.dll"), AMD64, ["cublasLt64_12.dll"])
    make_dll(os.path.join(cuda, "cublasLt64_12.dll"), AMD64, ["KERNEL32.dll"])
    make_dll(os.path.join(cuda, "nvrtc64_120_0.dll"), AMD64, ["KERNEL32.dll"])
    return root, cuda


def scenario_windows(tmp):
    root, cuda = windows_archive(tmp)
    rc, r = doctor(["--windows-dir", root, "--windows-path", cuda])
    f = verdicts(r, "win-imports", "fail")
    check(rc == 1 and len(f) == 1 and "zlibwapi.dll" in f[0]["message"] and "cudnn_ops_infer64_8" in f[0]["message"],
          "windows: missing zlibwapi.dll %s" % f)
    d = [x for x in r["windows"] if x["dll"] == "cudnn64_8.dll"]
    check(d and d[0]["file_version"] == "8.9.4.25" and d[0]["machine"] == "x64", "windows: PE version and machine")
    check(len(verdicts(r, "win-found", "ok")) == 1, "windows: all seven DLLs found")
    # A 32-bit zlibwapi.dll on PATH.
    z = os.path.join(tmp, "zlib32")
    os.makedirs(z)
    make_dll(os.path.join(z, "zlibwapi.dll"), I386, ["KERNEL32.dll"])
    rc, r = doctor(["--windows-dir", root, "--windows-path", cuda + ";" + z])
    f = verdicts(r, "win-bitness", "fail")
    check(rc == 1 and len(f) == 1 and "zlibwapi.dll" in f[0]["message"] and "32-bit" in f[0]["message"],
          "windows: 32-bit zlibwapi %s" % f)
    # A good zlibwapi.dll: healthy.
    z64 = os.path.join(tmp, "zlib64")
    os.makedirs(z64)
    make_dll(os.path.join(z64, "ZLIBWAPI.DLL"), AMD64, ["KERNEL32.dll"])
    rc, r = doctor(["--windows-dir", root, "--windows-path", cuda + ";" + z64])
    check(rc == 0, "windows: healthy with zlibwapi, got %s" % [v for v in r["verdicts"] if v["level"] == "fail"])
    # A stale 8.2 cudnn64_8.dll earlier on PATH, and a missing sub-DLL.
    stale = os.path.join(tmp, "stale")
    os.makedirs(stale)
    make_dll(os.path.join(stale, "cudnn64_8.dll"), AMD64, ["KERNEL32.dll"], version=(8, 2, 0, 53))
    os.remove(os.path.join(root, "bin", "cudnn_adv_train64_8.dll"))
    rc, r = doctor(["--windows-dir", root, "--windows-path", stale + ";" + os.path.join(root, "bin") + ";" + cuda +
                    ";" + z64])
    check(rc == 1 and len(verdicts(r, "win-shadow", "fail")) == 1, "windows: stale copy shadows")
    check(len(verdicts(r, "win-mix", "fail")) >= 1, "windows: 8.2 shim with 8.9.4 sub-DLLs")
    f = verdicts(r, "win-found", "fail")
    check(len(f) == 1 and "cudnn_adv_train64_8.dll" in f[0]["message"], "windows: missing sub-DLL %s" % f)


def scenario_windows_freednn(tmp):
    """FreeDNN's Windows DLLs (the shim exports freednnSetIsa) need no
    zlibwapi.dll; NVIDIA's 8.9 shim does, even when no table names it."""
    root = os.path.join(tmp, "freednn-windows-x86_64-cudnn8.9.4-archive")
    b = os.path.join(root, "bin")
    os.makedirs(b)
    ver = (8, 9, 4, 0)
    make_dll(os.path.join(b, "cudnn64_8.dll"), AMD64, ["KERNEL32.dll", "cudart64_12.dll"], version=ver,
             exports=["cudnnGetCudartVersion", "cudnnGetVersion", "freednnSetIsa"])
    make_dll(os.path.join(b, "cudart64_12.dll"), AMD64, ["KERNEL32.dll"], version=(12, 2, 140, 0))
    for s in SUBLIBS8:
        make_dll(os.path.join(b, "cudnn_%s64_8.dll" % s), AMD64, ["KERNEL32.dll"], version=ver)
    rc, r = doctor(["--windows-dir", root])
    d = [x for x in r["windows"] if x["dll"] == "cudnn64_8.dll"]
    check(rc == 0 and len(verdicts(r, "win-zlib", "info")) == 1 and d and d[0]["freednn"],
          "windows-freednn: no zlibwapi.dll asked of FreeDNN %s" % [v for v in r["verdicts"] if v["level"] != "ok"])
    check(len(verdicts(r, "win-cuda", "ok")) == 1, "windows-freednn: CUDA 12 from cudart64_12.dll")
    # The same shim without FreeDNN's export reads as NVIDIA's 8.9: zlib needed.
    make_dll(os.path.join(b, "cudnn64_8.dll"), AMD64, ["KERNEL32.dll", "cudart64_12.dll"], version=ver,
             exports=["cudnnGetCudartVersion", "cudnnGetVersion"])
    rc, r = doctor(["--windows-dir", root])
    f = verdicts(r, "win-imports", "fail")
    check(rc == 1 and len(f) == 1 and "zlibwapi.dll" in f[0]["message"] and not verdicts(r, "win-zlib"),
          "windows-freednn: NVIDIA's shim needs zlibwapi.dll %s" % f)


def scenario_windows_order(tmp):
    root, cuda = windows_archive(tmp)
    make_dll(os.path.join(cuda, "zlibwapi.dll"), AMD64, ["KERNEL32.dll"])
    # The application folder comes first: a 32-bit copy there wins.
    app = os.path.join(tmp, "app")
    os.makedirs(app)
    make_dll(os.path.join(app, "cudnn_ops_infer64_8.dll"), I386, ["KERNEL32.dll"], version=(8, 9, 4, 25))
    rc, r = doctor(["--windows-dir", root, "--windows-app", app, "--windows-path", cuda])
    d = [x for x in r["windows"] if x["dll"] == "cudnn_ops_infer64_8.dll"]
    check(d and d[0]["path"].startswith(app) and d[0]["origin"] == "application folder", "windows: app folder first")
    f = verdicts(r, "win-bitness", "fail")
    check(rc == 1 and len(f) == 1 and "cudnn_ops_infer64_8.dll" in f[0]["message"], "windows: 32-bit in app %s" % f)
    # With a (copied) system folder, system DLLs are looked up there too.
    system = os.path.join(tmp, "System32")
    os.makedirs(system)
    rc, r = doctor(["--windows-dir", root, "--windows-system", system, "--windows-path", cuda])
    f = verdicts(r, "win-imports", "fail")
    check(rc == 1 and any("KERNEL32.dll" in v["message"] for v in f), "windows: KERNEL32.dll missing from System32")
    make_dll(os.path.join(system, "kernel32.dll"), AMD64, [])
    rc, r = doctor(["--windows-dir", root, "--windows-system", system, "--windows-path", cuda])
    check(rc == 0, "windows: healthy with a System32 copy %s" % [v for v in r["verdicts"] if v["level"] == "fail"])


def scenario_windows_dll(tmp):
    """--windows-dll: an application's DLL whose own import is missing (#23)."""
    root, cuda = windows_archive(tmp)
    make_dll(os.path.join(cuda, "zlibwapi.dll"), AMD64, ["KERNEL32.dll"])
    app = os.path.join(tmp, "app")
    os.makedirs(app)
    dll = os.path.join(app, "onnxruntime_providers_cuda.dll")
    make_dll(dll, AMD64, ["KERNEL32.dll", "cudnn64_8.dll", "cublas64_12.dll", "cudart64_12.dll"])
    rc, r = doctor(["--windows-dll", dll, "--windows-path", os.path.join(root, "bin") + ";" + cuda])
    f = verdicts(r, "win-imports", "fail")
    check(rc == 1 and len(f) == 1 and "cudart64_12.dll" in f[0]["message"], "windows-dll: missing import %s" % f)
    make_dll(os.path.join(cuda, "cudart64_12.dll"), AMD64, ["KERNEL32.dll"])
    rc, r = doctor(["--windows-dir", root, "--windows-dll", dll, "--windows-path", cuda])
    check(rc == 0 and len(verdicts(r, "win-imports", "ok")) == 1, "windows-dll: all found %s" % r["verdicts"])


def scenario_windows_cuda11(tmp):
    root, cuda = windows_archive(tmp, ("KERNEL32.dll", "zlibwapi.dll", "cublas64_11.dll", "cublasLt64_11.dll"))
    make_dll(os.path.join(cuda, "zlibwapi.dll"), AMD64, ["KERNEL32.dll"])
    make_dll(os.path.join(cuda, "cublas64_11.dll"), AMD64, ["KERNEL32.dll"])
    make_dll(os.path.join(cuda, "cublasLt64_11.dll"), AMD64, ["KERNEL32.dll"])
    rc, r = doctor(["--windows-dir", root, "--windows-path", cuda])
    f = verdicts(r, "win-cuda", "fail")
    check(rc == 1 and len(f) >= 1 and "CUDA 11" in " ".join(x["message"] for x in f), "windows: CUDA major %s" % f)


def scenario_pe_damaged(tmp):
    """The PE reader on damaged copies of hand-made DLLs (parse_fuzz.c)."""
    global skipped
    if PARSE_FUZZ is None:
        skipped += 1
        return
    a, b = os.path.join(tmp, "a.dll"), os.path.join(tmp, "b.dll")
    make_dll(a, AMD64, ["KERNEL32.dll", "zlibwapi.dll"], delay=["nvrtc64_120_0.dll"], version=(8, 9, 4, 25))
    make_dll(b, I386, ["KERNEL32.dll"])
    p = subprocess.run([PARSE_FUZZ, "pe", a, b], capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "PE reader on damaged files: %s %s" % (p.stdout, p.stderr[-2000:]))


def scenario_nvidia9(tmp):
    global skipped
    lib9 = "/usr/local/cuda/lib64"
    if not os.path.exists(os.path.join(lib9, "libcudnn.so.9")):
        skipped += 1
        print("SKIP: NVIDIA cuDNN 9 not in /usr/local/cuda/lib64")
        return
    rc, r = doctor([], ld_path=lib9)
    w = winner(r, "libcudnn.so.9")
    check(w is not None and w["version"] is not None and w["version"].startswith("9."), "cuDNN 9: version 9.x")
    check(w is not None and not w["probe"]["freednn"] and w["probe"]["cudart"] > 0, "cuDNN 9: probe")
    st = r["selftest"]
    check(st is not None and st["result"] in ("no GPU/device", "pass"), "cuDNN 9: self-test %s" % st)
    if st is not None and st["result"] == "no GPU/device":
        check(len(verdicts(r, "selftest", "skip")) == 1, "cuDNN 9: missing GPU reported as skip")
    # The ld.so.cache reader against ldconfig: where the cache lists
    # libcudnn.so.9, the doctor (without --no-system) finds that file.
    ldconfig = shutil.which("ldconfig") or ("/sbin/ldconfig" if os.path.exists("/sbin/ldconfig") else None)
    if ldconfig is None:
        return
    p = subprocess.run([ldconfig, "-p"], capture_output=True, text=True)
    listed = [ln.split("=>")[1].strip() for ln in p.stdout.splitlines() if ln.strip().startswith("libcudnn.so.9 ")]
    if listed:
        env = clean_env()
        q = subprocess.run([DOCTOR, "--json", "--no-probe"], env=env, capture_output=True, text=True, timeout=120)
        w = winner(json.loads(q.stdout), "libcudnn.so.9")
        check(w is not None and os.path.realpath(w["path"]) == os.path.realpath(listed[0]) and
              w["origin"].startswith("ld.so.cache"), "ld.so.cache: same file as ldconfig -p")


# ---- issue #15: the loader model against the real loader, and the defects ----

TRUTH_SRC = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
/* What the real loader does: dlopen NAME by name, print the file that
 * answers cudnnGetVersion, or the loader's error. */
int main(int argc, char **argv)
{
    void *h = dlopen(argc > 1 ? argv[1] : "libcudnn.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        printf("ERROR %s\n", dlerror());
        return 0;
    }
    Dl_info info;
    char real[PATH_MAX];
    void *f = dlsym(h, "cudnnGetVersion");
    if (f != NULL && dladdr(f, &info) && realpath(info.dli_fname, real) != NULL)
        printf("%s\n", real);
    return 0;
}
"""


def build_truth(path, rpath=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    src = path + ".c"
    open(src, "w").write(TRUTH_SRC)
    cmd = [CC, "-o", path, src, "-ldl"]
    if rpath:
        cmd += ["-Wl,--enable-new-dtags", "-Wl,-rpath," + rpath]
    subprocess.run(cmd, check=True)
    os.chmod(path, 0o755)
    return path


def truth(prog, ld_path="", cwd=None, user=None):
    p = subprocess.run([prog], env=clean_env(ld_path), capture_output=True, text=True, cwd=cwd, preexec_fn=user,
                       timeout=60)
    return p.stdout.strip()


def agree(what, prog, args, ld_path="", cwd=None, user=None, exe=None):
    """The doctor's winner for libcudnn.so.8 is the file the real loader
    loads, or both say nothing loads.  Returns the doctor's report."""
    t = truth(prog, ld_path, cwd, user)
    rc, r = doctor(["--no-probe"] + args, ld_path=ld_path, cwd=cwd, user=user, exe=exe)
    w = winner(r, "libcudnn.so.8")
    if t.startswith("ERROR"):
        check(w is None or not w["loadable"], "%s: the loader fails (%s) but the doctor loads %s" % (what, t, w))
    else:
        got = os.path.realpath(w["path"]) if w else None
        check(got == t, "%s: the loader loads %s, the doctor says %s" % (what, t, got))
    return t, rc, r


SANITIZED = os.environ.get("DOCTOR_SANITIZED") == "1"


def skip_when_sanitized(what):
    """True (and counted as skipped) in a sanitizer build, whose libraries a
    plain program cannot load and before whose runtime nothing may be
    preloaded."""
    global skipped
    if SANITIZED:
        skipped += 1
        print("SKIP: %s (sanitizer build)" % what)
    return SANITIZED


def scenario_loader_model(tmp):
    """#3, #4, #9: the doctor's search against glibc's, case by case."""
    if skip_when_sanitized("the loader model against a plain program's dlopen"):
        return
    os.chmod(tmp, 0o755)
    good = install_freednn(os.path.join(tmp, "good"))
    prog = build_truth(os.path.join(tmp, "truth"))
    # An empty LD_LIBRARY_PATH element is the current folder.
    cwd = os.path.join(tmp, "cwd")
    fake_lib(cwd, "libcudnn.so.8", 8600)
    t, rc, r = agree("empty element", prog, [], ld_path=":" + good, cwd=cwd)
    check(t.startswith(cwd), "empty element: the real loader takes the current folder (%s)" % t)
    agree("trailing ':'", prog, [], ld_path=good + ":", cwd=cwd)
    # glibc-hwcaps subfolders come before the folder itself.
    hw = os.path.join(tmp, "hw")
    fake_lib(os.path.join(hw, "glibc-hwcaps", "x86-64-v2"), "libcudnn.so.8", 8700)
    fake_lib(hw, "libcudnn.so.8", 8600)
    agree("glibc-hwcaps", prog, [], ld_path=hw)
    # $ORIGIN, $LIB and $PLATFORM in a program's RUNPATH.
    app = os.path.join(tmp, "app")
    for sub, v in (("lib/x86_64-linux-gnu", 8700), ("lib64", 8800), ("lib/aarch64-linux-gnu", 8700),
                   ("p/x86_64", 8500), ("p/aarch64", 8500)):
        fake_lib(os.path.join(app, sub), "libcudnn.so.8", v)
    for tag, rp in (("lib", "$ORIGIN/../$LIB"), ("platform", "$ORIGIN/../p/${PLATFORM}")):
        exe = build_truth(os.path.join(app, "bin", "truth_" + tag), rp)
        t, rc, r = agree("RUNPATH " + rp, exe, ["--for", exe])
        check(not t.startswith("ERROR"), "RUNPATH %s: the real loader finds a copy (%s)" % (rp, t))
    # A folder or a link loop named libcudnn.so.8 stops the loader.
    for tag in ("dir", "loop"):
        bad = os.path.join(tmp, "bad_" + tag)
        os.makedirs(bad)
        if tag == "dir":
            os.makedirs(os.path.join(bad, "libcudnn.so.8"))
        else:
            os.symlink("libcudnn.so.8", os.path.join(bad, "libcudnn.so.8"))
        t, rc, r = agree(tag, prog, [], ld_path=bad + ":" + good)
        check(t.startswith("ERROR"), "%s: the real loader stops (%s)" % (tag, t))
        rc, r = doctor([], ld_path=bad + ":" + good)
        f = verdicts(r, "found", "fail")
        check(rc == 1 and len(f) == 1 and "remove or rename" in (f[0]["fix"] or ""), "%s: found fails %s" % (tag, f))
    # An unreadable copy is skipped (as `nobody` when the tests run as root,
    # with a copy of the doctor that `nobody` can run).
    user = as_nobody if os.geteuid() == 0 else None
    exe = os.path.join(tmp, "cudnn-doctor")
    shutil.copy(DOCTOR, exe)
    os.chmod(exe, 0o755)
    if user and subprocess.run([exe, "--help"], capture_output=True, preexec_fn=user).returncode != 0:
        global skipped
        skipped += 1
        print("SKIP: unreadable files: `nobody` cannot reach the temporary folder")
        return
    for root, _, files in os.walk(tmp):
        for n in files:
            if not os.path.islink(os.path.join(root, n)):
                os.chmod(os.path.join(root, n), 0o755)
    locked = os.path.join(tmp, "locked")
    fake_lib(locked, "libcudnn.so.8", 8600)
    os.chmod(os.path.join(locked, "libcudnn.so.8.6.0"), 0o600 if user else 0o000)
    for root, dirs, _ in os.walk(tmp):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    t, rc, r = agree("unreadable", prog, [], ld_path=locked + ":" + good, user=user, exe=exe)
    check(t.startswith(os.path.realpath(good)), "unreadable: the real loader goes on (%s)" % t)
    rc, r = doctor([], ld_path=locked + ":" + good, user=user, exe=exe)
    f = verdicts(r, "file", "warn")
    check(len(f) == 1 and "chmod a+r" in f[0]["fix"], "unreadable: warned with chmod a+r %s" % f)
    rc, r = doctor([], ld_path=locked, user=user, exe=exe)
    f = verdicts(r, "found", "fail")
    check(rc == 1 and len(f) == 1 and "chmod a+r" in f[0]["fix"] and "replace" not in f[0]["fix"],
          "unreadable only copy: chmod fix %s" % f)


def scenario_many_places(tmp):
    """#9: more than 96 search places; non-UTF-8 folder names in the JSON."""
    dirs = []
    for i in range(130):
        d = os.path.join(tmp, "d%03d" % i)
        os.makedirs(d)
        dirs.append(d)
    odd = os.path.join(tmp.encode(), b"odd-\xed\xa0\x80-\xff-\xc0\xaf")
    os.makedirs(odd)
    libdir = install_freednn(odd.decode("utf-8", "surrogateescape"))
    rc, r = doctor(["--no-selftest"], ld_path=":".join(dirs) + ":" + libdir)
    w = winner(r, "libcudnn.so.8")
    check(rc == 0 and w is not None and "odd-" in w["path"], "131 places: the last one is searched, JSON valid")


def scenario_expect_major(tmp):
    """#5, #7: --for a program linking cuDNN 9 with --expect 8.9; libcudnn.so.8
    that is cuDNN 9.19; malformed --expect."""
    good = install_freednn(os.path.join(tmp, "good"))
    nine = os.path.join(tmp, "nine")
    fake_lib(nine, "libcudnn.so.9", 91900)
    src = os.path.join(tmp, "main.c")
    open(src, "w").write("int main(void) { return 0; }\n")
    app = os.path.join(tmp, "app9")
    subprocess.run([CC, "-o", app, src, "-L" + nine, "-Wl,--no-as-needed", "-l:libcudnn.so.9"], check=True)
    rc, r = doctor(["--for", app, "--expect", "8.9", "--no-selftest"], ld_path=good + ":" + nine)
    f = verdicts(r, "expect", "fail")
    check(rc == 1 and any("links libcudnn.so.9" in v["message"] for v in f), "for+expect: major conflict %s" % f)
    for bad in ("8.x", "eight", "8.9.4.1", ""):
        rc, r = doctor(["--expect", bad], ld_path=good)
        check(rc == 2, "--expect %r: usage error 2, got %d" % (bad, rc))
    # libcudnn.so.8 -> a cuDNN 9.19 library, with 8.9.4 headers.
    so8 = os.path.join(tmp, "so8")
    fake_lib(so8, "libcudnn.so.9", 91900)
    os.symlink("libcudnn.so.9.19.0", os.path.join(so8, "libcudnn.so.8"))
    rc, r = doctor(["--expect", "8.9", "--include", os.path.join(tmp, "good", "include"), "--no-selftest"],
                   ld_path=so8)
    f = verdicts(r, "file", "fail")
    check(rc == 1 and any("9.19.0" in v["message"] and "cannot run on it" in v["message"] for v in f),
          "so.8 -> 9.19: a failure, not a warning %s" % f)
    e = verdicts(r, "expect", "fail")
    check(e and "older" not in e[0]["message"] and "another major" in e[0]["message"], "9.19 wording %s" % e)
    h = verdicts(r, "header", "fail")
    check(h and "9.19" not in (h[0]["fix"] or "") and "cuDNN 8" in h[0]["fix"], "header fix %s" % h)


def scenario_build_pairs(tmp):
    """#5: header/library pairs across majors, -lcudnn links elsewhere."""
    good = install_freednn(os.path.join(tmp, "good"))
    nine = os.path.join(tmp, "nine")
    fake_lib(nine, "libcudnn.so.9", 91900)
    os.symlink(os.path.join(nine, "libcudnn.so.9"), os.path.join(good, "libcudnn.so"))
    rc, r = doctor(["--no-selftest"], ld_path=good)
    f = verdicts(r, "header-pair", "fail")
    check(rc == 1 and len(f) == 1 and "libcudnn.so.9" in f[0]["message"], "8.9 header beside a cuDNN 9 -lcudnn %s" % f)
    os.remove(os.path.join(good, "libcudnn.so"))
    os.symlink("libcudnn.so.8", os.path.join(good, "libcudnn.so"))
    rc, r = doctor(["--no-selftest"], ld_path=good)
    check(rc == 0 and len(verdicts(r, "devlink", "ok")) == 1, "matching dev link %s" % verdicts(r, "devlink"))
    # LIBRARY_PATH holds a libcudnn.so of cuDNN 9 while 8.9 is expected.
    os.symlink("libcudnn.so.9", os.path.join(nine, "libcudnn.so"))
    rc, r = doctor(["--no-selftest", "--expect", "8.9"], ld_path=good, env_extra={"LIBRARY_PATH": nine})
    f = verdicts(r, "devlink", "fail")
    check(rc == 1 and len(f) == 1 and "LIBRARY_PATH" in f[0]["message"], "LIBRARY_PATH dev link %s" % f)
    # A toolkit libcudnn.so of a newer 8.x than the one that loads.
    cuda = os.path.join(tmp, "cuda")
    fake_lib(os.path.join(cuda, "lib64"), "libcudnn.so.8", 8907 * 1)
    os.symlink("libcudnn.so.8", os.path.join(cuda, "lib64", "libcudnn.so"))
    old = os.path.join(tmp, "old")
    fake_lib(old, "libcudnn.so.8", 8600)
    rc, r = doctor(["--no-selftest"], ld_path=old, env_extra={"CUDA_HOME": cuda})
    f = verdicts(r, "devlink", "fail")
    check(len(f) == 1 and "8.9.7" in f[0]["message"] and "8.6.0" in f[0]["message"], "toolkit dev link %s" % f)


def scenario_pip_sublib(tmp):
    """#6: pip layout (no version in the file names): a sub-library of
    another version, and one whose own version check fails."""
    lib = os.path.join(tmp, "site", "nvidia", "cudnn", "lib")
    os.makedirs(lib)
    for name in ["cudnn"] + ["cudnn_" + s for s in SUBLIBS8]:
        shutil.copy(os.path.join(LIBDIR, "lib%s.so.8.9.4" % name), os.path.join(lib, "lib%s.so.8" % name))
    os.remove(os.path.join(lib, "libcudnn_cnn_infer.so.8"))
    fake_lib(lib, "libcudnn_cnn_infer.so.8", 8600, plain=True)
    rc, r = doctor(["--no-selftest"], ld_path=lib)
    f = verdicts(r, "sublib-mix", "fail")
    check(rc == 1 and any("8.6.0" in v["message"] for v in f), "pip: an 8.6 sub-library is a mix %s" % f)
    os.remove(os.path.join(lib, "libcudnn_cnn_infer.so.8"))
    fake_lib(lib, "libcudnn_cnn_infer.so.8", 8904, plain=True, extra_flags=["-DCHECK_STATUS=14"])
    rc, r = doctor(["--no-selftest"], ld_path=lib)
    f = verdicts(r, "sublib-mix", "fail")
    check(rc == 1 and any("cudnnCnnInferVersionCheck" in v["message"] for v in f), "pip: own check fails %s" % f)


def scenario_small(tmp):
    """#9: LD_PRELOAD, --ld-cache, process group, the archive's own lib/, --help."""
    good = install_freednn(os.path.join(tmp, "good"))
    old = os.path.join(tmp, "old")
    fake_lib(old, "libcudnn.so.8", 8600)
    if not skip_when_sanitized("LD_PRELOAD"):
        rc, r = doctor([], ld_path=good, env_extra={"LD_PRELOAD": os.path.join(old, "libcudnn.so.8")})
        w = winner(r, "libcudnn_ops_infer.so.8")
        check(len(verdicts(r, "preload", "warn")) == 1, "LD_PRELOAD: warned")
        check(rc == 0 and w is not None and w["probe"]["version_from"].startswith(os.path.realpath(good)) and
              verdicts(r, "sublib-mix", "fail") == [], "LD_PRELOAD: does not leak into the probes %s" %
              [v for v in r["verdicts"] if v["level"] == "fail"])
    rc, r = doctor(["--ld-cache", os.path.join(tmp, "no-such-cache")], ld_path=good)
    check(rc == 2, "unreadable --ld-cache: usage error, got %d" % rc)
    killer = os.path.join(tmp, "killer")
    fake_lib(killer, "libcudnn.so.8", 8904, extra_flags=["-DKILL_GROUP"])
    rc, r = doctor(["--no-selftest"], ld_path=killer)
    w = winner(r, "libcudnn.so.8")
    check(rc == 1 and w is not None and w["probe"]["signal"] != 0, "kill(0): the doctor survives %s" % (w or {}).get("probe"))
    arch = os.path.join(tmp, "arch")
    install_freednn(arch)
    os.makedirs(os.path.join(arch, "bin"))
    shutil.copy(DOCTOR, os.path.join(arch, "bin", "cudnn-doctor"))
    rc, r = doctor(["--no-selftest"], exe=os.path.join(arch, "bin", "cudnn-doctor"))
    f = verdicts(r, "found", "warn")
    check(len(f) == 1 and os.path.join(arch, "lib") in f[0]["message"], "archive doctor sees ../lib %s" % f)
    p = subprocess.run([DOCTOR, "--help"], capture_output=True, text=True)
    check(p.returncode == 0 and "Exit status" in p.stdout and "Examples" in p.stdout and "up to 8 times" in p.stdout,
          "--help: exit codes, examples, repeat limit")
    rc, r = doctor(sum((["--search", tmp] for _ in range(9)), []))
    check(rc == 2, "a 9th --search: usage error")


def scenario_windows_defects(tmp):
    """#1, #2, #9: a truncated DLL, cudart64_110.dll, a trailing '/' on PATH."""
    root, cuda = windows_archive(tmp)
    make_dll(os.path.join(cuda, "zlibwapi.dll"), AMD64, ["KERNEL32.dll"])
    ops = os.path.join(root, "bin", "cudnn_ops_infer64_8.dll")
    data = open(ops, "rb").read()
    open(ops, "wb").write(data[:0x200 + 30])
    rc, r = doctor(["--windows-dir", root, "--windows-path", cuda])
    f = verdicts(r, "win-file", "fail")
    check(rc == 1 and len(f) == 1 and "truncated" in f[0]["message"], "truncated DLL %s" % f)
    check(all(i for d in r["windows"] for i in d["imports"]), "no empty import names")
    # A healthy CUDA 11.8 provider: cudart64_110.dll is CUDA 11.
    app = os.path.join(tmp, "app")
    os.makedirs(app)
    dll = os.path.join(app, "onnxruntime_providers_cuda.dll")
    make_dll(dll, AMD64, ["KERNEL32.dll", "cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll",
                          "nvrtc64_112_0.dll"])
    c11 = os.path.join(tmp, "cuda11")
    os.makedirs(c11)
    for n in ("cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "nvrtc64_112_0.dll"):
        make_dll(os.path.join(c11, n), AMD64, ["KERNEL32.dll"])
    rc, r = doctor(["--windows-dll", dll, "--windows-path", c11])
    check(rc == 0 and verdicts(r, "win-cuda", "fail") == [] and
          any("CUDA 11" in v["message"] for v in verdicts(r, "win-cuda", "ok")), "cudart64_110.dll is CUDA 11 %s" %
          verdicts(r, "win-cuda"))
    # PATH order with a trailing '/': the stale copy listed first wins.
    root2, cuda2 = windows_archive(os.path.join(tmp, "two"))
    stale = os.path.join(tmp, "stale")
    os.makedirs(stale)
    make_dll(os.path.join(stale, "cudnn64_8.dll"), AMD64, ["KERNEL32.dll"], version=(8, 2, 0, 53))
    rc, r = doctor(["--windows-dir", root2, "--windows-path", stale + ";" + os.path.join(root2, "bin") + "/;" + cuda2])
    d = [x for x in r["windows"] if x["dll"] == "cudnn64_8.dll"]
    check(d and d[0]["path"].startswith(stale), "trailing '/': PATH order kept %s" % (d and d[0]["path"]))


def scenario_nvrtc_cuda11(tmp):
    """#8: cuDNN 8 for CUDA 11 opens libnvrtc.so, which is what to ask for."""
    libdir = os.path.join(tmp, "lib")
    for name in ["libcudnn.so.8"] + ["libcudnn_%s.so.8" % s for s in SUBLIBS8]:
        fake_lib(libdir, name, 8904, cudart=11080)
    rc, r = doctor(["--no-selftest", "--ld-cache", "none"], ld_path=libdir)
    deps = [v["message"] for v in verdicts(r, "deps", "fail")]
    check(any("opens libnvrtc.so " in m for m in deps) and not any("libnvrtc.so.11" in m for m in deps),
          "CUDA 11: asks for libnvrtc.so %s" % deps)


def workspace(args, ld_path="", env_extra=None):
    env = clean_env(ld_path)
    env.update(env_extra or {})
    p = subprocess.run([DOCTOR, "workspace", "--json", "--no-system", "--timeout", "60"] + args, env=env,
                       capture_output=True, timeout=300)
    try:
        return p.returncode, json.loads(p.stdout.decode("utf-8"))
    except ValueError:
        if p.returncode != 2:
            print("workspace output is not JSON:", p.stdout[:2000], p.stderr[:2000])
        return p.returncode, None


def scenario_workspace(tmp):
    """The fifth failure: every algorithm's workspace for one problem, the
    free memory, what fits, the fixes; honest "no GPU" on NVIDIA's."""
    libdir = install_freednn(tmp)
    # The problem string as the library logs it (fdnn_conv_problem_to_string).
    logged = ("conv dir=fwd dt=f32 mb=8 ic=32 oc=64 g=1 ih=28 iw=28 kh=3 kw=3 sh=1 sw=1 ph=1 pw=1 dh=1 dw=1 "
              "mode=xcorr x=nchw w=nchw y=nchw")
    rc, r = workspace([logged.replace("dir=fwd", "dir=fwd,bwd")], ld_path=libdir)
    check(r is not None and r["freednn"] and r["memory"] and r["memory"]["free"] > 0, "workspace: host memory %s" % r)
    dirs = {d["dir"]: d for d in (r or {}).get("directions", [])}
    check(sorted(dirs) == ["bwd_d", "bwd_w", "fwd"] and [len(dirs[k]["algorithms"]) for k in ("fwd", "bwd_d", "bwd_w")]
          == [8, 6, 7], "workspace: every algorithm of the three directions")
    ok = [a for d in dirs.values() for a in d["algorithms"] if a["status"] == 0]
    check(ok and all(isinstance(a["workspace"], int) and a["fits"] is not None for a in ok),
          "workspace: sizes and fits for the available algorithms")
    check(rc == 0 and all(d["heuristic_pick"] is not None for d in dirs.values()), "workspace: picks fit, exit 0")
    # Planning for 1 KiB of free memory: the picks that need more do not fit.
    need = max([d["heuristic_pick"]["workspace"] for d in dirs.values() if d["heuristic_pick"]] + [0])
    rc, r = workspace(["--free", "0.001", logged.replace("dir=fwd", "dir=fwd,bwd")], ld_path=libdir)
    if need > 1024:
        check(rc == 1 and r and any("CUDNN_CONV_WSCAP_DBG" in f for f in r["fixes"]) and
              any("batch" in f for f in r["fixes"]), "workspace: a pick that does not fit, the fixes %s" %
              (r or {}).get("fixes"))
    else:
        check(rc == 0 and r and r["fixes"] == [], "workspace: zero-workspace picks fit anywhere")
    # A freednn-bench line works too; bad problems are usage errors.
    rc, r = workspace(["conv r50 mb=1 ic=3 oc=64 ih=224 iw=224 kh=7 kw=7 sh=2 sw=2 ph=3 pw=3"], ld_path=libdir)
    check(rc == 0 and r and r["problem"].startswith("conv dir=fwd dt=f32 mb=1 ic=3 oc=64"), "workspace: bench line")
    for bad in ("conv mb=0 ic=3 oc=8 ih=8 iw=8 kh=3 kw=3", "conv mb=1 ic=3 oc=8 ih=2 iw=2 kh=5 kw=5",
                "conv mb=1 ic=3 oc=8 ih=8 iw=8 dt=q8"):
        rc, r = workspace([bad], ld_path=libdir)
        check(rc == 2, "workspace %r: usage error, got %d" % (bad, rc))
    # NVIDIA-style library without a GPU: "no GPU", not a failure.
    folder = os.path.join(tmp, "nogpu")
    os.makedirs(folder)
    src = os.path.join(folder, "conv.c")
    open(src, "w").write(FAKE_CONV_SRC)
    subprocess.run([CC, "-shared", "-fPIC", "-w", "-o", os.path.join(folder, "libcudnn.so.8"), src, "-DMODE=2",
                    "-Wl,-soname,libcudnn.so.8"], check=True)
    rc, r = workspace([logged], ld_path=folder)
    check(rc == 0 and r and r["no_gpu"] and not r["freednn"], "workspace: no GPU reported honestly %s" % r)
    lib9 = "/usr/local/cuda/lib64/libcudnn.so.9"
    if os.path.exists(lib9):
        rc, r = workspace(["--lib", lib9, logged])
        check(r is not None and r["loaded"] and (r["no_gpu"] or r["memory"] is not None),
              "workspace: NVIDIA's cuDNN 9 answers or says no GPU %s" % r)


def main():
    scenarios = [scenario_healthy, scenario_shadow, scenario_mixed, scenario_missing_sublib, scenario_header,
                 scenario_missing_dep, scenario_abort, scenario_selftest_outcomes, scenario_wrong_class, scenario_broken_files, scenario_nvidia_cuda_major, scenario_ld_cache, scenario_off_path, scenario_torch, scenario_tensorflow, scenario_for_binary,
                 scenario_windows, scenario_windows_freednn, scenario_windows_order, scenario_windows_dll, scenario_windows_cuda11, scenario_pe_damaged, scenario_nvidia9,
                 scenario_loader_model, scenario_many_places, scenario_expect_major, scenario_build_pairs,
                 scenario_pip_sublib, scenario_small, scenario_windows_defects, scenario_nvrtc_cuda11, scenario_workspace]
    only = os.environ.get("DOCTOR_TEST")
    for s in scenarios:
        if only and only not in s.__name__:
            continue
        tmp = tempfile.mkdtemp(prefix="doctor-")
        try:
            s(tmp)
        except Exception as e:  # a broken scenario is a failure, not a crash
            global failed
            failed += 1
            print("FAIL: %s raised %r" % (s.__name__, e))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
