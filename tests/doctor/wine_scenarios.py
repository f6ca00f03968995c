# SPDX-License-Identifier: Apache-2.0
"""cudnn-doctor.exe under Wine: the Windows installations of issue #20.

Builds loadable fake DLLs with mingw-w64 (exports, imports and version
resources as the doctor reads them), lays them out in a temporary folder as
an unpacked archive, puts folders on the Windows PATH (WINEPATH, which Wine
puts first) and checks the doctor's verdicts and exit status:

  healthy      the archive's bin on PATH                       exit 0; the self-test
               in the probe child (passes on FreeDNN's real DLLs, fails on the fake
               shim that lacks the API); fake shims that compute the convolution
               right, wrong (zeros), or crash in it or in DllMain (the child
               dies, the doctor reports); --no-probe loads nothing
  missing      a copy without cudnn_adv_train64_8.dll          exit 1, win-found
  load126      ... and without the shim's cudart64_12.dll     exit 1, win-load (error 126), win-imports
  unpacked     the doctor run from the archive's bin/, which is not on PATH:
               exit 1, each win-found fix says to add that folder to PATH
  stale        an older cudnn64_8.dll (cudnnGetVersion 8600,
               no version resource) earlier on PATH           exit 1, win-shadow;
               the doctor loads both copies to read 8.6.0 / 8.9.4 and names the winner;
               --for app.exe whose folder holds that copy: found there first
  zlibwapi     NVIDIA-like DLLs importing zlibwapi.dll         exit 1, win-imports;
               exit 0 once a zlibwapi.dll is on PATH
  bitness      a 32-bit cudnn_ops_infer64_8.dll earlier on PATH exit 1, win-bitness
  cuda11       a sub-DLL importing cudart64_110.dll            exit 1, win-cuda

The healthy archive is FreeDNN-like fakes unless --freednn-bin DIR names
the bin folder of a real FreeDNN Windows build (then its DLLs are used for
the base archive and the scenarios that copy it).

usage: wine_scenarios.py DOCTOR_EXE [--freednn-bin DIR] [--keep]
Needs x86_64-w64-mingw32-gcc, i686-w64-mingw32-gcc (bitness scenario,
skipped without it), x86_64-w64-mingw32-windres and dlltool, and wine
(wine64).  The Wine prefix lives in the temporary folder unless WINEPREFIX
is set (a reused prefix saves about 10 s; the CTest doctor_wine uses the
build folder's wineprefix, as the other Wine tests do).  Loading is left out
(--no-probe) where the scenario is about files only.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SUB8 = ["cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll", "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll",
        "cudnn_adv_infer64_8.dll", "cudnn_adv_train64_8.dll"]
CC64, CC32 = "x86_64-w64-mingw32-gcc", "i686-w64-mingw32-gcc"
WINDRES, DLLTOOL = "x86_64-w64-mingw32-windres", "x86_64-w64-mingw32-dlltool"
passed = failed = skipped = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, flush=True)


def sym(dll):
    """The symbol a fake DLL exports for others to import."""
    return "fake_" + re.sub(r"[^a-z0-9]", "_", dll.lower())


def make_dll(work, out, imports=(), version=None, file_version=None, cudart=None, freednn=False, bits=64,
             program=False):
    """A loadable DLL named os.path.basename(out): exports cudnnGetVersion
    (when version) and the rest as asked, imports one symbol from each DLL
    in `imports` (through import libraries made with dlltool: the imported
    DLLs need not exist), and carries a VS_VERSIONINFO when file_version."""
    name = os.path.basename(out)
    base = os.path.join(work, "%s_%d_%d" % (name, bits, abs(hash((tuple(imports), version, file_version,
                                                                   cudart, freednn))) % 10**8))
    src = ["#include <stddef.h>", "__declspec(dllexport) int %s(void) { return 1; }" % sym(name)]
    if version is not None:
        src.append("__declspec(dllexport) size_t cudnnGetVersion(void) { return %d; }" % version)
    if cudart is not None:
        src.append("__declspec(dllexport) size_t cudnnGetCudartVersion(void) { return %d; }" % cudart)
    if freednn:
        src.append("__declspec(dllexport) int freednnSetIsa(void *h, const char *i) { (void)h; (void)i; return 0; }")
    libs = []
    for imp in imports:
        src.append("__declspec(dllimport) int %s(void);" % sym(imp))
        d = base + "_" + sym(imp) + ".def"
        with open(d, "w") as f:
            f.write("LIBRARY %s\nEXPORTS\n%s\n" % (imp, sym(imp)))
        lib = d[:-4] + ".a"
        subprocess.check_call([DLLTOOL, "-m", "i386:x86-64" if bits == 64 else "i386", "-d", d, "-l", lib])
        libs.append(lib)
    if imports:
        src.append("__declspec(dllexport) int fake_use(void) { return %s; }" %
                   " + ".join("%s()" % sym(i) for i in imports))
    if program:
        src.append("int main(void) { return 0; }")
    with open(base + ".c", "w") as f:
        f.write("\n".join(src) + "\n")
    objs = [base + ".c"]
    if file_version is not None:
        with open(base + ".rc", "w") as f:
            f.write("1 VERSIONINFO\nFILEVERSION %s\nPRODUCTVERSION %s\nBEGIN\nEND\n" %
                    (",".join(map(str, file_version)), ",".join(map(str, file_version))))
        subprocess.check_call([WINDRES, "-O", "coff", base + ".rc", "-o", base + "_rc.o"])
        objs.append(base + "_rc.o")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.check_call([CC64 if bits == 64 else CC32] + ([] if program else ["-shared"]) +
                          ["-O1", "-s", "-o", out] + objs + libs)


# A fake shim with the legacy convolution API, to drive the self-test in
# the probe child: MODE 1 computes zeros (wrong results), 3 computes the
# convolution (N=1 C=3 H=W=32 K=8 3x3, padding 1: the self-test's problem),
# 4 crashes inside cudnnConvolutionForward (the child dies, the doctor not),
# 5 crashes in its DllMain.
FAKE_CONV_SRC = r"""
#include <stddef.h>
#include <string.h>
#define X __declspec(dllexport)
static int dummy;
X size_t cudnnGetVersion(void) { return 8904; }
X size_t cudnnGetCudartVersion(void) { return 12020; }
X const char *cudnnGetErrorString(int s) { (void)s; return "CUDNN_STATUS_OTHER"; }
X int cudnnCreate(void **h) { *h = &dummy; return 0; }
X int cudnnDestroy(void *h) { (void)h; return 0; }
X int cudnnCreateTensorDescriptor(void **d) { *d = &dummy; return 0; }
X int cudnnCreateFilterDescriptor(void **d) { *d = &dummy; return 0; }
X int cudnnCreateConvolutionDescriptor(void **d) { *d = &dummy; return 0; }
X int cudnnDestroyTensorDescriptor(void *d) { (void)d; return 0; }
X int cudnnDestroyFilterDescriptor(void *d) { (void)d; return 0; }
X int cudnnDestroyConvolutionDescriptor(void *d) { (void)d; return 0; }
X int cudnnSetTensor4dDescriptor(void *d, int f, int t, int n, int c, int h, int w) { return 0; }
X int cudnnSetFilter4dDescriptor(void *d, int t, int f, int k, int c, int h, int w) { return 0; }
X int cudnnSetConvolution2dDescriptor(void *d, int a, int b, int c, int e, int f, int g, int m, int t) { return 0; }
X int cudnnGetConvolutionForwardWorkspaceSize(void *h, void *x, void *w, void *c, void *y, int a, size_t *s)
{ *s = 0; return 0; }
X int cudnnConvolutionForward(void *h, const void *al, void *xd, const void *xv, void *wd, const void *wv, void *cd,
                              int algo, void *ws, size_t wss, const void *be, void *yd, void *yv)
{
    const float *x = xv, *w = wv;
    float *y = yv, a = *(const float *)al, b = *(const float *)be;
    if (MODE == 4)
        *(volatile int *)0 = 1;
    for (int k = 0; k < 8; k++)
        for (int p = 0; p < 32; p++)
            for (int q = 0; q < 32; q++) {
                float acc = 0;
                for (int c = 0; c < 3; c++)
                    for (int r = 0; r < 3; r++)
                        for (int s = 0; s < 3; s++) {
                            int ih = p + r - 1, iw = q + s - 1;
                            if (ih >= 0 && ih < 32 && iw >= 0 && iw < 32)
                                acc += x[(c * 32 + ih) * 32 + iw] * w[((k * 3 + c) * 3 + r) * 3 + s];
                        }
                float *o = &y[(k * 32 + p) * 32 + q];
                *o = MODE == 1 ? 0.0f : a * acc + (b != 0 ? b * *o : 0.0f);
            }
    return 0;
}
X int freednnSetIsa(void *h, const char *isa) { (void)h; (void)isa; return 9; }
#if MODE == 5
#include <windows.h>
BOOL WINAPI DllMain(HINSTANCE h, DWORD why, LPVOID r)
{
    if (why == DLL_PROCESS_ATTACH)
        *(volatile int *)0 = 1;
    return TRUE;
}
#endif
"""


def make_conv_dll(work, out, mode):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    src = os.path.join(work, "conv%d.c" % mode)
    with open(src, "w") as f:
        f.write(FAKE_CONV_SRC)
    subprocess.check_call([CC64, "-shared", "-O1", "-w", "-DMODE=%d" % mode, "-o", out, src])


def freednn_archive(work, root, real_bin):
    """bin/ of a FreeDNN-like archive: the shim that holds everything (it
    exports freednnSetIsa: no zlib needed), six sub-DLLs that import it,
    and cudart64_12.dll."""
    b = os.path.join(root, "bin")
    os.makedirs(b, exist_ok=True)
    if real_bin:
        for f in os.listdir(real_bin):
            if f.lower().endswith(".dll"):
                shutil.copy(os.path.join(real_bin, f), b)
        return b
    make_dll(work, os.path.join(b, "cudart64_12.dll"), file_version=(12, 2, 140, 0))
    make_dll(work, os.path.join(b, "cudnn64_8.dll"), imports=["cudart64_12.dll"], version=8904, cudart=12020,
             freednn=True, file_version=(8, 9, 4, 0))
    for s in SUB8:
        make_dll(work, os.path.join(b, s), imports=["cudnn64_8.dll"], file_version=(8, 9, 4, 0))
    return b


class Wine:
    def __init__(self, tmp):
        self.env = dict(os.environ)
        self.private = "WINEPREFIX" not in self.env         # ours: the server may be killed at the end
        self.env.setdefault("WINEPREFIX", os.path.join(tmp, "wineprefix"))
        self.doctor_s = 0.0
        self.env["WINEDEBUG"] = "-all"
        self.env["LC_ALL"] = "C.UTF-8"                   # Unix names <-> UTF-16 as UTF-8
        self.env["WINEDLLOVERRIDES"] = "mscoree,mshtml="   # no Mono/Gecko prompts
        self.wine = shutil.which("wine64") or ("/usr/lib/wine/wine64" if os.path.exists("/usr/lib/wine/wine64")
                                               else shutil.which("wine"))
        self.server = shutil.which("wineserver") or shutil.which("wineserver64") or "/usr/lib/wine/wineserver64"

    def start(self):
        """One wineserver for all runs (each doctor run and each DLL probe
        is a Wine process; a server that stays up saves its start-up)."""
        subprocess.run([self.server, "-p" if self.private else "-p10"], env=self.env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        subprocess.run([self.wine, "cmd", "/c", "exit"], env=self.env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)

    def stop(self):
        """Ends our own server; a shared prefix's server (other tests may be
        using it) is left to end by itself."""
        if self.private:
            subprocess.run([self.server, "-k"], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @staticmethod
    def winpath(p):
        return "Z:" + os.path.abspath(p).replace("/", "\\")

    def doctor(self, exe, path_dirs, args=(), cwd=None, selftest=False):
        """Runs the doctor with path_dirs first on PATH.  The fake DLLs have
        no convolution API: the self-test runs only when asked."""
        env = dict(self.env)
        env["WINEPATH"] = ";".join(self.winpath(d) for d in path_dirs)
        t = time.time()
        args = list(args) + ([] if selftest else ["--no-selftest"])
        p = subprocess.run([self.wine, exe, "--json"] + args, env=env, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        self.doctor_s += time.time() - t
        out = p.stdout.decode("utf-8", "replace")
        try:
            report = json.loads(out[out.index("{"):])
        except ValueError:
            print("doctor output not JSON (rc %d): %s %s" % (p.returncode, out[:2000], p.stderr[-2000:]))
            report = {"verdicts": [], "windows": []}
        return p.returncode, report


def verdicts(r, check_name, level=None):
    return [v for v in r["verdicts"] if v["check"] == check_name and (level is None or v["level"] == level)]


def fails(r):
    return [(v["check"], v["message"]) for v in r["verdicts"] if v["level"] == "fail"]


def dll(r, name):
    d = [x for x in r["windows"] if x["dll"].lower() == name.lower()]
    return d[0] if d else None


def main():
    args = sys.argv[1:]
    keep = "--keep" in args
    real_bin = None
    if "--freednn-bin" in args:
        real_bin = os.path.abspath(args[args.index("--freednn-bin") + 1])
    exe = os.path.abspath(args[0])
    tmp = tempfile.mkdtemp(prefix="doctor-wine-")
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    wine = Wine(tmp)
    t0 = time.time()
    try:
        wine.start()
        t_wine = time.time() - t0
        # The doctor runs from its own folder (an application folder holding
        # no cuDNN), the current folder is the temporary root.
        app = os.path.join(tmp, "tools")
        os.makedirs(app)
        shutil.copy(exe, app)
        exe = os.path.join(app, os.path.basename(exe))
        root = os.path.join(tmp, "freednn-windows-x86_64-cudnn8.9.4-archive")
        b = freednn_archive(work, root, real_bin)

        # healthy: the archive's bin on PATH.
        rc, r = wine.doctor(exe, [b], cwd=tmp)
        check(rc == 0, "healthy: exit %d, %s" % (rc, fails(r)))
        check(len(verdicts(r, "win-found", "ok")) == 1, "healthy: all seven DLLs found")
        shim = dll(r, "cudnn64_8.dll")
        check(shim is not None and shim["path"] and shim["path"].lower().startswith(wine.winpath(b).lower()),
              "healthy: cudnn64_8.dll resolves to the archive's bin: %s" % (shim and shim["path"]))
        check(shim is not None and shim["probe"] and shim["probe"]["loaded"] and shim["probe"]["version"] == "8.9.4",
              "healthy: cudnn64_8.dll loads and reports 8.9.4: %s" % (shim and shim["probe"]))
        check(shim is not None and shim["freednn"], "healthy: FreeDNN's shim is recognised")
        check(len(verdicts(r, "win-zlib", "info")) == 1 and not verdicts(r, "win-imports", "fail"),
              "healthy: FreeDNN needs no zlibwapi.dll")
        # The self-test in the child: FreeDNN's real DLLs compute the
        # convolution bit-exactly; the fake shim lacks the API, which the
        # doctor must say rather than pass.
        rc, r = wine.doctor(exe, [b], cwd=tmp, selftest=True)
        st = verdicts(r, "selftest")
        if real_bin:
            check(rc == 0 and len(st) == 1 and st[0]["level"] == "ok" and r["selftest"]["result"] == "pass",
                  "selftest: FreeDNN's convolution %s %s" % (st, fails(r)))
        else:
            check(rc == 1 and len(st) == 1 and st[0]["level"] == "fail" and "legacy convolution API" in
                  st[0]["message"] and r["selftest"] and r["selftest"]["step"] == "dlsym",
                  "selftest: the fake shim's missing API is a failure %s" % st)
        # The self-test's outcomes through fake shims that compute.
        for mode, result, level in ((3, "pass", "ok"), (1, "wrong results", "fail"), (4, "error", "fail")):
            cb = os.path.join(tmp, "conv%d" % mode, "bin")
            shutil.copytree(b, cb)
            make_conv_dll(work, os.path.join(cb, "cudnn64_8.dll"), mode)
            rc, r = wine.doctor(exe, [cb], cwd=tmp, selftest=True)
            st = verdicts(r, "selftest", level)
            check(len(st) == 1 and r["selftest"] and r["selftest"]["result"] == result and
                  (mode != 4 or (r["selftest"]["step"] == "self-test process" and
                                 verdicts(r, "win-load", "ok"))),
                  "selftest mode %d: %s %s" % (mode, r["selftest"], st))
        cb = os.path.join(tmp, "conv5", "bin")
        shutil.copytree(b, cb)
        make_conv_dll(work, os.path.join(cb, "cudnn64_8.dll"), 5)
        rc, r = wine.doctor(exe, [cb], cwd=tmp, selftest=True)
        f = verdicts(r, "win-load", "fail")
        check(rc == 1 and len(f) == 1 and any(m in f[0]["message"] for m in ("exception 0xc0000005", "error 1114", "error 998"))
              and not verdicts(r, "selftest", "ok"), "DllMain crash: %s" % fails(r))
        rc, r = wine.doctor(exe, [b], ["--no-probe"], cwd=tmp)
        check(rc == 0 and not verdicts(r, "win-load") and not verdicts(r, "selftest"),
              "--no-probe: nothing loaded %s" % fails(r))
        order = [d["origin"] for d in r.get("windows_search_order", [])]
        check(order[:1] == ["system folder"] and "Windows folder" in order and "current folder" in order
              and order.index("current folder") < order.index("PATH"),
              "healthy: Windows search order %s" % order)

        # A folder name outside the ANSI code page, given as an option (the
        # doctor reads the UTF-16 command line) and printed as UTF-8 JSON.
        uni = os.path.join(tmp, "usu\u00e1rio Jos\u00e9 \u0436", "bin")
        shutil.copytree(b, uni)
        rc, r = wine.doctor(exe, [], ["--windows-dir", wine.winpath(uni), "--no-probe"], cwd=tmp)
        shim = dll(r, "cudnn64_8.dll")
        check(rc == 0 and shim is not None and "Jos\u00e9 \u0436" in (shim["path"] or ""),
              "unicode folder: exit %d, %s %s" % (rc, shim and shim["path"], fails(r)))

        # missing: a copy without one sub-DLL.
        miss = os.path.join(tmp, "missing", "bin")
        shutil.copytree(b, miss)
        os.remove(os.path.join(miss, "cudnn_adv_train64_8.dll"))
        rc, r = wine.doctor(exe, [miss], ["--no-probe"], cwd=tmp)
        f = verdicts(r, "win-found", "fail")
        check(rc == 1 and len(f) == 1 and "cudnn_adv_train64_8.dll" in f[0]["message"],
              "missing: exit %d, %s" % (rc, fails(r)))

        # The archive unpacked, its doctor run from its bin/ that is not on
        # PATH: the fix names that folder.
        own = os.path.join(tmp, "unpacked", "bin")
        shutil.copytree(b, own)
        shutil.copy(exe, own)
        rc, r = wine.doctor(os.path.join(own, os.path.basename(exe)), [], ["--no-probe"], cwd=tmp)
        f = verdicts(r, "win-found", "fail")
        check(rc == 1 and len(f) == 7 and all(wine.winpath(own).lower() in (v["fix"] or "").lower() for v in f),
              "own bin not on PATH: %s" % [v["fix"] for v in f][:1])

        # load126: the shim's own import (cudart64_12.dll) gone: it does not load.
        if not real_bin:
            os.remove(os.path.join(miss, "cudart64_12.dll"))
            rc, r = wine.doctor(exe, [miss], cwd=tmp)
            f = verdicts(r, "win-load", "fail")
            check(rc == 1 and len(f) == 1 and "error 126" in f[0]["message"] and
                  any("cudart64_12.dll" in v["message"] for v in verdicts(r, "win-imports", "fail")),
                  "load126: exit %d, %s" % (rc, fails(r)))

        # stale: an older cudnn64_8.dll earlier on PATH, known only by loading it.
        stale = os.path.join(tmp, "old-cudnn", "bin")
        make_dll(work, os.path.join(stale, "cudnn64_8.dll"), version=8600, cudart=11080)
        rc, r = wine.doctor(exe, [stale, b], cwd=tmp)
        shim = dll(r, "cudnn64_8.dll")
        check(rc == 1 and len(verdicts(r, "win-shadow", "fail")) == 1, "stale: exit %d, %s" % (rc, fails(r)))
        check(shim is not None and shim["path"].lower().startswith(wine.winpath(stale).lower())
              and shim["version"] == "8.6.0" and shim["probe"]["version"] == "8.6.0",
              "stale: the stale copy wins and reports 8.6.0: %s" % shim)
        check(shim is not None and len(shim["shadowed"]) == 1 and shim["shadowed_versions"][0].startswith("8.9.4"),
              "stale: the shadowed FreeDNN copy is listed with its version: %s" % shim)
        sh = verdicts(r, "win-shadow", "fail")
        check(sh and "8.6.0" in sh[0]["message"] and "8.9.4" in sh[0]["message"], "stale: message %s" % sh)
        # The old shim is not FreeDNN's: NVIDIA's 8.6 also wants zlibwapi.dll.
        check(any("zlibwapi" in v["message"] for v in verdicts(r, "win-imports", "fail")),
              "stale: an NVIDIA 8.6 shim needs zlibwapi.dll")
        # --for: a program whose own folder holds the old copy; its folder comes first.
        appdir = os.path.join(tmp, "app")
        make_dll(work, os.path.join(appdir, "app.exe"), imports=["cudnn64_8.dll"], program=True)
        shutil.copy(os.path.join(stale, "cudnn64_8.dll"), appdir)
        rc, r = wine.doctor(exe, [b], ["--for", os.path.join(appdir, "app.exe")], cwd=tmp)
        shim = dll(r, "cudnn64_8.dll")
        check(rc == 1 and shim is not None and shim["origin"] == "application folder" and shim["version"] == "8.6.0"
              and len(verdicts(r, "win-shadow", "fail")) == 1 and dll(r, "app.exe") is not None,
              "--for: the program's folder first: %s" % fails(r))

        # The same order the other way round: healthy again, the old copy listed as shadowed.
        rc, r = wine.doctor(exe, [b, stale], cwd=tmp)
        sh = verdicts(r, "win-shadow", "fail")
        check(rc == 1 and len(sh) == 1 and dll(r, "cudnn64_8.dll")["version"].startswith("8.9.4"),
              "stale later on PATH: still reported (a program that puts it first breaks): %s" % fails(r))

        # zlibwapi: NVIDIA-like DLLs (no freednnSetIsa) that import zlibwapi.dll.
        nv = os.path.join(tmp, "cudnn-windows-x86_64-8.9.4.25_cuda12-archive", "bin")
        make_dll(work, os.path.join(nv, "cudnn64_8.dll"), version=8904, cudart=12020, file_version=(8, 9, 4, 25))
        for s in SUB8:
            make_dll(work, os.path.join(nv, s), imports=["zlibwapi.dll"] if "cnn" in s else [],
                     file_version=(8, 9, 4, 25))
        rc, r = wine.doctor(exe, [nv], ["--no-probe"], cwd=tmp)
        f = verdicts(r, "win-imports", "fail")
        check(rc == 1 and f and all("zlibwapi.dll" in v["message"] for v in f),
              "zlibwapi: exit %d, %s" % (rc, fails(r)))
        zdir = os.path.join(tmp, "zlib")
        make_dll(work, os.path.join(zdir, "zlibwapi.dll"))
        rc, r = wine.doctor(exe, [nv, zdir], ["--no-probe"], cwd=tmp)
        check(rc == 0, "zlibwapi on PATH: healthy, got exit %d, %s" % (rc, fails(r)))

        # bitness: a 32-bit sub-DLL earlier on PATH (error 193).
        if shutil.which(CC32):
            x86 = os.path.join(tmp, "x86")
            make_dll(work, os.path.join(x86, "cudnn_ops_infer64_8.dll"), bits=32)
            rc, r = wine.doctor(exe, [x86, b], ["--no-probe"], cwd=tmp)
            f = verdicts(r, "win-bitness", "fail")
            check(rc == 1 and len(f) == 1 and "cudnn_ops_infer64_8.dll" in f[0]["message"] and "x86" in f[0]["message"],
                  "bitness: exit %d, %s" % (rc, fails(r)))
        else:
            global skipped
            skipped += 1
            print("SKIP: bitness (no %s)" % CC32)

        # cuda11: a sub-DLL of a CUDA 12 build imports the CUDA 11 runtime.
        c11 = os.path.join(tmp, "cuda11", "bin")
        shutil.copytree(b, c11)
        make_dll(work, os.path.join(c11, "cudnn_ops_infer64_8.dll"), imports=["cudnn64_8.dll", "cudart64_110.dll"],
                 file_version=(8, 9, 4, 0))
        rt11 = os.path.join(tmp, "cuda11-runtime")
        make_dll(work, os.path.join(rt11, "cudart64_110.dll"), file_version=(11, 8, 89, 0))
        rc, r = wine.doctor(exe, [c11, rt11], cwd=tmp)
        f = verdicts(r, "win-cuda", "fail")
        check(rc == 1 and f and "CUDA 11" in " ".join(v["message"] for v in f), "cuda11: exit %d, %s" % (rc, fails(r)))
        print("wine_scenarios: Wine ready in %.1f s, doctor runs %.1f s, building the DLLs %.1f s" %
              (t_wine, wine.doctor_s, time.time() - t0 - t_wine - wine.doctor_s))
    finally:
        wine.stop()
        if keep:
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("wine_scenarios: %d passed, %d failed, %d skipped in %.1f s" % (passed, failed, skipped, time.time() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
