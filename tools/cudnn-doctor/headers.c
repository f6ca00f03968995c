/* SPDX-License-Identifier: Apache-2.0
 * cuDNN headers: every cudnn_version.h (or, for installations older than
 * 8.0, cudnn.h) in the include folders a build could use, with the version
 * its CUDNN_MAJOR / CUDNN_MINOR / CUDNN_PATCHLEVEL lines give.  They are
 * read as text, the way build systems read them (a regex on "#define
 * CUDNN_MAJOR n"); nothing is compiled. */
#include "doctor.h"

#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The value of "#define NAME <integer>" in text, or -1. */
static long
macro_value(const char *text, const char *name)
{
    size_t nlen = strlen(name);
    for (const char *p = strstr(text, "#define"); p != NULL; p = strstr(p + 1, "#define")) {
        const char *q = p + 7;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, name, nlen) != 0 || !(q[nlen] == ' ' || q[nlen] == '\t'))
            continue;
        q += nlen;
        while (*q == ' ' || *q == '\t')
            q++;
        if (!isdigit((unsigned char)*q))
            continue;
        return strtol(q, NULL, 10);
    }
    return -1;
}

long
dr_header_version_in(const char *incdir, char *path_out, size_t n)
{
    static const char *const names[] = {"cudnn_version.h", "cudnn.h", "cudnn_version_v9.h", "cudnn_version_v8.h"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[DR_PATH];
        unsigned char *text;
        size_t size;
        dr_join(path, sizeof path, incdir, names[i]);
        if (!dr_is_file(path) || dr_read_file(path, 1 << 20, &text, &size) != 0)
            continue;
        long major = macro_value((const char *)text, "CUDNN_MAJOR");
        long minor = macro_value((const char *)text, "CUDNN_MINOR");
        long patch = macro_value((const char *)text, "CUDNN_PATCHLEVEL");
        free(text);
        if (major < 0)
            continue;
        char real[PATH_MAX];
        dr_copy(path_out, n, realpath(path, real) != NULL ? real : path);
        return major * 10000 + (minor > 0 ? minor : 0) * 100 + (patch > 0 ? patch : 0);
    }
    return 0;
}

static void
add_header_file(struct dr_ctx *ctx, const char *path, const char *origin, bool paired)
{
    if (!dr_is_file(path) || ctx->n_headers >= 32)
        return;
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        return;
    for (int i = 0; i < ctx->n_headers; i++)
        if (strcmp(ctx->headers[i].path, real) == 0) {
            ctx->headers[i].paired |= paired;
            return;
        }
    unsigned char *text;
    size_t size;
    if (dr_read_file(real, 1 << 20, &text, &size) != 0)
        return;
    long major = macro_value((const char *)text, "CUDNN_MAJOR");
    long minor = macro_value((const char *)text, "CUDNN_MINOR");
    long patch = macro_value((const char *)text, "CUDNN_PATCHLEVEL");
    free(text);
    if (major < 0)
        return;                          /* a cudnn.h that includes cudnn_version.h */
    struct dr_header *h = &ctx->headers[ctx->n_headers++];
    dr_copy(h->path, sizeof h->path, real);
    dr_copy(h->origin, sizeof h->origin, origin);
    h->version = major * 10000 + (minor > 0 ? minor : 0) * 100 + (patch > 0 ? patch : 0);
    h->paired = paired;
}

static void
add_include_dir(struct dr_ctx *ctx, const char *dir, const char *origin, bool paired)
{
    static const char *const names[] = {"cudnn_version.h", "cudnn.h", "cudnn_version_v8.h", "cudnn_v8.h",
                                        "cudnn_version_v9.h"};
    char path[DR_PATH];
    bool have_version_h = false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (i == 1 && have_version_h)
            continue;                    /* cudnn.h includes cudnn_version.h */
        dr_join(path, sizeof path, dir, names[i]);
        if (i == 0 && dr_is_file(path))
            have_version_h = true;
        add_header_file(ctx, path, origin, paired);
    }
}

struct inc_arg {
    struct dr_ctx *ctx;
    const char *origin;
};

static void
add_list_item(const char *item, void *p)
{
    struct inc_arg *a = p;
    add_include_dir(a->ctx, item, a->origin, false);
}

void
dr_headers_find(struct dr_ctx *ctx)
{
    char dir[DR_PATH], origin[200];
    for (int i = 0; i < ctx->opt.n_include_dirs; i++)
        add_include_dir(ctx, ctx->opt.include_dirs[i], "--include", true);
    const char *inc = getenv("CUDNN_INCLUDE_DIR");
    if (inc != NULL && inc[0] != 0)
        add_include_dir(ctx, inc, "$CUDNN_INCLUDE_DIR", true);
    static const char *const roots[] = {"CUDNN_PATH", "CUDNN_HOME", "CUDNN_ROOT", "CUDNN_ROOT_DIR",
                                        "CUDNN_INSTALL_PATH"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        const char *r = getenv(roots[i]);
        if (r == NULL || r[0] == 0)
            continue;
        dr_join(dir, sizeof dir, r, "include");
        dr_fmt(origin, sizeof origin, "$%s/include", roots[i]);
        add_include_dir(ctx, dir, origin, true);
    }
    static const char *const lists[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH"};
    for (size_t i = 0; i < 3; i++) {
        struct inc_arg a = {ctx, lists[i]};
        dr_split(getenv(lists[i]), ':', add_list_item, &a);
    }
    /* The include folder beside each library folder holding a cuDNN copy
     * (lib/ -> include/, lib/x64 -> include/, lib/x86_64-linux-gnu ->
     * include/x86_64-linux-gnu and include/) is the header that library was
     * shipped with. */
    for (int i = 0; i < ctx->n_sonames; i++)
        for (int k = 0; k < ctx->sonames[i].n; k++) {
            char libdir[DR_PATH];
            dr_dirname(libdir, sizeof libdir, ctx->sonames[i].copies[k].path);
            dr_fmt(origin, sizeof origin, "beside %s", libdir);
            static const char *const rel[] = {"../include", "../../include"};
            for (int r = 0; r < 2; r++) {
                dr_join(dir, sizeof dir, libdir, rel[r]);
                add_include_dir(ctx, dir, origin, true);
            }
        }
    const char *conda = getenv("CONDA_PREFIX");
    if (conda != NULL && conda[0] != 0) {
        dr_join(dir, sizeof dir, conda, "include");
        add_include_dir(ctx, dir, "conda $CONDA_PREFIX/include", false);
    }
    for (int i = 0; i < ctx->n_python_sites; i++) {
        dr_join(dir, sizeof dir, ctx->python_sites[i], "nvidia/cudnn/include");
        add_include_dir(ctx, dir, "pip nvidia-cudnn", false);
    }
    if (ctx->opt.no_system)
        return;
    static const char *const sys[] = {"/usr/local/include", "/usr/include/x86_64-linux-gnu",
                                      "/usr/include/aarch64-linux-gnu", "/usr/include"};
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        add_include_dir(ctx, sys[i], "compiler default", false);
    glob_t g;
    if (glob("/usr/local/cuda*/include", GLOB_ONLYDIR, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            add_include_dir(ctx, g.gl_pathv[i], "CUDA toolkit", false);
        globfree(&g);
    }
}
