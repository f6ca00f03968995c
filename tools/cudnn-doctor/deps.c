/* SPDX-License-Identifier: Apache-2.0
 * What cuDNN needs around it: the DT_NEEDED libraries of every cuDNN file
 * that loads, the CUDA libraries NVIDIA's cuDNN opens at run time (cuBLAS,
 * cuBLASLt, NVRTC of its CUDA major), the CUDA toolkit beside it and the
 * driver.  Numbers refer to ecosystem.md section 2. */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True while the library checked is FreeDNN, which ships CPU stand-ins for
 * the CUDA runtime and cuBLAS (libcudart.so.12, libcublas.so.12) beside
 * libcudnn.so.8. */
static bool freednn_siblings;

/* What package provides a library, for the fix text. */
static const char *
provider(const char *name)
{
    if (dr_starts_with(name, "libcublas.so.12") && freednn_siblings)
        return "FreeDNN's libcublas.so.12 (lib/ of the FreeDNN archive), or cuBLAS";
    if (dr_starts_with(name, "libcudart.so.12") && freednn_siblings)
        return "FreeDNN's libcudart.so.12 (lib/ of the FreeDNN archive), or the CUDA runtime";
    if (dr_starts_with(name, "libcublasLt"))
        return "cuBLASLt (CUDA toolkit or pip nvidia-cublas-cuXX)";
    if (dr_starts_with(name, "libcublas"))
        return "cuBLAS (CUDA toolkit or pip nvidia-cublas-cuXX)";
    if (dr_starts_with(name, "libnvrtc"))
        return "NVRTC (CUDA toolkit or pip nvidia-cuda-nvrtc-cuXX)";
    if (dr_starts_with(name, "libcudart"))
        return "the CUDA runtime";
    if (dr_starts_with(name, "libz."))
        return "zlib (Debian/Ubuntu: zlib1g)";
    if (dr_starts_with(name, "libcudnn"))
        return "the same cuDNN archive";
    /* Earlier FreeDNN builds linked these dynamically (issue #15 made the
     * archive self-contained); the current one needs neither. */
    if (dr_starts_with(name, "libpthreadpool") || dr_starts_with(name, "libcpuinfo"))
        return "an older FreeDNN build's dependencies (Debian: libpthreadpool0, libcpuinfo0; "
               "a current FreeDNN needs neither)";
    return "its package";
}

/* Dependencies of every winner: DT_NEEDED, and for NVIDIA's library the
 * ones it opens at run time (cuBLAS, cuBLASLt, NVRTC; #5, #20). */
void
dr_check_deps(struct dr_ctx *ctx, int fam)
{
    struct dr_copy *hits = calloc(4, sizeof *hits);
    if (hits == NULL)
        return;
    int missing = 0;
    char fix[600];
    bool nvidia = false;
    long cudart = 0;
    struct dr_copy *sw = dr_winner(dr_family_shim(ctx, fam));
    if (sw != NULL) {
        nvidia = !sw->elf.exports_freednn && !sw->probe.is_freednn;
        cudart = sw->probe.cudart;
    }
    freednn_siblings = sw != NULL && !nvidia;
    for (int i = 0; i < ctx->n_sonames; i++) {
        struct dr_soname *s = &ctx->sonames[i];
        struct dr_copy *w = dr_winner(s);
        if (s->family != fam || w == NULL)
            continue;
        for (int d = 0; d < w->elf.n_needed; d++) {
            int win;
            dr_resolve(ctx, w->elf.needed[d], w->path, &w->elf, hits, 4, &win);
            if (win >= 0)
                continue;
            missing++;
            dr_fmt(fix, sizeof fix, "install %s, or add the folder that holds %s to LD_LIBRARY_PATH",
                   provider(w->elf.needed[d]), w->elf.needed[d]);
            dr_verdict(DR_FAIL, "deps", fix, "%s needs %s, which the loader cannot find", w->path, w->elf.needed[d]);
        }
    }
    if (nvidia && cudart > 0) {
        /* What cuDNN dlopens, as the sub-library that opens it sees it. */
        long major = cudart / 1000;
        char cublas[64], cublaslt[64], nvrtc[64];
        dr_fmt(cublas, sizeof cublas, "libcublas.so.%ld", major);
        dr_fmt(cublaslt, sizeof cublaslt, "libcublasLt.so.%ld", major);
        /* NVRTC's soname is libnvrtc.so.<major> from CUDA 12 on, but
         * libnvrtc.so.11.2 for all of CUDA 11 (and .10.x before), and
         * cuDNN 8 built for CUDA 11 opens the unversioned libnvrtc.so: its
         * error names that file.  So for CUDA 11 and older the name to ask
         * for is libnvrtc.so; cuDNN 9 for CUDA 11 opens libnvrtc.so.11.2. */
        if (major >= 12)
            dr_fmt(nvrtc, sizeof nvrtc, "libnvrtc.so.%ld", major);
        else if (fam == 9 && major == 11)
            dr_copy(nvrtc, sizeof nvrtc, "libnvrtc.so.11.2");
        else
            dr_copy(nvrtc, sizeof nvrtc, "libnvrtc.so");
        const char *asker_name = fam == 8 ? "libcudnn_ops_infer.so.8" : "libcudnn_engines_precompiled.so.9";
        struct dr_copy *asker = sw;
        for (int i = 0; i < ctx->n_sonames; i++)
            if (strcmp(ctx->sonames[i].name, asker_name) == 0 && dr_winner(&ctx->sonames[i]) != NULL)
                asker = dr_winner(&ctx->sonames[i]);
        const char *names[3] = {cublas, cublaslt, nvrtc};
        for (int k = 0; k < 3; k++) {
            int win;
            dr_resolve(ctx, names[k], asker->path, &asker->elf, hits, 4, &win);
            if (win < 0 && k == 2 && fam == 8 && major >= 12) /* 8.x builds also try the unversioned name */
                dr_resolve(ctx, "libnvrtc.so", asker->path, &asker->elf, hits, 4, &win);
            if (win >= 0)
                continue;
            missing++;
            dr_fmt(fix, sizeof fix, "install %s for CUDA %ld, or add its folder to LD_LIBRARY_PATH", provider(names[k]),
                   major);
            dr_verdict(DR_FAIL, "deps", fix,
                       "cuDNN (built for CUDA %ld) opens %s at run time and the loader cannot find it: "
                       "convolutions fail with \"Could not load library ... %s: cannot open shared object file\"",
                       major, names[k], names[k]);
        }
    }
    if (freednn_siblings) {
        /* FreeDNN's CUDA stand-ins: the runtime (programs that call
         * cudaMalloc...) and cuBLAS (programs that also call cuBLAS).  Not
         * needed by libcudnn.so.8 itself; listed so that a program's
         * "libcudart.so.12: cannot open" has an answer. */
        char list[2 * DR_PATH + 128] = "";
        static const char *const sib[] = {"libcudart.so.12", "libcublas.so.12"};
        for (int k = 0; k < 2; k++) {
            int win;
            int n = dr_resolve(ctx, sib[k], NULL, NULL, hits, 4, &win);
            char item[DR_PATH + 64];
            dr_fmt(item, sizeof item, "%s%s %s", k ? "; " : "", sib[k],
                   win >= 0 ? hits[win].path : n > 0 ? "only off the loader path" : "not found");
            strncat(list, item, sizeof list - strlen(list) - 1);
        }
        dr_verdict(DR_INFO, "runtime", NULL, "FreeDNN's CUDA runtime stand-ins (only for programs that call them "
                   "directly): %s", list);
    }
    if (missing == 0 && sw != NULL)
        dr_verdict(DR_OK, "deps", NULL, "every dependency of the cuDNN %d libraries is found%s", fam,
                   nvidia ? " (including cuBLAS, cuBLASLt and NVRTC, which it opens at run time)" : "");
    free(hits);
}

/* The CUDA toolkit version at `root` (version.json, else CUDART_VERSION in
 * include/cuda_runtime_api.h), as major*1000 + minor*10; 0 if unknown. */
static long
toolkit_version(const char *root)
{
    char path[DR_PATH];
    unsigned char *text;
    size_t size;
    long v = 0;
    dr_join(path, sizeof path, root, "version.json");
    if (dr_read_file(path, 1 << 20, &text, &size) == 0) {
        const char *p = strstr((const char *)text, "\"cuda\"");
        p = p != NULL ? strstr(p, "\"version\"") : NULL;
        int ma, mi;
        if (p != NULL && sscanf(strchr(p + 9, '"') != NULL ? strchr(p + 9, '"') + 1 : "", "%d.%d", &ma, &mi) == 2)
            v = ma * 1000L + mi * 10L;
        free(text);
        if (v > 0)
            return v;
    }
    dr_join(path, sizeof path, root, "include/cuda_runtime_api.h");
    if (dr_read_file(path, 1 << 22, &text, &size) == 0) {
        const char *p = strstr((const char *)text, "#define CUDART_VERSION");
        if (p != NULL)
            v = strtol(p + 22, NULL, 10);
        free(text);
    }
    return v;
}

/* #14, #15: the CUDA major cuDNN was built for vs toolkit and driver. */
void
dr_check_cuda(struct dr_ctx *ctx, int fam)
{
    struct dr_copy *sw = dr_winner(dr_family_shim(ctx, fam));
    if (sw == NULL || !sw->probe.loaded)
        return;
    long cudart = sw->probe.cudart;
    if (sw->probe.is_freednn) {
        dr_verdict(DR_INFO, "cuda", NULL, "FreeDNN runs on the CPU: it reports CUDA runtime %ld.%ld for "
                   "compatibility and needs no CUDA toolkit, driver or GPU", cudart / 1000, (cudart % 1000) / 10);
        return;
    }
    if (cudart <= 0)
        return;
    long major = cudart / 1000;
    const char *root = getenv("CUDA_HOME");
    if (root == NULL || root[0] == 0)
        root = getenv("CUDA_PATH");
    if ((root == NULL || root[0] == 0) && !ctx->opt.no_system)
        root = "/usr/local/cuda";
    long tk = root != NULL && root[0] != 0 ? toolkit_version(root) : 0;
    if (tk > 0 && tk / 1000 != major)
        dr_verdict(DR_FAIL, "cuda", "install the cuDNN build for your CUDA major (archive name ..._cudaNN-archive, "
                   "pip nvidia-cudnn-cuNN), or the matching CUDA toolkit",
                   "cuDNN at %s is built for CUDA %ld (runtime %ld) but the toolkit at %s is CUDA %ld.%ld: its "
                   "cuBLAS and NVRTC are of the wrong major", sw->path, major, cudart, root, tk / 1000,
                   (tk % 1000) / 10);
    else if (tk > 0)
        dr_verdict(DR_OK, "cuda", NULL, "cuDNN is built for CUDA %ld.%ld; the toolkit at %s is CUDA %ld.%ld", major,
                   (cudart % 1000) / 10, root, tk / 1000, (tk % 1000) / 10);
    /* The driver: load libcuda.so.1 in a child and ask its version. */
    struct dr_probe drv;
    dr_probe_library("libcuda.so.1", NULL, false, ctx->opt.timeout_s, &drv);
    if (!drv.loaded) {
        dr_verdict(DR_INFO, "driver", NULL, "no NVIDIA driver (libcuda.so.1 does not load: %s); NVIDIA's cuDNN "
                   "needs a GPU to run", drv.error);
    } else if (drv.driver > 0 && drv.driver < cudart) {
        dr_verdict(DR_FAIL, "driver", "update the NVIDIA driver (CUDA 12.x needs >= 525.60.13 on Linux) or use a "
                   "cuDNN built for an older CUDA",
                   "the driver supports CUDA up to %ld.%ld but cuDNN carries runtime %ld.%ld: \"CUDA driver version "
                   "is insufficient for CUDA runtime version\"", drv.driver / 1000, (drv.driver % 1000) / 10,
                   major, (cudart % 1000) / 10);
    } else if (drv.driver > 0) {
        dr_verdict(DR_OK, "driver", NULL, "the driver supports CUDA %ld.%ld, enough for runtime %ld.%ld",
                   drv.driver / 1000, (drv.driver % 1000) / 10, major, (cudart % 1000) / 10);
    }
}


/* --for BINARY: the program's own DT_NEEDED, resolved as the loader would
 * at its start (#7, #20).  Returns the cuDNN major it links (0: none). */
int
dr_check_program(struct dr_ctx *ctx)
{
    if (!ctx->for_elf.ok)
        return 0;
    struct dr_copy *hits = calloc(4, sizeof *hits);
    if (hits == NULL)
        return 0;
    int major = 0, missing = 0;
    char fix[600];
    for (int i = 0; i < ctx->for_elf.n_needed; i++) {
        const char *name = ctx->for_elf.needed[i];
        const char *so = strstr(name, ".so.");
        if (dr_starts_with(name, "libcudnn") && so != NULL && major == 0)
            major = atoi(so + 4);
        int win;
        dr_resolve(ctx, name, NULL, NULL, hits, 4, &win);
        if (win >= 0)
            continue;
        missing++;
        dr_fmt(fix, sizeof fix, "install %s, or add the folder that holds %s to LD_LIBRARY_PATH", provider(name),
               name);
        dr_verdict(DR_FAIL, "program", fix, "%s needs %s, which the loader cannot find: it will not start "
                   "(\"error while loading shared libraries: %s: cannot open shared object file\")",
                   ctx->for_path, name, name);
    }
    if (missing == 0)
        dr_verdict(DR_OK, "program", NULL, "every library %s links is found%s", ctx->for_path,
                   major ? " (including cuDNN)" : "");
    free(hits);
    return major;
}
