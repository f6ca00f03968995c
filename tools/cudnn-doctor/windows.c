/* SPDX-License-Identifier: Apache-2.0
 * Checking a Windows cuDNN: which DLL each name resolves to under the
 * Windows search order, the machine of each DLL, and whether every DLL it
 * imports (statically or delay-loaded) can be found.  Ecosystem.md #1-#4,
 * #12, #14, #22, #23.  Two ways in:
 *
 * Modelled (--windows-dir / --windows-dll, on any system): a copied folder
 * and the search order the options give (standard DLL search order,
 * SafeDllSearchMode on):
 *   1. the application's folder (--windows-app);
 *   2. the system folder (--windows-system, a copy of System32);
 *   3. PATH, in order: --windows-path (';'-separated local folders); the
 *      cuDNN folder itself is searched first unless it is in that list.
 * Without --windows-system, the DLLs every Windows has (kernel32.dll, the
 * api-ms-win-* sets, the Visual C++ runtime, nvcuda.dll from the driver)
 * are taken as present.
 *
 * This machine (cudnn-doctor.exe run on Windows with neither option,
 * ctx->windows_host): the loader's own order, from plat_win32.c: the
 * application folder (--windows-app, none by default: the programs that use
 * cuDNN live elsewhere than the doctor), System32, the 16-bit system folder,
 * the Windows folder, the current folder, then PATH.  The system DLLs must
 * then really be there.
 *
 * On Windows (either way in), each copy of cudnn64_8.dll is also loaded (in
 * a child process) to ask cudnnGetVersion and cudnnGetCudartVersion, and the
 * winner runs the convolution self-test there (selftest.c), unless
 * --no-probe / --no-selftest.
 *
 * Names match case-insensitively.  Not modelled: KnownDLLs, DLLs a process
 * has already loaded, SetDllDirectory / AddDllDirectory (Python >= 3.8
 * uses the latter for extension modules: docs/install.md section 6). */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIRS 256
#define MAX_DLLS 96

struct wctx {
    struct dr_win_dir dirs[MAX_DIRS];
    int n_dirs;
    int n_dropped;                       /* folders past MAX_DIRS: said, not silently lost */
    bool have_system;
    struct dr_win_dll dlls[MAX_DLLS];    /* cuDNN DLLs first, then the dependencies found */
    bool walked[MAX_DLLS];               /* imports already checked */
    int missing_imports;
    int n_dlls;
    int n_cudnn;
    bool host;                           /* this machine's search order (plat_win32.c) */
    bool no_probe, no_selftest;
    int timeout_s;
    struct dr_selftest *st;              /* where the winner's self-test goes (main's) */
    char *st_lib;
    size_t st_lib_n;
};

static struct wctx W;

static const char *const family8[] = {"cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
                                      "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll",
                                      "cudnn_adv_infer64_8.dll", "cudnn_adv_train64_8.dll", NULL};
static const char *const family9[] = {"cudnn64_9.dll", "cudnn_graph64_9.dll", "cudnn_ops64_9.dll",
                                      "cudnn_cnn64_9.dll", "cudnn_adv64_9.dll", "cudnn_engines_precompiled64_9.dll",
                                      "cudnn_engines_runtime_compiled64_9.dll", "cudnn_heuristic64_9.dll", NULL};

static bool
is_system_dll(const char *name)
{
    static const char *const sys[] = {
        "kernel32.dll", "ntdll.dll", "user32.dll", "advapi32.dll", "gdi32.dll", "shell32.dll", "ole32.dll",
        "oleaut32.dll", "ws2_32.dll", "version.dll", "bcrypt.dll", "dbghelp.dll", "setupapi.dll", "psapi.dll",
        "shlwapi.dll", "crypt32.dll", "msvcrt.dll", "ucrtbase.dll", "msvcp140.dll", "msvcp140_1.dll",
        "msvcp140_2.dll", "vcruntime140.dll", "vcruntime140_1.dll", "vcomp140.dll", "concrt140.dll", "nvcuda.dll",
        "comdlg32.dll", "imm32.dll", "winmm.dll", "iphlpapi.dll", "secur32.dll", "rpcrt4.dll", "cfgmgr32.dll",
        "wintrust.dll", "normaliz.dll", "dxgi.dll", "d3d11.dll", "d3d12.dll", "nvml.dll", NULL};
    char lower[96];
    size_t i = 0;
    for (; name[i] != 0 && i + 1 < sizeof lower; i++)
        lower[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
    lower[i] = 0;
    if (dr_starts_with(lower, "api-ms-win-") || dr_starts_with(lower, "ext-ms-"))
        return true;                     /* API sets: resolved by the loader itself */
    if (W.have_system)
        return false;
    for (int k = 0; sys[k] != NULL; k++)
        if (strcmp(lower, sys[k]) == 0)
            return true;
    return false;
}

/* Windows folder names are compared as folders, not text: "C:/x/" and
 * "C:/x" (here: the copied folders on Linux) are one folder. */
static bool
same_dir(const char *a, const char *b)
{
    if (dr_plat_same_file(a, b))
        return true;
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && dr_plat_is_sep(a[la - 1]))
        la--;
    while (lb > 1 && dr_plat_is_sep(b[lb - 1]))
        lb--;
    return la == lb && strncmp(a, b, la) == 0;
}

static void
add_dir(const char *path, const char *origin)
{
    if (path[0] == 0)
        return;
    if (W.n_dirs >= MAX_DIRS) {
        W.n_dropped++;
        return;
    }
    for (int i = 0; i < W.n_dirs; i++)
        if (same_dir(W.dirs[i].path, path))
            return;                      /* a folder listed again adds nothing */
    dr_copy(W.dirs[W.n_dirs].path, DR_PATH, path);
    dr_copy(W.dirs[W.n_dirs].origin, sizeof W.dirs[0].origin, origin);
    W.n_dirs++;
}

static void
add_path_item(const char *item, void *arg)
{
    (void)arg;
    add_dir(item, "PATH");
}

static bool
same_file(const char *a, const char *b)
{
    return strcmp(a, b) == 0 || dr_plat_same_file(a, b);
}

/* The file named `name` (any case) in `dir`, written to out. */
static bool
find_in_dir(const char *dir, const char *name, char *out, size_t n)
{
    return dr_plat_find_nocase(dir, name, out, n);
}

static void
version_str(char *dst, size_t n, const struct dr_pe *pe)
{
    if (pe->has_version)
        dr_fmt(dst, n, "%d.%d.%d.%d", pe->file_version[0], pe->file_version[1], pe->file_version[2],
               pe->file_version[3]);
    else
        dr_copy(dst, n, "?");
}

/* Resolves `name` in search order; fills path/origin/shadowed. */
static void
resolve(const char *name, struct dr_win_dll *d)
{
    memset(d, 0, sizeof *d);
    dr_copy(d->name, sizeof d->name, name);
    for (int i = 0; i < W.n_dirs; i++) {
        char path[DR_PATH];
        if (!find_in_dir(W.dirs[i].path, name, path, sizeof path))
            continue;
        if (d->path[0] == 0) {
            dr_copy(d->path, sizeof d->path, path);
            dr_copy(d->origin, sizeof d->origin, W.dirs[i].origin);
        } else if (d->n_shadowed < DR_WIN_MAX_SHADOWED && !same_file(d->path, path)) {
            dr_copy(d->shadowed_origin[d->n_shadowed], sizeof d->shadowed_origin[0], W.dirs[i].origin);
            dr_copy(d->shadowed[d->n_shadowed++], DR_PATH, path);
        }
    }
    if (d->path[0] != 0) {
        dr_pe_read(d->path, &d->pe);
        version_str(d->version, sizeof d->version, &d->pe);
    }
}

static struct dr_win_dll *
lookup(const char *name)
{
    for (int i = 0; i < W.n_dlls; i++)
        if (dr_ieq(W.dlls[i].name, name))
            return &W.dlls[i];
    if (W.n_dlls >= MAX_DLLS)
        return NULL;
    struct dr_win_dll *d = &W.dlls[W.n_dlls++];
    resolve(name, d);
    return d;
}


/* The CUDA major a CUDA library's DLL name carries, in NVIDIA's naming:
 * cudart64_110.dll is the CUDA 11.0 ABI (every CUDA 11.x runtime keeps that
 * name), cudart64_101.dll is 10.1, cudart64_12.dll is 12 (from CUDA 12 the
 * name has the major only), nvrtc64_112_0.dll is 11.2, nvrtc64_120_0.dll is
 * 12.0, cudart64_80.dll (CUDA 8 and 9) is 8.0.  So three or more digits are
 * major and minor; two digits are the major from CUDA 10 on (10..49) and
 * major and minor before it (65, 75, 80, 90..92).  0 if not such a name. */
int
dr_win_cuda_major(const char *name)
{
    static const char *const prefixes[] = {"cublaslt64_", "cublas64_", "nvrtc64_", "cudart64_", NULL};
    char lower[64];
    size_t k = 0;
    for (; name[k] != 0 && k + 1 < sizeof lower; k++)
        lower[k] = (char)((name[k] >= 'A' && name[k] <= 'Z') ? name[k] + 32 : name[k]);
    lower[k] = 0;
    for (int i = 0; prefixes[i] != NULL; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(lower, prefixes[i], n) != 0)
            continue;
        const char *d = lower + n;
        size_t digits = strspn(d, "0123456789");
        if (digits == 0)
            return 0;
        int v = atoi(d);
        if (digits >= 3)
            return v / 10;
        return v >= 50 ? v / 10 : v;
    }
    return 0;
}

static void
check_imports(struct dr_win_dll *d, int depth, int *cuda_major, char *cuda_from, size_t cuda_from_n)
{
    if (d->path[0] == 0 || !d->pe.ok || depth > 3 || W.walked[d - W.dlls])
        return;
    W.walked[d - W.dlls] = true;
    for (int k = 0; k < d->pe.n_imports; k++) {
        const char *imp = d->pe.imports[k];
        bool delay = k >= d->pe.n_imports - d->pe.n_delay;
        int cm = dr_win_cuda_major(imp);
        if (cm > 0 && *cuda_major == 0) {
            *cuda_major = cm;
            dr_fmt(cuda_from, cuda_from_n, "%s imports %s", d->name, imp);
        } else if (cm > 0 && cm != *cuda_major) {
            dr_verdict(DR_FAIL, "win-cuda", "use DLLs of one CUDA major: the cuDNN build for your CUDA version and "
                       "the cuBLAS/NVRTC of that version",
                       "%s imports %s (CUDA %d) but %s (CUDA %d): CUDA majors are mixed", d->path, imp, cm, cuda_from,
                       *cuda_major);
        }
        if (is_system_dll(imp))
            continue;
        struct dr_win_dll *dep = lookup(imp);
        if (dep == NULL)
            continue;
        if (dep->path[0] == 0) {
            W.missing_imports++;
            char fix[600];
            if (dr_ieq(imp, "zlibwapi.dll"))
                dr_copy(fix, sizeof fix, "install zlib-wapi (64-bit zlibwapi.dll, e.g. conda libzlib-wapi) into the "
                        "cuDNN bin folder or a folder on PATH");
            else if (cm > 0)
                dr_fmt(fix, sizeof fix, "install the CUDA %d toolkit (or its redistributable %s) and put its bin "
                       "folder on PATH", cm, imp);
            else
                dr_fmt(fix, sizeof fix, "put %s in the application folder or a folder on PATH", imp);
            dr_verdict(DR_FAIL, "win-imports", fix,
                       "%s %s %s, which is not found: Windows fails with \"Could not load library %s. Error code "
                       "126\"", d->path, delay ? "delay-loads" : "imports", imp, d->name);
            continue;
        }
        if (dep->pe.ok && dep->pe.machine != 0x8664)
            continue;                    /* reported by the bitness check */
        if (W.host && (dr_starts_with(dep->origin, "system") || dr_starts_with(dep->origin, "16-bit") ||
                       dr_starts_with(dep->origin, "Windows")))
            continue;                    /* Windows' own DLLs: the system's business, not cuDNN's */
        check_imports(dep, depth + 1, cuda_major, cuda_from, cuda_from_n);
    }
}

/* "8.9.4.25" and "8.9.4" are one version: the first three numbers are
 * compared; an unknown version ("?") equals only another unknown one. */
static bool
same_version(const char *a, const char *b)
{
    int va[3] = {-1, -1, -1}, vb[3] = {-1, -1, -1};
    int na = sscanf(a, "%d.%d.%d", &va[0], &va[1], &va[2]), nb = sscanf(b, "%d.%d.%d", &vb[0], &vb[1], &vb[2]);
    if (na <= 0 || nb <= 0)
        return strcmp(a, b) == 0;
    return va[0] == vb[0] && va[1] == vb[1] && va[2] == vb[2];
}

/* On Windows, a copy is also loaded (in a child process) to ask its
 * version when the file carries none.  False where DLLs cannot load. */
static bool
probe_copy(const char *path, bool selftest, struct dr_win_probe *pr, char *version, size_t n)
{
    if (W.no_probe || !dr_plat_win_probe(path, selftest, W.timeout_s, pr))
        return false;
    if (strcmp(version, "?") == 0 && pr->loaded && pr->version > 0)
        dr_version_str(version, n, pr->version);
    return true;
}

/* What a failed LoadLibraryExW means, as the fix to give. */
static const char *
load_fix(unsigned long error)
{
    switch (error) {
    case 126: return "a DLL it imports is missing: see the win-imports verdicts, or run Dependencies on it";
    case 193: return "it is not a 64-bit DLL (or it is damaged): replace it with the x64 DLL from the archive";
    case 127: return "it lacks a function another DLL imports from it: use all DLLs from one cuDNN archive";
    case 1114: return "its start-up (DllMain) failed: reinstall it; see the library's own messages";
    case 998:
    case 0xC0000005ul: return "it crashed while loading (an access violation in its start-up): replace it with an "
                              "undamaged copy from the archive";
    default: return "replace it with the DLL from the archive";
    }
}

/* The cuDNN DLLs: found, versions, shadowing, imports, zlibwapi.  `bin`
 * is the folder checked (--windows-dir), NULL for this machine's order. */
static void
check_cudnn_folder(const char *bin, int *cuda_major, char *cuda_from, size_t cuda_from_n)
{
    char probe[DR_PATH];
    const char *const *family = family8;
    if (bin != NULL) {
        if (find_in_dir(bin, "cudnn64_9.dll", probe, sizeof probe) &&
            !find_in_dir(bin, "cudnn64_8.dll", probe, sizeof probe))
            family = family9;
    } else {
        static struct dr_win_dll d8, d9;   /* static: each is some kilobytes */
        resolve("cudnn64_8.dll", &d8);
        resolve("cudnn64_9.dll", &d9);
        if (d9.path[0] != 0 && d8.path[0] == 0)
            family = family9;
    }
    for (int i = 0; family[i] != NULL; i++)
        lookup(family[i]);
    W.n_cudnn = W.n_dlls;

    /* The shim's copies, loaded: the version the winner and every stale
     * copy report (#12), and whether the winner loads at all. */
    struct dr_win_dll *shim = &W.dlls[0];
    bool shim_loaded = shim->path[0] != 0 && shim->pe.ok &&
                       probe_copy(shim->path, !W.no_selftest, &shim->probe, shim->version, sizeof shim->version);
    if (shim_loaded) {
        for (int k = 0; k < shim->n_shadowed; k++) {
            struct dr_win_probe pr;
            struct dr_pe pe;
            dr_pe_read(shim->shadowed[k], &pe);
            version_str(shim->shadowed_version[k], sizeof shim->shadowed_version[0], &pe);
            if (pe.ok)
                probe_copy(shim->shadowed[k], false, &pr, shim->shadowed_version[k],
                           sizeof shim->shadowed_version[0]);
        }
        const struct dr_win_probe *p = &shim->probe;
        if (p->done && !p->loaded)
            dr_verdict(DR_FAIL, "win-load", load_fix(p->error), "%s does not load: error %lu (%s)", shim->path,
                       p->error, p->message);
        else if (p->done) {
            char pv[32];
            dr_version_str(pv, sizeof pv, p->version);
            dr_verdict(DR_OK, "win-load", NULL, "%s loads: cudnnGetVersion %s%s, CUDA runtime %ld.%ld", shim->path,
                       pv, p->is_freednn ? " (FreeDNN)" : "", p->cudart / 1000, (p->cudart % 1000) / 10);
        }
        if (p->done && p->loaded && !W.no_selftest) {
            dr_selftest_verdict(shim->path, &p->st);
            if (W.st != NULL) {
                *W.st = p->st;
                dr_copy(W.st_lib, W.st_lib_n, shim->path);
            }
        }
    }

    int missing = 0;
    char ref_version[48] = "";
    const char *ref_name = NULL;
    for (int i = 0; i < W.n_cudnn; i++) {
        struct dr_win_dll *d = &W.dlls[i];
        if (d->path[0] == 0) {
            missing++;
            char fix[400], own[DR_PATH], own_shim[DR_PATH];
            dr_plat_own_dir(own, sizeof own);
            if (shim->path[0] != 0)
                dr_fmt(fix, sizeof fix, "copy %s from the same cuDNN archive's bin folder next to %s", d->name,
                       shim->path);
            else if (W.host && own[0] != 0 && find_in_dir(own, family[0], own_shim, sizeof own_shim))
                dr_fmt(fix, sizeof fix, "add %s (the folder of this cudnn-doctor and its DLLs) to PATH", own);
            else
                dr_fmt(fix, sizeof fix, "put the bin folder of the cuDNN archive on PATH (it holds %s)", d->name);
            dr_verdict(DR_FAIL, "win-found", fix,
                       "%s is not found in the search order: \"Could not locate %s. Please make sure it is in your "
                       "library path!\"", d->name, d->name);
            continue;
        }
        if (!d->pe.ok) {
            dr_verdict(DR_FAIL, "win-file", "replace it with the DLL from the archive", "%s is not a valid DLL: %s",
                       d->path, d->pe.error);
            continue;
        }
        const char *v = d->version;
        if (strcmp(v, "?") != 0 && ref_name == NULL) {
            dr_copy(ref_version, sizeof ref_version, v);
            ref_name = d->path;
        } else if (strcmp(v, "?") != 0 && !same_version(v, ref_version)) {
            dr_verdict(DR_FAIL, "win-mix", "use all DLLs from one cuDNN archive",
                       "cuDNN DLLs of different versions are mixed: %s is %s but %s is %s", d->path, v, ref_name,
                       ref_version);
        }
        for (int k = 0; k < d->n_shadowed; k++) {
            if (d != shim || !shim_loaded) {
                struct dr_pe other;
                dr_pe_read(d->shadowed[k], &other);
                version_str(d->shadowed_version[k], sizeof d->shadowed_version[0], &other);
            }
            const char *ov = d->shadowed_version[k];
            bool differ = !same_version(ov, v);
            dr_verdict(differ ? DR_FAIL : DR_WARN, "win-shadow",
                       "remove the stale copy or move the folder you want earlier in PATH",
                       "%s resolves to %s (%s, %s) and shadows %s (%s)", d->name, d->path, v, d->origin,
                       d->shadowed[k], ov);
        }
    }
    if (missing == 0)
        dr_verdict(DR_OK, "win-found", NULL, "all %d cuDNN DLLs are found (%s)", W.n_cudnn, shim->path);

    for (int i = 0; i < W.n_cudnn; i++)
        check_imports(&W.dlls[i], 0, cuda_major, cuda_from, cuda_from_n);

    /* NVIDIA's cuDNN 8.3 to 8.9 opens zlibwapi.dll at run time even when
     * no DLL imports it (#3).  FreeDNN's DLLs (they export freednnSetIsa)
     * need no zlib. */
    bool freednn = shim->pe.exports_freednn || shim->probe.is_freednn;
    if (family == family8 && !freednn) {
        struct dr_win_dll *z = lookup("zlibwapi.dll");
        bool needs = true;
        int ma = 0, mi = 0;
        if (sscanf(shim->version, "%d.%d", &ma, &mi) == 2 && (ma != 8 || mi < 3))
            needs = false;
        if (W.host && shim->path[0] == 0)
            needs = false;               /* no cuDNN here at all: win-found says so */
        if (needs && z != NULL && z->path[0] == 0) {
            bool reported = false;
            for (int i = 0; i < W.n_cudnn; i++)
                for (int k = 0; k < W.dlls[i].pe.n_imports; k++)
                    reported |= dr_ieq(W.dlls[i].pe.imports[k], "zlibwapi.dll");
            W.missing_imports++;
            if (!reported)
                dr_verdict(DR_FAIL, "win-imports", "install zlib-wapi (64-bit zlibwapi.dll) into the cuDNN bin folder "
                           "or a folder on PATH",
                           "cuDNN 8.3-8.9 needs zlibwapi.dll and none is found: \"Could not locate zlibwapi.dll. "
                           "Please make sure it is in your library path!\"");
        }
    } else if (family == family8 && freednn && shim->path[0] != 0) {
        dr_verdict(DR_INFO, "win-zlib", NULL, "%s is FreeDNN's: no zlibwapi.dll is needed", shim->path);
    }
}

/* A DLL or program named on the command line, and what it imports. */
static void
check_given(const char *path, const char *origin, int *cuda_major, char *cuda_from, size_t cuda_from_n)
{
    if (W.n_dlls >= MAX_DLLS)
        return;
    struct dr_win_dll *d = &W.dlls[W.n_dlls++];
    memset(d, 0, sizeof *d);
    dr_copy(d->name, sizeof d->name, dr_basename(path));
    dr_copy(d->path, sizeof d->path, path);
    dr_copy(d->origin, sizeof d->origin, origin);
    dr_pe_read(d->path, &d->pe);
    version_str(d->version, sizeof d->version, &d->pe);
    if (!d->pe.ok)
        dr_verdict(DR_FAIL, "win-file", NULL, "%s is not a valid DLL: %s", d->path, d->pe.error);
    check_imports(d, 0, cuda_major, cuda_from, cuda_from_n);
}

static void
add_path_list(const char *list, bool *bin_listed, const char *bin)
{
    char item[DR_PATH];
    for (const char *p = list; p != NULL && *p != 0;) {
        size_t len = strcspn(p, ";");
        if (len > 0 && len < sizeof item) {
            memcpy(item, p, len);
            item[len] = 0;
            *bin_listed |= same_dir(item, bin);
        }
        p += len + (p[len] != 0);
    }
}

void
dr_check_windows(struct dr_ctx *ctx, struct dr_selftest *st, char *st_lib, size_t st_lib_n)
{
    const struct dr_options *o = &ctx->opt;
    char bin[DR_PATH] = "", app[DR_PATH];
    memset(&W, 0, sizeof W);
    W.host = ctx->windows_host;
    W.timeout_s = o->timeout_s;
    W.no_probe = o->no_probe;
    W.no_selftest = o->no_selftest || o->no_probe;
    W.st = st;
    W.st_lib = st_lib;
    W.st_lib_n = st_lib_n;
    if (o->windows_dir != NULL) {
        dr_join(bin, sizeof bin, o->windows_dir, "bin");
        if (!dr_is_dir(bin))
            dr_copy(bin, sizeof bin, o->windows_dir);
    }
    /* A DLL given alone sits in its application's folder. */
    if (o->windows_app != NULL)
        add_dir(o->windows_app, "application folder");
    else if (o->windows_dll != NULL) {
        dr_dirname(app, sizeof app, o->windows_dll);
        add_dir(app, "application folder");
    } else if (W.host && o->for_binary != NULL) {
        dr_dirname(app, sizeof app, o->for_binary);
        add_dir(app, "application folder");
    } else if (W.host) {
        dr_verdict(DR_INFO, "win-app", NULL, "the search order starts at System32: give --for PROGRAM.exe or "
                   "--windows-app DIR to check it for a program whose own folder holds DLLs");
    }
    if (W.host) {
        dr_plat_win_search_order(add_dir);
        W.have_system = true;
    } else {
        if (o->windows_system != NULL) {
            add_dir(o->windows_system, "system folder");
            W.have_system = true;
        }
        bool bin_listed = false;
        add_path_list(o->windows_path, &bin_listed, bin);
        if (!bin_listed && bin[0] != 0)
            add_dir(bin, "PATH (cuDNN folder)");
        dr_split(o->windows_path, ';', add_path_item, NULL);
    }

    if (W.n_dropped > 0)
        dr_verdict(DR_WARN, "win-path", "shorten PATH: Windows itself stops at 32767 characters",
                   "only the first %d folders of the search order are checked; %d more are not", MAX_DIRS,
                   W.n_dropped);
    /* #1: brackets and other odd characters in a folder break some loaders' lookups. */
    for (int i = 0; i < W.n_dirs; i++)
        if (strpbrk(W.dirs[i].path, "[]%!") != NULL)
            dr_verdict(DR_WARN, "win-path", "move the folder to a path without [ ] %% ! characters",
                       "the folder %s has characters that break DLL lookups in some programs", W.dirs[i].path);

    int cuda_major = 0;
    char cuda_from[200] = "";
    if (o->windows_dir != NULL)
        check_cudnn_folder(bin, &cuda_major, cuda_from, sizeof cuda_from);
    else if (W.host && o->windows_dll == NULL)
        check_cudnn_folder(NULL, &cuda_major, cuda_from, sizeof cuda_from);

    /* #23: a given DLL (an application's provider DLL, say) and what it
     * imports; on Windows, also the program of --for. */
    if (o->windows_dll != NULL)
        check_given(o->windows_dll, "--windows-dll", &cuda_major, cuda_from, sizeof cuda_from);
    if (W.host && o->for_binary != NULL)
        check_given(o->for_binary, "--for", &cuda_major, cuda_from, sizeof cuda_from);
    if (W.missing_imports == 0)
        dr_verdict(DR_OK, "win-imports", NULL, "every imported DLL is found");

    /* #4: every DLL that would be loaded must be x64. */
    int bad_machine = 0;
    for (int i = 0; i < W.n_dlls; i++) {
        struct dr_win_dll *d = &W.dlls[i];
        if (d->path[0] == 0 || !d->pe.ok || d->pe.machine == 0x8664)
            continue;
        bad_machine++;
        dr_verdict(DR_FAIL, "win-bitness", "replace it with the 64-bit (x64) DLL",
                   "%s is a %s DLL on a 64-bit search path: \"Could not load library %s. Error code 193\"", d->path,
                   dr_pe_machine_name(d->pe.machine), d->name);
    }
    if (bad_machine == 0)
        dr_verdict(DR_OK, "win-bitness", NULL, "every DLL found is x64");

    /* #14: the CUDA major the cuDNN build is for: the archive's name, or
     * (loaded on Windows) what cudnnGetCudartVersion answers. */
    const char *tag = o->windows_dir != NULL ? strstr(o->windows_dir, "_cuda") : NULL;
    const struct dr_win_probe *sp = W.n_cudnn > 0 ? &W.dlls[0].probe : NULL;
    if (tag != NULL && cuda_major > 0 && atoi(tag + 5) != cuda_major)
        dr_verdict(DR_FAIL, "win-cuda", "use the cuDNN archive built for the CUDA major you have",
                   "the folder %s is a build for CUDA %d but %s (CUDA %d)", o->windows_dir, atoi(tag + 5), cuda_from,
                   cuda_major);
    else if (sp != NULL && sp->loaded && sp->cudart >= 1000 && cuda_major > 0 && sp->cudart / 1000 != cuda_major)
        dr_verdict(DR_FAIL, "win-cuda", "use the cuDNN build for the CUDA major you have, and that CUDA's DLLs",
                   "%s is built for CUDA %ld (cudnnGetCudartVersion %ld) but %s (CUDA %d)", W.dlls[0].path,
                   sp->cudart / 1000, sp->cudart, cuda_from, cuda_major);
    else if (cuda_major > 0)
        dr_verdict(DR_OK, "win-cuda", NULL, "cuDNN uses CUDA %d libraries (%s)", cuda_major, cuda_from);
    dr_report_set_windows(W.dlls, W.n_dlls, W.dirs, W.n_dirs);
}
