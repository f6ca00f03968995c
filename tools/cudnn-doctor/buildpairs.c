/* SPDX-License-Identifier: Apache-2.0
 * What a build pairs: the cuDNN header it compiles with and the library
 * `-lcudnn` links, against the library that loads at run time.
 *
 * `-lcudnn` takes the development link libcudnn.so (not libcudnn.so.8) from
 * the first folder the linker searches: -L folders, then LIBRARY_PATH, then
 * the compiler's own (the CUDA toolkit's lib64 for nvcc, the system
 * folders).  The program then records the SONAME of the file that link
 * points to (libcudnn.so.8 or .9) and loads that at run time.  Two ways to
 * get a program that cannot work although every file is "there":
 *   - a header of one major beside (../include) a libcudnn.so of another:
 *     the program is compiled for cuDNN 8 and linked to cuDNN 9;
 *   - a libcudnn.so on LIBRARY_PATH or in the toolkit pointing at another
 *     version than the runtime one: the program needs a library that does
 *     not load, or is built against a newer minor than the one that runs.
 * The header check in checks.c compares headers with the runtime library;
 * this file compares development links with both. */
#include "doctor.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINKS 16

struct dev_link {
    char path[DR_PATH];
    char real[DR_PATH];
    char origin[96];
    bool linker_default;     /* LIBRARY_PATH or toolkit: taken by -lcudnn without -L */
    int major;               /* from the SONAME of the file it points to */
    long version;            /* from the real file name or the probe, 0 if unknown */
    long header;             /* version of the header beside it (../include), 0 if none */
    char header_path[DR_PATH];
};

static struct dev_link links[MAX_LINKS];
static int n_links;

static void
add_link_dir(struct dr_ctx *ctx, const char *dir, const char *origin, bool linker_default)
{
    char path[DR_PATH], real[PATH_MAX];
    dr_join(path, sizeof path, dir, "libcudnn.so");
    if (n_links >= MAX_LINKS || !dr_is_file(path) || realpath(path, real) == NULL)
        return;
    for (int i = 0; i < n_links; i++)
        if (strcmp(links[i].real, real) == 0) {
            links[i].linker_default |= linker_default;
            return;
        }
    struct dev_link *l = &links[n_links];
    memset(l, 0, sizeof *l);
    dr_copy(l->path, sizeof l->path, path);
    dr_copy(l->real, sizeof l->real, real);
    dr_copy(l->origin, sizeof l->origin, origin);
    l->linker_default = linker_default;
    struct dr_elf *e = calloc(1, sizeof *e);
    if (e == NULL)
        return;
    dr_elf_read(real, e);
    const char *so = strstr(e->soname, ".so.");
    l->major = e->ok && so != NULL ? atoi(so + 4) : 0;
    free(e);
    if (l->major == 0)
        return;                          /* not a shared cuDNN (a linker script...): the linker says so */
    l->version = dr_version_from_name(real, "libcudnn.so.");
    for (int i = 0; i < ctx->n_sonames; i++)
        for (int k = 0; k < ctx->sonames[i].n; k++)
            if (strcmp(ctx->sonames[i].copies[k].real, real) == 0 && dr_copy_version(&ctx->sonames[i].copies[k]))
                l->version = dr_copy_version(&ctx->sonames[i].copies[k]);
    char inc[DR_PATH];
    dr_join(inc, sizeof inc, dir, "../include");
    l->header = dr_header_version_in(inc, l->header_path, sizeof l->header_path);
    n_links++;
}

struct list_arg {
    struct dr_ctx *ctx;
};

static void
add_library_path_item(const char *item, void *p)
{
    struct list_arg *a = p;
    add_link_dir(a->ctx, item, "LIBRARY_PATH", true);
}

void
dr_check_build_pairs(struct dr_ctx *ctx, int expect_major)
{
    n_links = 0;
    struct list_arg a = {ctx};
    dr_split(getenv("LIBRARY_PATH"), ':', add_library_path_item, &a);
    static const char *const roots[] = {"CUDA_HOME", "CUDA_PATH"};
    char dir[DR_PATH];
    for (int i = 0; i < 2; i++) {
        const char *r = getenv(roots[i]);
        if (r != NULL && r[0] != 0) {
            dr_join(dir, sizeof dir, r, "lib64");
            add_link_dir(ctx, dir, roots[i][5] == 'H' ? "the CUDA toolkit ($CUDA_HOME/lib64)"
                                                        : "the CUDA toolkit ($CUDA_PATH/lib64)", true);
        }
    }
    if (!ctx->opt.no_system)
        add_link_dir(ctx, "/usr/local/cuda/lib64", "the CUDA toolkit (/usr/local/cuda/lib64)", true);
    /* Every folder holding a cuDNN copy: where CUDNN_LIBRARY / -L point. */
    for (int i = 0; i < ctx->n_sonames; i++)
        for (int k = 0; k < ctx->sonames[i].n; k++) {
            char libdir[DR_PATH];
            dr_dirname(libdir, sizeof libdir, ctx->sonames[i].copies[k].path);
            add_link_dir(ctx, libdir, "beside a cuDNN copy", false);
        }

    char fix[700], v1[32], v2[32];
    int bad = 0;
    for (int i = 0; i < n_links; i++) {
        struct dev_link *l = &links[i];
        if (l->major == 0)
            continue;
        /* The header and library of one install folder. */
        if (l->header > 0 && l->header / 10000 != l->major) {
            bad++;
            dr_version_str(v1, sizeof v1, l->header);
            dr_fmt(fix, sizeof fix, "make %s point to the cuDNN %ld library of this install (libcudnn.so.%ld), or "
                   "use the headers that come with libcudnn.so.%d", l->path, l->header / 10000, l->header / 10000,
                   l->major);
            dr_verdict(DR_FAIL, "header-pair", fix,
                       "%s says cuDNN %s but %s beside it (what -lcudnn links) is libcudnn.so.%d (%s): a program "
                       "built from this folder is compiled for cuDNN %ld and linked to cuDNN %d",
                       l->header_path, v1, l->path, l->major, l->real, l->header / 10000, l->major);
        }
        if (!l->linker_default)
            continue;
        /* What -lcudnn takes without -L, against what runs. */
        char soname[32];
        dr_fmt(soname, sizeof soname, "libcudnn.so.%d", l->major);
        struct dr_copy *w = l->major == 8 || l->major == 9 ? dr_winner(dr_family_shim(ctx, l->major)) : NULL;
        long rv = w != NULL ? dr_copy_version(w) : 0;
        dr_version_str(v1, sizeof v1, l->version);
        dr_version_str(v2, sizeof v2, rv);
        if (expect_major != 0 && l->major != expect_major) {
            bad++;
            dr_fmt(fix, sizeof fix, "point %s at the cuDNN %d library, or remove it so that -lcudnn finds the "
                   "right one", l->path, expect_major);
            dr_verdict(DR_FAIL, "devlink", fix,
                       "%s (on %s) points to %s, cuDNN %d: programs linked with -lcudnn get libcudnn.so.%d, not "
                       "the cuDNN %d expected", l->path, l->origin, l->real, l->major, l->major, expect_major);
        } else if (w == NULL) {
            bad++;
            dr_fmt(fix, sizeof fix, "put the folder of %s on the loader path, or point %s at the cuDNN that "
                   "loads", l->real, l->path);
            dr_verdict(DR_FAIL, "devlink", fix,
                       "%s (on %s) points to %s (%s): programs linked with -lcudnn need %s, which does not load "
                       "(\"%s: cannot open shared object file\")", l->path, l->origin, l->real, v1, soname, soname);
        } else if (l->version != 0 && rv != 0 && l->version != rv) {
            bool older = (rv / 100) % 100 < (l->version / 100) % 100;
            bad += older;
            dr_fmt(fix, sizeof fix, "point %s at the library that loads (%s), or put the folder of %s first on "
                   "the loader path", l->path, w->real, l->real);
            dr_verdict(older ? DR_FAIL : DR_WARN, "devlink", fix,
                       "%s (on %s) points to cuDNN %s but %s %s loads at run time (%s)%s", l->path, l->origin, v1,
                       soname, v2, w->path,
                       older ? ": programs built against the newer minor may miss functions in the older one" : "");
        }
    }
    if (bad == 0 && n_links > 0)
        dr_verdict(DR_OK, "devlink", NULL, "%d libcudnn.so development link%s found; each agrees with the headers "
                   "beside it and with the library that loads", n_links, n_links > 1 ? "s" : "");
}
