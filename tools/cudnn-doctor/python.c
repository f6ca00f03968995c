/* SPDX-License-Identifier: Apache-2.0
 * Python pitfalls that can be seen from the files (ecosystem.md #5, #7,
 * #11): pip's nvidia-cudnn-cuXX wheels, PyTorch's own libraries, and what
 * PyTorch actually loads given its RUNPATH and the environment. */
#include "doctor.h"

#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Version of an installed wheel from its dist-info folder name
 * ("nvidia_cudnn_cu12-8.9.2.26.dist-info" -> 80902); 0 if none. */
static long
wheel_version(const char *site, const char *wheel, char *found, size_t n)
{
    char pattern[DR_PATH];
    dr_fmt(pattern, sizeof pattern, "%s/%s-*.dist-info", site, wheel);
    glob_t g;
    long v = 0;
    if (glob(pattern, GLOB_ONLYDIR, NULL, &g) == 0) {
        int a, b, c;
        const char *base = dr_basename(g.gl_pathv[0]) + strlen(wheel) + 1;
        if (sscanf(base, "%d.%d.%d", &a, &b, &c) == 3)
            v = a * 10000L + b * 100L + c;
        dr_copy(found, n, g.gl_pathv[0]);
        globfree(&g);
    }
    return v;
}

/* The version of the copy at `path` that the Linux checks probed. */
static long
probed_version(struct dr_ctx *ctx, const char *path, char *real, size_t n)
{
    char want[PATH_MAX];
    if (realpath(path, want) == NULL)
        return 0;
    for (int i = 0; i < ctx->n_sonames; i++)
        for (int k = 0; k < ctx->sonames[i].n; k++) {
            struct dr_copy *c = &ctx->sonames[i].copies[k];
            if (strcmp(c->real, want) == 0) {
                dr_copy(real, n, c->real);
                return dr_copy_version(c);
            }
        }
    return 0;
}

static void
check_site(struct dr_ctx *ctx, const char *site)
{
    char lib[DR_PATH], path[DR_PATH], info11[DR_PATH] = "", info12[DR_PATH] = "", real[DR_PATH] = "";
    char v1[32], v2[32];
    dr_join(lib, sizeof lib, site, "nvidia/cudnn/lib");
    long w11 = wheel_version(site, "nvidia_cudnn_cu11", info11, sizeof info11);
    long w12 = wheel_version(site, "nvidia_cudnn_cu12", info12, sizeof info12);
    if (w11 && w12)
        dr_verdict(DR_WARN, "python", "pip uninstall both, then pip install the one your framework needs",
                   "%s has both nvidia-cudnn-cu11 and nvidia-cudnn-cu12: they write the same nvidia/cudnn "
                   "folder, so one overwrote the other and removing either breaks both", site);
    long wheel = w12 ? w12 : w11;
    for (int major = 8; major <= 9 && wheel; major++) {
        char name[32];
        dr_fmt(name, sizeof name, "libcudnn.so.%d", major);
        dr_join(path, sizeof path, lib, name);
        if (!dr_is_file(path))
            continue;
        long have = probed_version(ctx, path, real, sizeof real);
        dr_version_str(v1, sizeof v1, wheel);
        dr_version_str(v2, sizeof v2, have);
        if (have != 0 && wheel / 100 != have / 100)
            dr_verdict(DR_FAIL, "python", "pip install --force-reinstall the nvidia-cudnn wheel you need",
                       "pip says %s is installed (%s) but %s reports %s: its files were overwritten by another "
                       "install", dr_basename(w12 ? info12 : info11), v1, path, v2);
    }

    /* PyTorch: what does libtorch_cuda.so load, from its own point of view? */
    dr_join(path, sizeof path, site, "torch/lib/libtorch_cuda.so");
    if (!dr_is_file(path))
        return;
    struct dr_elf *torch = calloc(1, sizeof *torch);
    struct dr_copy *hits = calloc(DR_MAX_COPIES, sizeof *hits);
    if (torch == NULL || hits == NULL)
        goto out_free;
    dr_elf_read(path, torch);
    for (int major = 8; major <= 9; major++) {
        char name[32];
        dr_fmt(name, sizeof name, "libcudnn.so.%d", major);
        bool needs = false;
        for (int i = 0; i < torch->n_needed; i++)
            needs |= strcmp(torch->needed[i], name) == 0;
        if (!needs)
            continue;
        int win;
        dr_resolve(ctx, name, path, torch, hits, DR_MAX_COPIES, &win);
        if (win < 0) {
            dr_verdict(DR_FAIL, "python", "pip install nvidia-cudnn-cuXX of the version PyTorch was built with",
                       "PyTorch at %s needs %s and cannot find it (\"%s: cannot open shared object file\")", site,
                       name, name);
            continue;
        }
        char own[DR_PATH], own_real[PATH_MAX] = "";
        dr_join(own, sizeof own, lib, name);
        if (realpath(own, own_real) == NULL)
            own_real[0] = 0;
        long wv = probed_version(ctx, hits[win].path, real, sizeof real);
        if (wv == 0)
            wv = hits[win].name_version;
        long ov = own_real[0] ? probed_version(ctx, own, real, sizeof real) : 0;
        dr_version_str(v1, sizeof v1, wv);
        dr_version_str(v2, sizeof v2, ov);
        if (own_real[0] && strcmp(hits[win].real, own_real) != 0 && ov != wv)
            dr_verdict(DR_FAIL, "python", "remove that folder from LD_LIBRARY_PATH (or unset it) when running "
                       "PyTorch",
                       "PyTorch at %s loads %s %s from %s (%s) instead of its own %s %s: \"cuDNN version "
                       "incompatibility: PyTorch was compiled against ... but found runtime version ...\"",
                       site, name, v1, hits[win].path, hits[win].origin, own, v2);
        else
            dr_verdict(DR_OK, "python", NULL, "PyTorch at %s loads %s %s from %s", site, name, v1, hits[win].path);
    }
out_free:
    free(torch);
    free(hits);
}

/* The quoted value of `key` in TensorFlow's build_info.py
 * ("'cudnn_version': '8'" or "('cudnn_version', '8')"), or "". */
static void
build_info_value(const char *text, const char *key, char *out, size_t n)
{
    out[0] = 0;
    const char *p = strstr(text, key);
    if (p == NULL)
        return;
    /* A dict ('key': 'v') or a tuple list ('key', 'v'). */
    p += strlen(key);
    while (*p == ' ')
        p++;
    if (*p != ':' && *p != ',')
        return;
    p++;
    while (*p == ' ')
        p++;
    if (*p != '\'' && *p != '"')
        return;
    char quote = *p++;
    size_t len = 0;
    while (p[len] != 0 && p[len] != quote && len + 1 < n)
        len++;
    memcpy(out, p, len);
    out[len] = 0;
}

/* #10, #20: TensorFlow records the cuDNN and CUDA it was built with in
 * tensorflow/python/platform/build_info.py; it needs the same cuDNN major
 * and at least that minor (its rule), and opens libcudnn.so.<major> by
 * name from libtensorflow_framework.so.2. */
static void
check_tensorflow(struct dr_ctx *ctx, const char *site)
{
    char path[DR_PATH], want[32], cuda[32];
    unsigned char *text;
    size_t size;
    dr_join(path, sizeof path, site, "tensorflow/python/platform/build_info.py");
    if (dr_read_file(path, 1 << 20, &text, &size) != 0)
        return;
    build_info_value((const char *)text, "'cudnn_version'", want, sizeof want);
    if (want[0] == 0)
        build_info_value((const char *)text, "\"cudnn_version\"", want, sizeof want);
    build_info_value((const char *)text, "'cuda_version'", cuda, sizeof cuda);
    free(text);
    int ma = 0, mi = -1;
    if (want[0] == 0 || sscanf(want, "%d.%d", &ma, &mi) < 1 || ma <= 0)
        return;                          /* a CPU-only build */
    char name[32];
    dr_fmt(name, sizeof name, "libcudnn.so.%d", ma);
    struct dr_elf *tf = calloc(1, sizeof *tf);
    struct dr_copy *hits = calloc(DR_MAX_COPIES, sizeof *hits);
    if (tf == NULL || hits == NULL)
        goto out_free;
    char fw[DR_PATH];
    dr_join(fw, sizeof fw, site, "tensorflow/libtensorflow_framework.so.2");
    bool have_fw = dr_is_file(fw);
    if (have_fw)
        dr_elf_read(fw, tf);
    int win;
    dr_resolve(ctx, name, have_fw ? fw : NULL, have_fw && tf->ok ? tf : NULL, hits, DR_MAX_COPIES, &win);
    if (win < 0) {
        dr_verdict(DR_FAIL, "python", "pip install nvidia-cudnn-cuXX (or tensorflow[and-cuda]) and put its lib "
                   "folder on LD_LIBRARY_PATH",
                   "TensorFlow at %s (built with cuDNN %s, CUDA %s) cannot find %s: \"Cannot dlopen some GPU "
                   "libraries... Skipping registering GPU devices\"", site, want, cuda[0] ? cuda : "?", name);
        goto out_free;
    }
    char real[DR_PATH];
    long have = probed_version(ctx, hits[win].path, real, sizeof real);
    if (have == 0)
        have = hits[win].name_version;
    char hv[32];
    dr_version_str(hv, sizeof hv, have);
    if (have != 0 && mi >= 0 && (have / 100) % 100 < mi)
        dr_verdict(DR_FAIL, "python", "install cuDNN of the same major and an equal or higher minor, and make it "
                   "come first on the loader path",
                   "TensorFlow at %s was built with cuDNN %s but loads %s %s from %s: \"Loaded runtime CuDNN "
                   "library: %s but source was compiled with: %s\"", site, want, name, hv, hits[win].path, hv, want);
    else
        dr_verdict(DR_OK, "python", NULL, "TensorFlow at %s (built with cuDNN %s) loads %s %s from %s", site, want,
                   name, hv, hits[win].path);
out_free:
    free(tf);
    free(hits);
}

void
dr_check_python(struct dr_ctx *ctx)
{
    for (int i = 0; i < ctx->n_python_sites; i++) {
        check_site(ctx, ctx->python_sites[i]);
        check_tensorflow(ctx, ctx->python_sites[i]);
    }

    /* #5: cuDNN 8 opens "libnvrtc.so"; PyTorch 2.0 wheels ship only a
     * hashed libnvrtc-<hash>.so. */
    bool cudnn8_nvidia = false;
    for (int i = 0; i < ctx->n_sonames; i++) {
        struct dr_soname *s = &ctx->sonames[i];
        if (s->family == 8 && s->is_shim && s->winner >= 0 && !s->copies[s->winner].elf.exports_freednn)
            cudnn8_nvidia = true;
    }
    if (!cudnn8_nvidia)
        return;
    for (int i = 0; i < ctx->n_python_sites; i++) {
        char pattern[DR_PATH];
        dr_fmt(pattern, sizeof pattern, "%s/torch/lib/libnvrtc-*.so*", ctx->python_sites[i]);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) != 0)
            continue;
        struct dr_copy *hits = calloc(4, sizeof *hits);
        int win = -1;
        if (hits != NULL)
            dr_resolve(ctx, "libnvrtc.so", NULL, NULL, hits, 4, &win);
        if (win < 0)
            dr_verdict(DR_FAIL, "python", "pip install nvidia-cuda-nvrtc-cuXX and put its lib folder on "
                       "LD_LIBRARY_PATH, or create a libnvrtc.so link to the NVRTC of your CUDA version",
                       "PyTorch at %s ships only %s, but cuDNN 8 opens \"libnvrtc.so\": convolutions fail with "
                       "\"Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared "
                       "object file\"", ctx->python_sites[i], dr_basename(g.gl_pathv[0]));
        free(hits);
        globfree(&g);
    }
}
