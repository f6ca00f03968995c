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
 * on, and so is a file that cannot be opened for lack of permission
 * (EACCES) or that does not exist (a dangling link).  Anything else that
 * bears the name (a directory, a link loop, a file that is not ELF) ends
 * the search with an error.  In the lists, an empty element is the current
 * folder; $ORIGIN is the folder of the object that carries the list (of the
 * program for LD_LIBRARY_PATH), $LIB the loader's library folder name
 * ("lib/x86_64-linux-gnu" on Debian, "lib64" on Fedora), $PLATFORM the
 * AT_PLATFORM string ("x86_64").  From glibc 2.33, each folder's
 * glibc-hwcaps/<level> subfolders (x86-64-v4, -v3, -v2 as the CPU allows,
 * as `ld.so --help` lists them) are searched before the folder itself.
 * After the loader's own places, we list places where cuDNN is commonly
 * installed but that the loader does not search by itself: CUDA toolkits,
 * conda environments, pip's nvidia/cudnn/lib, folders named by CUDNN_PATH
 * and friends, and --search.  A copy found only there is "not on the path". */
#include "doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dlfcn.h>
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
    if (ctx->n_sources >= ctx->cap_sources) {
        int cap = ctx->cap_sources ? 2 * ctx->cap_sources : 64;
        struct dr_source *grown = realloc(ctx->sources, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        ctx->sources = grown;
        ctx->cap_sources = cap;
    }
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

/* The dynamic string tokens of one path element: $ORIGIN, $LIB, $PLATFORM,
 * with or without braces.  Other '$' are kept as they are (glibc does). */
static const struct dr_ctx *dst_ctx;

static void
expand_origin(char *dst, size_t n, const char *item, const char *origin_dir)
{
    char out[DR_PATH] = "";
    size_t len = 0;
    for (const char *p = item; *p != 0 && len + 1 < sizeof out;) {
        static const char *const names[] = {"ORIGIN", "LIB", "PLATFORM"};
        const char *value = NULL;
        size_t skip = 0;
        if (*p == '$') {
            for (int k = 0; k < 3 && value == NULL; k++) {
                size_t nl = strlen(names[k]);
                bool brace = p[1] == '{';
                const char *q = p + 1 + brace;
                if (strncmp(q, names[k], nl) != 0)
                    continue;
                if (brace ? q[nl] != '}' : (q[nl] == '_' || (q[nl] >= 'A' && q[nl] <= 'Z') ||
                                            (q[nl] >= 'a' && q[nl] <= 'z') || (q[nl] >= '0' && q[nl] <= '9')))
                    continue;
                value = k == 0 ? origin_dir : dst_ctx == NULL ? "" : k == 1 ? dst_ctx->dst_lib : dst_ctx->dst_platform;
                skip = 1 + nl + (brace ? 2 : 0);
            }
        }
        if (value != NULL) {
            int w = snprintf(out + len, sizeof out - len, "%s", value);
            len += w > 0 ? (size_t)w : 0;
            if (len >= sizeof out)
                len = sizeof out - 1;
            p += skip;
        } else {
            out[len++] = *p++;
        }
    }
    out[len] = 0;
    dr_copy(dst, n, out);
}

/* $LIB: the folder, below the root, that holds the C library this process
 * loaded ("/lib/x86_64-linux-gnu/libc.so.6" -> "lib/x86_64-linux-gnu"),
 * which is how distributions configure glibc's $LIB.  $PLATFORM: the
 * kernel's AT_PLATFORM.  The glibc-hwcaps levels: as `ld.so --help` lists
 * them ("x86-64-v3 (supported, searched)"); none with a glibc before 2.33. */
static void
init_loader_facts(struct dr_ctx *ctx)
{
    dst_ctx = ctx;
    Dl_info info;
    dr_copy(ctx->dst_lib, sizeof ctx->dst_lib, sizeof(void *) == 8 ? "lib64" : "lib");
    if (dladdr((void *)&printf, &info) != 0 && info.dli_fname != NULL && info.dli_fname[0] == '/') {
        char dir[DR_PATH];
        dr_dirname(dir, sizeof dir, info.dli_fname);
        const char *rel = dir + 1;
        if (dr_starts_with(rel, "usr/"))
            rel += 4;
        if (rel[0] != 0)
            dr_copy(ctx->dst_lib, sizeof ctx->dst_lib, rel);
    }
    const char *plat = (const char *)getauxval(AT_PLATFORM);
    dr_copy(ctx->dst_platform, sizeof ctx->dst_platform, plat != NULL ? plat : "");

    static const char *const loaders[] = {"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1",
                                          "/lib64/ld64.so.2", "/lib/ld-linux.so.2"};
    const char *ld = NULL;
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0] && ld == NULL; i++)
        if (access(loaders[i], X_OK) == 0)
            ld = loaders[i];
    int pfd[2];
    if (ld == NULL || pipe(pfd) != 0)
        return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(pfd[1], STDOUT_FILENO);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        close(pfd[0]);
        execl(ld, ld, "--help", (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    char text[8192];
    size_t len = 0;
    ssize_t r;
    while (pid > 0 && len + 1 < sizeof text && (r = read(pfd[0], text + len, sizeof text - 1 - len)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        len += (size_t)r;
    }
    close(pfd[0]);
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    text[len] = 0;
    /* glibc 2.33+: "glibc-hwcaps/<name>" subfolders; up to 2.36 also the
     * legacy ones ("x86_64 (AT_PLATFORM; supported, searched)"), after. */
    static const char *const sections[2][2] = {{"Subdirectories of glibc-hwcaps directories", "glibc-hwcaps/"},
                                               {"Legacy HWCAP subdirectories under library search path", ""}};
    for (int sec = 0; sec < 2; sec++) {
        const char *p = strstr(text, sections[sec][0]);
        for (p = p != NULL ? strchr(p, '\n') : NULL; p != NULL && ctx->n_hwcaps < 8; p = strchr(p + 1, '\n')) {
            char name[32], state[64];
            if (sscanf(p + 1, " %31s (%63[^)])", name, state) != 2)
                break;
            if (strstr(state, "searched") != NULL && strstr(state, "supported") != NULL)
                dr_fmt(ctx->hwcaps[ctx->n_hwcaps++], sizeof ctx->hwcaps[0], "%s%s", sections[sec][1], name);
        }
    }
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
    char dir[DR_PATH], origin[200];
    expand_origin(dir, sizeof dir, item, a->origin_dir != NULL ? a->origin_dir : ".");
    if (item[0] == 0) {
        /* The loader opens "libcudnn.so.8" relative to the current folder. */
        char cwd[DR_PATH];
        dr_copy(dir, sizeof dir, getcwd(cwd, sizeof cwd) != NULL ? cwd : ".");
        dr_fmt(origin, sizeof origin, "%s (an empty element: the current folder)", a->origin);
        add_source(a->ctx, a->kind, dir, origin, a->on_path, a->system);
        return;
    }
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
    init_loader_facts(ctx);

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
        dr_split_search(ctx->for_elf.rpath, ":", add_item, &a);
    }
    {
        /* glibc splits LD_LIBRARY_PATH at ':' and ';'; an empty element
         * (what `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/x` gives when it
         * was empty) is the current folder.  $ORIGIN there is the
         * program's folder. */
        const char *env = getenv("LD_LIBRARY_PATH");
        struct add_arg a = {ctx, DR_SRC_LD_LIBRARY_PATH, "LD_LIBRARY_PATH", ctx->for_path[0] ? for_dir : ".", true,
                            false};
        if (env != NULL && env[0] != 0)
            dr_split_search(env, ":;", add_item, &a);
    }
    if (ctx->for_elf.ok && ctx->for_elf.runpath[0] != 0) {
        dr_fmt(origin, sizeof origin, "RUNPATH of %s", dr_basename(ctx->for_path));
        struct add_arg a = {ctx, DR_SRC_FOR_RUNPATH, origin, for_dir, true, false};
        dr_split_search(ctx->for_elf.runpath, ":", add_item, &a);
    }
    const char *cache = o->ld_cache != NULL ? o->ld_cache : "/etc/ld.so.cache";
    int cache_rc = strcmp(cache, "none") != 0 ? dr_ldcache_load(cache, &ctx->cache) : -1;
    if (cache_rc != 0 && strcmp(cache, "none") != 0 && access(cache, F_OK) == 0) {
        /* (An unreadable --ld-cache is a usage error, found in main.) */
        dr_verdict(DR_WARN, "ld-cache", "run ldconfig (as root) to rewrite it",
                   "%s exists but cannot be used (%s): the doctor searches without it, as the loader does",
                   cache, ctx->cache.error);
        dr_ldcache_free(&ctx->cache);
    } else if (cache_rc == 0) {
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
    if (ctx->own_lib[0] != 0)
        add_source(ctx, DR_SRC_OFF_PATH, ctx->own_lib, "the archive this cudnn-doctor came with (not on the loader path)",
                   false, false);
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

/* Adds the file at `path` as a copy unless the same real file is listed.
 * What the loader does with the name there (glibc's open_path and
 * open_verify): nothing there, or a dangling link -> go on; no permission
 * to open it -> go on (an unreadable copy, listed, never the winner);
 * a directory, a link loop, a file that is not ELF -> stop with an error
 * (the copy "wins" and fails to load); an ELF file of another class or
 * machine -> go on. */
static void
consider(const char *path, const char *name, const char *origin, bool on_path, struct dr_copy *out, int max,
         int *n, int *winner)
{
    struct stat st;
    int stat_errno = stat(path, &st) == 0 ? 0 : errno;
    if (stat_errno == ENOENT || stat_errno == ENOTDIR || *n >= max)
        return;
    if (stat_errno != 0 && stat_errno != ELOOP)
        return;
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        dr_copy(real, sizeof real, path);
    for (int i = 0; i < *n; i++)
        if (strcmp(out[i].real, real) == 0)
            return;
    struct dr_copy *c = &out[(*n)++];
    memset(c, 0, sizeof *c);
    dr_copy(c->path, sizeof c->path, path);
    dr_copy(c->real, sizeof c->real, real);
    dr_copy(c->origin, sizeof c->origin, origin);
    c->on_path = on_path;
    if (stat_errno == ELOOP) {
        dr_copy(c->elf.error, sizeof c->elf.error, "a symbolic link loop (\"Too many levels of symbolic links\")");
    } else if (S_ISDIR(st.st_mode)) {
        dr_copy(c->elf.error, sizeof c->elf.error, "a directory, not a file (\"cannot read file data: Is a directory\")");
    } else if (access(path, R_OK) != 0 && errno == EACCES) {
        c->unreadable = true;
        dr_fmt(c->elf.error, sizeof c->elf.error, "not readable by this user (permissions %03o)",
               (unsigned)(st.st_mode & 0777));
        return;                      /* skipped by the loader: never the winner */
    } else {
        dr_elf_read(real, &c->elf);
        c->loadable = dr_elf_loadable(&c->elf);
    }
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

/* One folder of the loader's search: its glibc-hwcaps subfolders first. */
static void
consider_dir(const struct dr_ctx *ctx, const char *dir, const char *name, const char *origin, bool on_path,
             struct dr_copy *out, int max, int *n, int *winner)
{
    char path[DR_PATH], sub[DR_PATH], o[256];
    for (int h = 0; on_path && h < ctx->n_hwcaps; h++) {
        dr_fmt(sub, sizeof sub, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/",
               ctx->hwcaps[h]);
        dr_join(path, sizeof path, sub, name);
        dr_fmt(o, sizeof o, "%s, subfolder %s", origin, ctx->hwcaps[h]);
        consider(path, name, o, on_path, out, max, n, winner);
    }
    dr_join(path, sizeof path, dir, name);
    consider(path, name, origin, on_path, out, max, n, winner);
}

struct dirs_arg {
    const struct dr_ctx *ctx;
    const char *from_dir, *origin, *name;
    struct dr_copy *out;
    int max, *n, *winner;
};

static void
search_item(const char *item, void *p)
{
    struct dirs_arg *a = p;
    char dir[DR_PATH], cwd[DR_PATH];
    if (item[0] == 0)
        dr_copy(dir, sizeof dir, getcwd(cwd, sizeof cwd) != NULL ? cwd : ".");
    else
        expand_origin(dir, sizeof dir, item, a->from_dir);
    consider_dir(a->ctx, dir, a->name, a->origin, true, a->out, a->max, a->n, a->winner);
}

static void
search_dirs(const struct dr_ctx *ctx, const char *rp, const char *from_dir, const char *origin, const char *name,
            struct dr_copy *out, int max, int *n, int *winner)
{
    struct dirs_arg a = {ctx, from_dir, origin, name, out, max, n, winner};
    dr_split_search(rp, ":", search_item, &a);
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
        search_dirs(ctx, from->rpath, from_dir, origin, name, out, max, &n, winner);
    }
    /* The asker's own RUNPATH comes after LD_LIBRARY_PATH, before the cache. */
    bool runpath_pending = !from_is_app && from_has_runpath;
    for (int i = 0; i < ctx->n_sources; i++) {
        const struct dr_source *s = &ctx->sources[i];
        if (runpath_pending && s->kind >= DR_SRC_CACHE) {
            dr_fmt(origin, sizeof origin, "RUNPATH of %s", dr_basename(from_path));
            search_dirs(ctx, from->runpath, from_dir, origin, name, out, max, &n, winner);
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
        consider_dir(ctx, s->path, name, s->origin, s->on_path, out, max, &n, winner);
    }
    if (runpath_pending) {
        dr_fmt(origin, sizeof origin, "RUNPATH of %s", dr_basename(from_path));
        search_dirs(ctx, from->runpath, from_dir, origin, name, out, max, &n, winner);
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
