/* SPDX-License-Identifier: Apache-2.0
 * Where the Linux loader looks for a library, and where copies of cuDNN sit.
 *
 * For a name without a slash, glibc's dlopen and the start-up loader search
 * (ld.so(8)):
 *   1. DT_RPATH of the object asking, and of the executable, only when the
 *      object asking has no DT_RUNPATH;
 *   2. LD_LIBRARY_PATH;
 *   3. DT_RUNPATH of the object asking (for its own dependencies only);
 *   4. /etc/ld.so.cache;
 *   5. the default folders (/lib, /usr/lib and their multiarch and 64-bit
 *      variants).
 * A file of the wrong ELF class or machine is skipped and the search goes
 * on.  $ORIGIN in a path is the folder of the object that carries it.
 * After the loader's own places, we list places where cuDNN is commonly
 * installed but that the loader does not search by itself: CUDA toolkits,
 * conda environments, pip's nvidia/cudnn/lib, folders named by CUDNN_PATH
 * and friends, and --search.  A copy found only there is "not on the path". */
#include "doctor.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const family8[] = {
    "libcudnn.so.8", "libcudnn_ops_infer.so.8", "libcudnn_ops_train.so.8", "libcudnn_cnn_infer.so.8",
    "libcudnn_cnn_train.so.8", "libcudnn_adv_infer.so.8", "libcudnn_adv_train.so.8",
};
static const char *const checks8[] = {
    NULL, "cudnnOpsInferVersionCheck", "cudnnOpsTrainVersionCheck", "cudnnCnnInferVersionCheck",
    "cudnnCnnTrainVersionCheck", "cudnnAdvInferVersionCheck", "cudnnAdvTrainVersionCheck",
};
static const char *const family9[] = {
    "libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcudnn_adv.so.9",
    "libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9", "libcudnn_heuristic.so.9",
};
static const char *const checks9[] = {
    NULL, "cudnnGraphVersionCheck", "cudnnOpsVersionCheck", "cudnnCnnVersionCheck", "cudnnAdvVersionCheck",
    NULL, NULL, NULL,
};

bool
dr_is_cudnn_name(const char *name)
{
    return dr_starts_with(dr_basename(name), "libcudnn");
}

static struct dr_source *
add_source(struct dr_ctx *ctx, int kind, const char *path, const char *origin, bool on_path, bool system)
{
    if (ctx->n_sources >= DR_MAX_SOURCES)
        return NULL;
    /* The same folder twice in one role adds nothing; in different roles
     * (LD_LIBRARY_PATH and a default folder) the first one wins anyway. */
    for (int i = 0; i < ctx->n_sources; i++)
        if (ctx->sources[i].kind == kind && strcmp(ctx->sources[i].path, path) == 0)
            return NULL;
    struct dr_source *s = &ctx->sources[ctx->n_sources++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    dr_copy(s->path, sizeof s->path, path);
    dr_copy(s->origin, sizeof s->origin, origin);
    s->on_path = on_path;
    s->system = system;
    s->is_cache = kind == DR_SRC_CACHE;
    return s;
}

/* Expands $ORIGIN / ${ORIGIN} in one path element. */
static void
expand_origin(char *dst, size_t n, const char *item, const char *origin_dir)
{
    char out[DR_PATH] = "";
    size_t len = 0;
    for (const char *p = item; *p != 0 && len + 1 < sizeof out;) {
        if (dr_starts_with(p, "$ORIGIN") || dr_starts_with(p, "${ORIGIN}")) {
            int w = snprintf(out + len, sizeof out - len, "%s", origin_dir);
            len += w > 0 ? (size_t)w : 0;
            if (len >= sizeof out)
                len = sizeof out - 1;
            p += p[1] == '{' ? 9 : 7;
        } else {
            out[len++] = *p++;
        }
    }
    out[len] = 0;
    dr_copy(dst, n, out);
}

struct add_arg {
    struct dr_ctx *ctx;
    int kind;
    const char *origin;
    const char *origin_dir;
    bool on_path, system;
};

static void
add_item(const char *item, void *p)
{
    struct add_arg *a = p;
    char dir[DR_PATH];
    expand_origin(dir, sizeof dir, item, a->origin_dir != NULL ? a->origin_dir : ".");
    add_source(a->ctx, a->kind, dir, a->origin, a->on_path, a->system);
}

static void
add_glob(struct dr_ctx *ctx, const char *pattern, const char *origin, bool system)
{
    glob_t g;
    if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        add_source(ctx, DR_SRC_OFF_PATH, g.gl_pathv[i], origin, false, system);
    globfree(&g);
}

static void
add_python_site(struct dr_ctx *ctx, const char *dir)
{
    if (!dr_is_dir(dir) || ctx->n_python_sites >= 16)
        return;
    char real[PATH_MAX];
    if (realpath(dir, real) == NULL)
        return;
    for (int i = 0; i < ctx->n_python_sites; i++)
        if (strcmp(ctx->python_sites[i], real) == 0)
            return;
    dr_copy(ctx->python_sites[ctx->n_python_sites++], DR_PATH, real);
}

static void
glob_python_sites(struct dr_ctx *ctx, const char *pattern)
{
    glob_t g;
    if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        add_python_site(ctx, g.gl_pathv[i]);
    globfree(&g);
}

void
dr_search_init(struct dr_ctx *ctx)
{
    const struct dr_options *o = &ctx->opt;
    char origin[200], dir[DR_PATH];
    bool sys = !o->no_system;

    if (o->for_binary != NULL) {
        char real[PATH_MAX];
        dr_copy(ctx->for_path, sizeof ctx->for_path,
                realpath(o->for_binary, real) != NULL ? real : o->for_binary);
        dr_elf_read(ctx->for_path, &ctx->for_elf);
    }
    char for_dir[DR_PATH];
    dr_dirname(for_dir, sizeof for_dir, ctx->for_path);
    if (ctx->for_elf.ok && ctx->for_elf.rpath[0] != 0 && ctx->for_elf.runpath[0] == 0) {
        dr_fmt(origin, sizeof origin, "RPATH of %s", dr_basename(ctx->for_path));
        struct add_arg a = {ctx, DR_SRC_FOR_RPATH, origin, for_dir, true, false};
        dr_split(ctx->for_elf.rpath, ':', add_item, &a);
    }
    {
        /* glibc splits LD_LIBRARY_PATH at ':' and ';'. */
        const char *env = getenv("LD_LIBRARY_PATH");
        char buf[8192];
        dr_copy(buf, sizeof buf, env);
        for (char *c = buf; *c != 0; c++)
            if (*c == ';')
                *c = ':';
        struct add_arg a = {ctx, DR_SRC_LD_LIBRARY_PATH, "LD_LIBRARY_PATH", ".", true, false};
        dr_split(buf, ':', add_item, &a);
    }
    if (ctx->for_elf.ok && ctx->for_elf.runpath[0] != 0) {
        dr_fmt(origin, sizeof origin, "RUNPATH of %s", dr_basename(ctx->for_path));
        struct add_arg a = {ctx, DR_SRC_FOR_RUNPATH, origin, for_dir, true, false};
        dr_split(ctx->for_elf.runpath, ':', add_item, &a);
    }
    const char *cache = o->ld_cache != NULL ? o->ld_cache : "/etc/ld.so.cache";
    if (strcmp(cache, "none") != 0 && dr_ldcache_load(cache, &ctx->cache) == 0) {
        ctx->have_cache = true;
        dr_fmt(origin, sizeof origin, "ld.so.cache (%s)", cache);
        /* A cache named on the command line is the user's, not the system's. */
        add_source(ctx, DR_SRC_CACHE, "", origin, true, o->ld_cache == NULL);
    }
    static const char *const defaults[] = {
#if defined(__x86_64__)
        "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
#elif defined(__aarch64__)
        "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64",
#endif
        "/lib", "/usr/lib",
    };
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (dr_is_dir(defaults[i]))
            add_source(ctx, DR_SRC_DEFAULT, defaults[i], "default folder", true, true);

    /* ---- places the loader does not search by itself ---- */
    static const char *const env_roots[] = {"CUDNN_PATH", "CUDNN_HOME", "CUDNN_ROOT", "CUDNN_ROOT_DIR",
                                            "CUDNN_INSTALL_PATH", "CUDA_PATH", "CUDA_HOME"};
    for (size_t i = 0; i < sizeof env_roots / sizeof env_roots[0]; i++) {
        const char *root = getenv(env_roots[i]);
        if (root == NULL || root[0] == 0)
            continue;
        static const char *const subs[] = {"lib", "lib64", "lib/x64"};
        for (size_t k = 0; k < 3; k++) {
            dr_join(dir, sizeof dir, root, subs[k]);
            dr_fmt(origin, sizeof origin, "$%s/%s (not on the loader path)", env_roots[i], subs[k]);
            if (dr_is_dir(dir))
                add_source(ctx, DR_SRC_OFF_PATH, dir, origin, false, false);
        }
    }
    const char *conda = getenv("CONDA_PREFIX");
    if (conda != NULL && conda[0] != 0) {
        dr_join(dir, sizeof dir, conda, "lib");
        if (dr_is_dir(dir))
            add_source(ctx, DR_SRC_OFF_PATH, dir, "conda $CONDA_PREFIX/lib (not on the loader path)", false, false);
        dr_join(dir, sizeof dir, conda, "lib/python3*/site-packages");
        glob_python_sites(ctx, dir);
    }
    for (int i = 0; i < o->n_search_dirs; i++)
        add_source(ctx, DR_SRC_OFF_PATH, o->search_dirs[i], "--search (not on the loader path)", false, false);
    if (sys) {
        add_glob(ctx, "/usr/local/cuda*/lib64", "CUDA toolkit (not on the loader path)", true);
        add_glob(ctx, "/usr/local/cuda*/lib", "CUDA toolkit (not on the loader path)", true);
        add_glob(ctx, "/usr/local/cuda*/targets/*/lib", "CUDA toolkit (not on the loader path)", true);
        add_glob(ctx, "/opt/conda/lib", "conda base (not on the loader path)", true);
        add_glob(ctx, "/usr/lib/wsl/lib", "WSL driver folder (not on the loader path)", true);
    }

    /* Python site-packages: pip puts cuDNN in nvidia/cudnn/lib. */
    for (int i = 0; i < o->n_python_sites; i++)
        add_python_site(ctx, o->python_sites[i]);
    const char *venv = getenv("VIRTUAL_ENV");
    if (venv != NULL && venv[0] != 0) {
        dr_join(dir, sizeof dir, venv, "lib/python3*/site-packages");
        glob_python_sites(ctx, dir);
    }
    const char *home = getenv("HOME");
    if (sys && home != NULL && home[0] != 0) {
        dr_join(dir, sizeof dir, home, ".local/lib/python3*/site-packages");
        glob_python_sites(ctx, dir);
    }
    if (sys) {
        glob_python_sites(ctx, "/usr/lib/python3/dist-packages");
        glob_python_sites(ctx, "/usr/local/lib/python3*/dist-packages");
        glob_python_sites(ctx, "/usr/local/lib/python3*/site-packages");
        glob_python_sites(ctx, "/opt/conda/lib/python3*/site-packages");
    }
    for (int i = 0; i < ctx->n_python_sites; i++) {
        dr_join(dir, sizeof dir, ctx->python_sites[i], "nvidia/cudnn/lib");
        if (dr_is_dir(dir))
            add_source(ctx, DR_SRC_OFF_PATH, dir, "pip nvidia-cudnn (not on the loader path)", false, false);
        dr_join(dir, sizeof dir, ctx->python_sites[i], "torch/lib");
        if (dr_is_dir(dir))
            add_source(ctx, DR_SRC_OFF_PATH, dir, "PyTorch's torch/lib (not on the loader path)", false, false);
    }
}

long
dr_copy_version(const struct dr_copy *c)
{
    if (c->probe.done && c->probe.version > 0 && strcmp(c->probe.version_file, c->real) == 0)
        return c->probe.version;
    return c->name_version;
}

/* Adds the file at `path` as a copy unless the same real file is listed. */
static void
consider(const char *path, const char *name, const char *origin, bool on_path, struct dr_copy *out, int max,
         int *n, int *winner)
{
    if (!dr_is_file(path) || *n >= max)
        return;
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        return;
    for (int i = 0; i < *n; i++)
        if (strcmp(out[i].real, real) == 0)
            return;
    struct dr_copy *c = &out[(*n)++];
    memset(c, 0, sizeof *c);
    dr_copy(c->path, sizeof c->path, path);
    dr_copy(c->real, sizeof c->real, real);
    dr_copy(c->origin, sizeof c->origin, origin);
    c->on_path = on_path;
    dr_elf_read(real, &c->elf);
    c->loadable = dr_elf_loadable(&c->elf);
    /* "libcudnn_ops.so.9" -> prefix "libcudnn_ops.so." for the real name. */
    char prefix[128];
    const char *so = strstr(name, ".so");
    dr_fmt(prefix, sizeof prefix, "%.*s.so.", so != NULL ? (int)(so - name) : (int)strlen(name), name);
    c->name_version = dr_version_from_name(real, prefix);
    /* The loader passes over a file of another ELF class or machine, but a
     * file that is not a valid ELF object (a linker script, a truncated
     * copy) ends the search with an error: it "wins" and fails to load. */
    bool other_arch = c->elf.elf_class != 0 && !c->loadable && c->elf.machine != 0 &&
                      (c->elf.elf_class != (sizeof(void *) == 8 ? 2 : 1) || !dr_elf_loadable_machine(&c->elf));
    if (*winner < 0 && on_path && !other_arch)
        *winner = *n - 1;
}

static void
search_dirs(const char *rp, const char *from_dir, const char *origin, const char *name, struct dr_copy *out,
            int max, int *n, int *winner)
{
    char buf[DR_PATH * 2];
    dr_copy(buf, sizeof buf, rp);
    char *save = NULL;
    for (char *item = strtok_r(buf, ":", &save); item != NULL; item = strtok_r(NULL, ":", &save)) {
        char dir[DR_PATH], path[DR_PATH];
        expand_origin(dir, sizeof dir, item, from_dir);
        dr_join(path, sizeof path, dir, name);
        consider(path, name, origin, true, out, max, n, winner);
    }
}

int
dr_resolve(struct dr_ctx *ctx, const char *name, const char *from_path, const struct dr_elf *from,
           struct dr_copy *out, int max, int *winner)
{
    int n = 0;
    *winner = -1;
    if (strchr(name, '/') != NULL) {
        consider(name, dr_basename(name), "path given", true, out, max, &n, winner);
        return n;
    }
    bool from_is_app = from == NULL;
    if (from_is_app) {
        from = ctx->for_elf.ok ? &ctx->for_elf : NULL;
        from_path = ctx->for_path;
    }
    char from_dir[DR_PATH] = ".", origin[256];
    if (from_path != NULL && from_path[0] != 0)
        dr_dirname(from_dir, sizeof from_dir, from_path);
    bool from_has_runpath = from != NULL && from->runpath[0] != 0;
    bool skip_system = ctx->opt.no_system && dr_is_cudnn_name(name);

    if (!from_is_app && from != NULL && from->rpath[0] != 0 && !from_has_runpath) {
        dr_fmt(origin, sizeof origin, "RPATH of %s", dr_basename(from_path));
        search_dirs(from->rpath, from_dir, origin, name, out, max, &n, winner);
    }
    /* The asker's own RUNPATH comes after LD_LIBRARY_PATH, before the cache. */
    bool runpath_pending = !from_is_app && from_has_runpath;
    for (int i = 0; i < ctx->n_sources; i++) {
        const struct dr_source *s = &ctx->sources[i];
        if (runpath_pending && s->kind >= DR_SRC_CACHE) {
            dr_fmt(origin, sizeof origin, "RUNPATH of %s", dr_basename(from_path));
            search_dirs(from->runpath, from_dir, origin, name, out, max, &n, winner);
            runpath_pending = false;
        }
        if (s->system && skip_system)
            continue;
        if (s->kind == DR_SRC_FOR_RPATH && from_has_runpath)
            continue;                     /* RUNPATH in the asker disables RPATH */
        if (s->kind == DR_SRC_FOR_RUNPATH && !from_is_app)
            continue;                     /* RUNPATH serves the object's own needs only */
        if (s->kind == DR_SRC_CACHE) {
            for (int k = 0; k < ctx->cache.n; k++)
                if (strcmp(ctx->cache.entries[k].key, name) == 0)
                    consider(ctx->cache.entries[k].value, name, s->origin, true, out, max, &n, winner);
            continue;
        }
        char path[DR_PATH];
        dr_join(path, sizeof path, s->path, name);
        consider(path, name, s->origin, s->on_path, out, max, &n, winner);
    }
    if (runpath_pending) {
        dr_fmt(origin, sizeof origin, "RUNPATH of %s", dr_basename(from_path));
        search_dirs(from->runpath, from_dir, origin, name, out, max, &n, winner);
    }
    /* On-path copies first, in loader order; off-path ones after. */
    struct dr_copy tmp;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j].on_path && !out[j - 1].on_path; j--) {
            tmp = out[j];
            out[j] = out[j - 1];
            out[j - 1] = tmp;
            if (*winner == j)
                *winner = j - 1;
        }
    return n;
}

void
dr_search_cudnn(struct dr_ctx *ctx)
{
    int total = 7 + 8;
    ctx->sonames = calloc((size_t)total, sizeof *ctx->sonames);
    if (ctx->sonames == NULL)
        return;
    for (int fam = 0; fam < 2; fam++) {
        const char *const *names = fam == 0 ? family8 : family9;
        const char *const *checks = fam == 0 ? checks8 : checks9;
        int count = fam == 0 ? 7 : 8;
        struct dr_soname *shim = NULL;
        for (int i = 0; i < count; i++) {
            struct dr_soname *s = &ctx->sonames[ctx->n_sonames++];
            s->name = names[i];
            s->family = fam == 0 ? 8 : 9;
            s->is_shim = i == 0;
            s->check_fn = checks[i];
            /* NVIDIA's shim opens its sub-libraries by bare name, so they
             * are searched with the shim's RPATH/RUNPATH (not the program's
             * RUNPATH).  FreeDNN's shim holds everything; its sub-libraries
             * are only loaded when the program links them, so they are
             * searched as the program sees them. */
            const struct dr_copy *w = shim != NULL && shim->winner >= 0 ? &shim->copies[shim->winner] : NULL;
            if (w != NULL && w->elf.exports_freednn)
                w = NULL;
            s->n = dr_resolve(ctx, s->name, w != NULL ? w->path : NULL, w != NULL ? &w->elf : NULL, s->copies,
                              DR_MAX_COPIES, &s->winner);
            if (i == 0)
                shim = s;
        }
    }
}
