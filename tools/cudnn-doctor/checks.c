/* SPDX-License-Identifier: Apache-2.0
 * The Linux checks.  Each looks at what search.c found (and what probe.c
 * learnt by loading it in a child) and ends in verdicts: what is wrong, in
 * the words of the error users see, and the fix.  Numbers in comments refer
 * to the failure table of ecosystem.md section 2. */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const checks8_all[] = {"cudnnOpsInferVersionCheck", "cudnnOpsTrainVersionCheck",
                                          "cudnnCnnInferVersionCheck", "cudnnCnnTrainVersionCheck",
                                          "cudnnAdvInferVersionCheck", "cudnnAdvTrainVersionCheck", NULL};
static const char *const checks9_all[] = {"cudnnGraphVersionCheck", "cudnnOpsVersionCheck", "cudnnCnnVersionCheck",
                                          "cudnnAdvVersionCheck", NULL};

struct dr_soname *
dr_family_shim(struct dr_ctx *ctx, int fam)
{
    for (int i = 0; i < ctx->n_sonames; i++)
        if (ctx->sonames[i].family == fam && ctx->sonames[i].is_shim)
            return &ctx->sonames[i];
    return NULL;
}

static bool
family_present(struct dr_ctx *ctx, int fam)
{
    for (int i = 0; i < ctx->n_sonames; i++)
        if (ctx->sonames[i].family == fam && ctx->sonames[i].n > 0)
            return true;
    return false;
}

struct dr_copy *
dr_winner(struct dr_soname *s)
{
    return s != NULL && s->winner >= 0 ? &s->copies[s->winner] : NULL;
}

static void
vstr(char *dst, size_t n, const struct dr_copy *c)
{
    dr_version_str(dst, n, dr_copy_version(c));
}

/* Probes every copy: the shim with all version checks (and, for the chosen
 * one, the self-test), each sub-library with its own check. */
static void
probe_all(struct dr_ctx *ctx, int selftest_family)
{
    for (int i = 0; i < ctx->n_sonames; i++) {
        struct dr_soname *s = &ctx->sonames[i];
        struct dr_copy *shim = s->is_shim ? NULL : dr_winner(dr_family_shim(ctx, s->family));
        for (int k = 0; k < s->n; k++) {
            struct dr_copy *c = &s->copies[k];
            if (!c->loadable && k != s->winner)
                continue;                /* the winner is probed even when broken: dlopen says how */
            const char *own[2] = {s->check_fn, NULL};
            const char *const *checks = s->is_shim ? (s->family == 8 ? checks8_all : checks9_all) : own;
            bool st = s->is_shim && k == s->winner && s->family == selftest_family && !ctx->opt.no_selftest;
            /* A sub-library comes into a process that has the shim loaded:
             * its own need for the shim is met by that copy. */
            dr_probe_library_after(shim != NULL ? shim->path : NULL, c->path, checks, st, ctx->opt.timeout_s,
                                   &c->probe);
        }
    }
}

/* The fix for a copy that is in the way or cannot be used: permissions
 * for an unreadable file (the step in NVIDIA's install guide), removal for
 * a folder or a link loop, the real library for a damaged file. */
const char *
dr_unusable_fix(const struct dr_copy *c, char *fix, size_t n)
{
    char dir[DR_PATH];
    dr_dirname(dir, sizeof dir, c->real);
    if (c->unreadable)
        dr_fmt(fix, n, "sudo chmod a+r %s (and a+x on its folders), as NVIDIA's install guide does after "
               "copying: chmod a+r %s/libcudnn*", c->real, dir);
    else if (strstr(c->elf.error, "directory") != NULL || strstr(c->elf.error, "loop") != NULL)
        dr_fmt(fix, n, "remove or rename %s: the loader cannot search past it", c->path);
    else
        dr_copy(fix, n, "replace it with the real library from the archive");
    return fix;
}

static void
check_found(struct dr_ctx *ctx, int fam, int expect_major)
{
    struct dr_soname *shim = dr_family_shim(ctx, fam);
    struct dr_copy *w = dr_winner(shim);
    char v[32], fix[600];
    if (w != NULL && !w->loadable) {
        dr_verdict(DR_FAIL, "found", dr_unusable_fix(w, fix, sizeof fix),
                   "%s resolves to %s, which is not a valid library (%s): the loader stops there and every "
                   "program that needs it fails", shim->name, w->path, w->elf.error[0] ? w->elf.error : "not loadable");
        return;
    }
    if (w != NULL) {
        vstr(v, sizeof v, w);
        dr_verdict(DR_OK, "found", NULL, "%s loads from %s (version %s, %s)", shim->name, w->path, v, w->origin);
        return;
    }
    /* A copy the loader skips because it cannot read it (#4). */
    for (int k = 0; shim != NULL && k < shim->n; k++)
        if (shim->copies[k].on_path && shim->copies[k].unreadable) {
            const struct dr_copy *c = &shim->copies[k];
            dr_verdict(DR_FAIL, "found", dr_unusable_fix(c, fix, sizeof fix),
                       "%s exists at %s but is not readable (%s): the loader skips it and finds no other copy "
                       "(\"%s: cannot open shared object file: Permission denied\")", shim->name, c->path,
                       c->elf.error, shim->name);
            return;
        }
    /* Is it somewhere the loader does not look?  (#7) */
    const struct dr_copy *off = NULL;
    for (int k = 0; shim != NULL && k < shim->n; k++)
        if (!shim->copies[k].on_path && shim->copies[k].loadable)
            off = &shim->copies[k];
    if (off != NULL) {
        char dir[DR_PATH];
        dr_dirname(dir, sizeof dir, off->path);
        dr_fmt(fix, sizeof fix, "export LD_LIBRARY_PATH=%s:$LD_LIBRARY_PATH (or add the folder to a file in "
               "/etc/ld.so.conf.d/ and run ldconfig)", dir);
        dr_verdict(fam == expect_major ? DR_FAIL : DR_WARN, "found", fix,
                   "%s exists at %s but the loader does not search there: programs that load it by name fail "
                   "with \"%s: cannot open shared object file\" (frameworks with their own RPATH, like PyTorch "
                   "wheels, still find their copy)", shim->name, off->path, shim->name);
        return;
    }
    dr_verdict(DR_FAIL, "found", "install cuDNN (the archive's lib/ folder, the libcudnn package, or pip "
               "nvidia-cudnn-cuXX) or add the folder that holds it to LD_LIBRARY_PATH",
               "%s is not found anywhere, but other cuDNN %d files are", shim != NULL ? shim->name : "the shim",
               fam);
}

static void
check_sublibs(struct dr_ctx *ctx, int fam)
{
    struct dr_soname *shim = dr_family_shim(ctx, fam);
    struct dr_copy *sw = dr_winner(shim);
    char dir[DR_PATH], fix[800];
    if (sw == NULL)
        return;                          /* the "found" verdict says why */
    dr_dirname(dir, sizeof dir, sw->path);
    int missing = 0;
    for (int i = 0; i < ctx->n_sonames; i++) {
        struct dr_soname *s = &ctx->sonames[i];
        if (s->family != fam || s->is_shim || s->winner >= 0)
            continue;
        missing++;
        const struct dr_copy *off = NULL, *unreadable = NULL;
        for (int k = 0; k < s->n; k++) {
            if (s->copies[k].loadable)
                off = &s->copies[k];
            if (s->copies[k].unreadable && s->copies[k].on_path && unreadable == NULL)
                unreadable = &s->copies[k];
        }
        if (unreadable != NULL) {
            dr_verdict(DR_FAIL, "sublib-missing", dr_unusable_fix(unreadable, fix, sizeof fix),
                       "%s at %s is not readable (%s): the loader skips it, so the first call that needs it fails "
                       "with \"Could not load library %s\"", s->name, unreadable->path, unreadable->elf.error,
                       s->name);
        } else if (off != NULL) {
            char odir[DR_PATH];
            dr_dirname(odir, sizeof odir, off->path);
            dr_fmt(fix, sizeof fix, "put %s on LD_LIBRARY_PATH, or copy %s* from it into %s", odir, s->name, dir);
            dr_verdict(DR_FAIL, "sublib-missing", fix,
                       "%s is not on the loader path (a copy sits at %s): the first call that needs it fails "
                       "with \"Could not load library %s ... Please make sure %s is in your library path!\" and "
                       "the process aborts", s->name, off->path, s->name, s->name);
        } else {
            dr_fmt(fix, sizeof fix, "copy %s* from the same cuDNN %d archive (its lib/ folder) into %s", s->name,
                   fam, dir);
            if (sw->elf.exports_freednn)
                dr_verdict(DR_FAIL, "sublib-missing", fix,
                           "%s is missing: programs linked against it do not start (\"%s: cannot open shared "
                           "object file\")", s->name, s->name);
            else
                dr_verdict(DR_FAIL, "sublib-missing", fix,
                           "%s is missing: the first call that needs it fails with \"Could not load library %s\" "
                           "and the process aborts", s->name, s->name);
        }
    }
    if (missing == 0)
        dr_verdict(DR_OK, "sublib-missing", NULL, "all cuDNN %d sub-libraries are on the loader path", fam);
}

/* #8: sub-libraries of different versions; also the shim's version checks. */
static void
check_mixed(struct dr_ctx *ctx, int fam)
{
    struct dr_soname *shim = dr_family_shim(ctx, fam);
    struct dr_copy *sw = dr_winner(shim);
    if (sw == NULL)
        return;
    long ref = dr_copy_version(sw);
    char list[700] = "", v[32], item[300];
    int bad = 0, known = 0, present = 0;
    for (int i = 0; i < ctx->n_sonames; i++) {
        struct dr_soname *s = &ctx->sonames[i];
        struct dr_copy *w = dr_winner(s);
        if (s->family != fam || s->is_shim || w == NULL)
            continue;
        present++;
        long ver = dr_copy_version(w);
        known += ver != 0;
        if (ver == 0 || ref == 0 || ver == ref)
            continue;
        bad++;
        vstr(v, sizeof v, w);
        dr_fmt(item, sizeof item, "%s%s %s (%s)", bad > 1 ? ", " : "", s->name, v, w->real);
        strncat(list, item, sizeof list - strlen(list) - 1);
    }
    char rv[32];
    dr_version_str(rv, sizeof rv, ref);
    if (bad > 0) {
        dr_verdict(DR_FAIL, "sublib-mix",
                   "use one installation: put all seven files of one cuDNN version in one folder and remove "
                   "(or move off the path) the stray copies",
                   "cuDNN sub-libraries of different versions are mixed: %s is %s but %s; expect \"undefined "
                   "symbol ... version libcudnn_..._infer.so.%d\" or wrong results", shim->name, rv, list, fam);
    }
    int checks_failed = 0, checks_passed = 0;
    /* Each sub-library's own version check (cudnnCnnInferVersionCheck in
     * libcudnn_cnn_infer.so.8), asked with the shim loaded: non-zero means
     * it does not accept the libraries around it, whatever its file name
     * says (pip's files carry no version in their names). */
    for (int i = 0; i < ctx->n_sonames; i++) {
        struct dr_soname *s = &ctx->sonames[i];
        struct dr_copy *w = dr_winner(s);
        if (s->family != fam || s->is_shim || w == NULL || !w->probe.loaded)
            continue;
        for (int k = 0; k < w->probe.n_checks; k++) {
            int st = w->probe.check_status[k];
            if (st <= 0)
                continue;
            checks_failed++;
            dr_verdict(DR_FAIL, "sublib-mix", "install the sub-libraries from the same archive as the shim",
                       "%s in %s returned status %d: the sub-library rejects the cuDNN libraries it was loaded "
                       "with (another version)", w->probe.check_name[k], w->path, st);
        }
    }
    for (int i = 0; i < sw->probe.n_checks; i++) {
        int s = sw->probe.check_status[i];
        checks_passed += s == 0;
        if (s > 0) {
            checks_failed++;
            dr_verdict(DR_FAIL, "sublib-mix", "install the sub-libraries from the same archive as the shim",
                       "%s through %s returned status %d (a sub-library failed its version check or could not "
                       "be loaded)", sw->probe.check_name[i], sw->path, s);
        }
    }
    /* Sub-library versions are known from their file names (8.x archives)
     * or from their own cudnnGetVersion; cuDNN 9's files carry neither, and
     * there the shim's version checks are the evidence. */
    if (bad == 0 && checks_failed == 0 && ref != 0 && present > 0) {
        char checks[96] = "";
        if (checks_passed > 0)
            dr_fmt(checks, sizeof checks, "; %d version check%s through the shim pass", checks_passed,
                   checks_passed > 1 ? "s" : "");
        if (known == present)
            dr_verdict(DR_OK, "sublib-mix", NULL, "the cuDNN %d sub-libraries on the path all have version %s%s", fam,
                       rv, checks);
        else
            dr_verdict(DR_OK, "sublib-mix", NULL, "%d of %d cuDNN %d sub-libraries show their version and it is %s "
                       "(the others do not carry one)%s", known, present, fam, rv, checks);
    }
}

/* #9, #11, #12: two copies of one soname on the path. */
static void
check_shadow(struct dr_ctx *ctx, int fam)
{
    int found = 0;
    for (int i = 0; i < ctx->n_sonames; i++) {
        struct dr_soname *s = &ctx->sonames[i];
        struct dr_copy *w = dr_winner(s);
        if (s->family != fam || w == NULL)
            continue;
        long wv = dr_copy_version(w);
        for (int k = 0; k < s->n; k++) {
            struct dr_copy *c = &s->copies[k];
            if (k == s->winner || !c->on_path || !c->loadable)
                continue;
            found++;
            char v1[32], v2[32], fix[800], dir[DR_PATH];
            vstr(v1, sizeof v1, w);
            vstr(v2, sizeof v2, c);
            dr_dirname(dir, sizeof dir, w->path);
            long cv = dr_copy_version(c);
            if (wv != cv) {
                dr_fmt(fix, sizeof fix, "remove the copy you do not want, or reorder: %s comes first because of "
                       "%s (a folder earlier in LD_LIBRARY_PATH wins; RPATH beats LD_LIBRARY_PATH beats RUNPATH "
                       "beats ld.so.cache)", dir, w->origin);
                dr_verdict(DR_FAIL, "shadow", fix,
                           "two copies of %s with different versions: %s (%s, from %s) is loaded and shadows %s "
                           "(%s, from %s)", s->name, w->path, v1, w->origin, c->path, v2, c->origin);
            } else {
                dr_verdict(DR_WARN, "shadow", "keep one copy to avoid surprises when one of them is upgraded",
                           "two copies of %s with the same version %s: %s loads, %s is shadowed", s->name, v1,
                           w->path, c->path);
            }
        }
    }
    if (found == 0 && dr_family_shim(ctx, fam)->winner >= 0)
        dr_verdict(DR_OK, "shadow", NULL, "one copy of each cuDNN %d library on the loader path", fam);
}

/* Loads every winner; a failing dlopen names the missing piece (#7, #8). */
static void
check_load(struct dr_ctx *ctx, int fam)
{
    int bad = 0, loaded = 0;
    for (int i = 0; i < ctx->n_sonames; i++) {
        struct dr_soname *s = &ctx->sonames[i];
        struct dr_copy *w = dr_winner(s);
        if (s->family != fam || w == NULL || ctx->opt.no_probe)
            continue;
        if (w->probe.loaded) {
            loaded++;
            continue;
        }
        bad++;
        dr_verdict(DR_FAIL, "load", "see the missing file named in the message; the dependency checks below say "
                   "where it should come from",
                   "loading %s (%s) fails: %s%s", s->name, w->path,
                   w->probe.timed_out ? "it hangs: " : "", w->probe.error);
    }
    if (bad == 0 && loaded > 0)
        dr_verdict(DR_OK, "load", NULL, "all %d cuDNN %d libraries on the path load in a test process", loaded, fam);
}

/* #13: header version vs the library that loads. */
static void
check_headers(struct dr_ctx *ctx)
{
    if (ctx->n_headers == 0) {
        dr_verdict(DR_INFO, "header", NULL, "no cuDNN headers found (they are only needed to build programs)");
        return;
    }
    for (int i = 0; i < ctx->n_headers; i++) {
        const struct dr_header *h = &ctx->headers[i];
        int major = (int)(h->version / 10000);
        char hv[32], lv[32], fix[900], incdir[DR_PATH];
        dr_version_str(hv, sizeof hv, h->version);
        struct dr_soname *shim = major == 8 || major == 9 ? dr_family_shim(ctx, major) : NULL;
        struct dr_copy *w = dr_winner(shim);
        if (w == NULL) {
            if (h->paired || family_present(ctx, 8) || family_present(ctx, 9))
                dr_verdict(DR_WARN, "header", "install the library that goes with this header, or remove the header",
                           "%s says cuDNN %s but no libcudnn.so.%d is on the loader path: a program built with it "
                           "will not start", h->path, hv, major);
            continue;
        }
        long lver = dr_copy_version(w);
        dr_version_str(lv, sizeof lv, lver);
        if (lver != 0 && lver / 10000 != major) {
            /* libcudnn.so.8 that is really another major: the library is
             * wrong, not the header (the "file" check says so too). */
            dr_fmt(fix, sizeof fix, "make %s a cuDNN %d library of version %s (the one this header comes with); "
                   "do not change the header", shim->name, major, hv);
            dr_verdict(DR_FAIL, "header", fix,
                       "%s says cuDNN %s but the %s that loads (%s) is cuDNN %s: not a cuDNN %d library at all",
                       h->path, hv, shim->name, w->path, lv, major);
        } else if (lver != 0 && lver != h->version) {
            dr_dirname(incdir, sizeof incdir, w->real);
            dr_fmt(fix, sizeof fix, "build against the headers shipped with the library you run (the include/ "
                   "folder beside %s), or replace %s with the %s headers", incdir, h->path, lv);
            dr_verdict(DR_FAIL, "header", fix,
                       "%s says cuDNN %s but the %s that loads (%s) is %s: programs compiled with this header "
                       "see CUDNN_VERSION != cudnnGetVersion()", h->path, hv, shim->name, w->path, lv);
        } else {
            dr_verdict(DR_OK, "header", NULL, "%s (%s) matches the library that loads", h->path, hv);
        }
    }
}

/* A copy whose name and SONAME disagree is a renamed file; a 32-bit copy on
 * the path is skipped by the loader. */
static void
check_files(struct dr_ctx *ctx)
{
    for (int i = 0; i < ctx->n_sonames; i++) {
        struct dr_soname *s = &ctx->sonames[i];
        for (int k = 0; k < s->n; k++) {
            struct dr_copy *c = &s->copies[k];
            bool other_arch = c->elf.elf_class != 0 && c->elf.machine != 0 &&
                              (c->elf.elf_class != (sizeof(void *) == 8 ? 2 : 1) ||
                               !dr_elf_loadable_machine(&c->elf));
            char fix[600];
            if (c->unreadable) {
                struct dr_copy *w = dr_winner(s);
                if (c->on_path && w != NULL)
                    dr_verdict(DR_WARN, "file", dr_unusable_fix(c, fix, sizeof fix),
                               "%s is not readable (%s): the loader skips it and loads %s instead", c->path,
                               c->elf.error, w->path);
                continue;
            }
            if (!c->elf.ok && !other_arch) {
                if (c->on_path)
                    dr_verdict(DR_FAIL, "file", dr_unusable_fix(c, fix, sizeof fix),
                               "%s is not a usable library (%s)%s", c->path, c->elf.error,
                               k == s->winner ? "; the loader stops at it and fails" : "");
                continue;
            }
            /* libcudnn.so.8 that is really cuDNN 9 (a link to the wrong file):
             * a program built for cuDNN 8 cannot run on it. */
            long cv = dr_copy_version(c);
            int so_major = 0;
            const char *so = strstr(c->elf.soname, ".so.");
            if (so != NULL)
                so_major = atoi(so + 4);
            int real_major = cv > 0 ? (int)(cv / 10000) : so_major;
            if (k == s->winner && real_major > 0 && real_major != s->family) {
                char v[32];
                dr_version_str(v, sizeof v, cv);
                dr_fmt(fix, sizeof fix, "make %s point to a cuDNN %d library (all files from one cuDNN %d "
                       "install); a cuDNN %d library is only for programs built against cuDNN %d", c->path,
                       s->family, s->family, real_major, real_major);
                dr_verdict(DR_FAIL, "file", fix,
                           "%s is found as %s but it is cuDNN %s (%s, SONAME %s): a program built for cuDNN %d "
                           "cannot run on it", c->path, s->name, cv > 0 ? v : "of another major", c->real,
                           c->elf.soname[0] ? c->elf.soname : "none", s->family);
                continue;
            }
            if (other_arch && c->on_path)
                dr_verdict(DR_WARN, "file", "remove it from the library path; install the 64-bit library",
                           "%s is a %d-bit %s file; the loader skips it and keeps searching", c->path,
                           c->elf.elf_class == 2 ? 64 : 32, dr_elf_machine_name(c->elf.machine));
            if (c->elf.soname[0] != 0 && strcmp(c->elf.soname, s->name) != 0)
                dr_verdict(DR_WARN, "file", "use the file with the right SONAME instead of a renamed copy",
                           "%s is found as %s but its SONAME is %s (a renamed copy)", c->real, s->name, c->elf.soname);
        }
    }
}

/* #10, #11: --expect MAJOR.MINOR with TensorFlow's rule (same major, minor
 * at least the one compiled against). */
static void
check_expect(struct dr_ctx *ctx)
{
    int ma = 0, mi = 0;
    if (ctx->opt.expect == NULL)
        return;
    if (sscanf(ctx->opt.expect, "%d.%d", &ma, &mi) < 1) {
        dr_verdict(DR_FAIL, "expect", "pass --expect MAJOR.MINOR, e.g. --expect 8.9", "cannot read --expect %s",
                   ctx->opt.expect);
        return;
    }
    struct dr_copy *w = dr_winner(ma == 8 || ma == 9 ? dr_family_shim(ctx, ma) : NULL);
    long v = w != NULL ? dr_copy_version(w) : 0;
    char vs[32];
    dr_version_str(vs, sizeof vs, v);
    if (w == NULL)
        dr_verdict(DR_FAIL, "expect", "install cuDNN of that major and put it on the loader path",
                   "cuDNN %d.%d is expected but no libcudnn.so.%d loads", ma, mi, ma);
    else if (v / 10000 != ma)
        dr_verdict(DR_FAIL, "expect", "install cuDNN of the expected major and make libcudnn.so.N point to it, or "
                   "rebuild the program against the cuDNN you have",
                   "\"Loaded runtime CuDNN library: %s but source was compiled with: %d.%d\": %s is cuDNN %ld, "
                   "another major than the %d.%d expected (majors are not compatible, in either direction)", vs,
                   ma, mi, w->path, v / 10000, ma, mi);
    else if ((v / 100) % 100 < mi)
        dr_verdict(DR_FAIL, "expect", "install cuDNN of the same major and an equal or higher minor, and make it "
                   "come first on the loader path",
                   "\"Loaded runtime CuDNN library: %s but source was compiled with: %d.%d\": %s is older than "
                   "expected", vs, ma, mi, w->path);
    else
        dr_verdict(DR_OK, "expect", NULL, "%s is %s, compatible with %d.%d", w->path, vs, ma, mi);
}

/* #6: WSL exposes libcuda only in /usr/lib/wsl/lib. */
static void
check_wsl(struct dr_ctx *ctx)
{
    unsigned char *text;
    size_t size;
    if (ctx->opt.no_system || dr_read_file("/proc/version", 4096, &text, &size) != 0)
        return;
    bool wsl = strstr((const char *)text, "icrosoft") != NULL;
    free(text);
    if (!wsl)
        return;
    struct dr_copy *hits = calloc(4, sizeof *hits);
    int win = -1;
    if (hits != NULL)
        dr_resolve(ctx, "libcuda.so", NULL, NULL, hits, 4, &win);
    free(hits);
    if (win < 0)
        dr_verdict(DR_FAIL, "wsl", "export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH (or run ldconfig with "
                   "/usr/lib/wsl/lib listed in /etc/ld.so.conf.d)",
                   "this is WSL and libcuda.so is not on the loader path: cuDNN fails with \"libcuda.so: cannot "
                   "open shared object file\"");
    else
        dr_verdict(DR_OK, "wsl", NULL, "WSL: libcuda.so is on the loader path");
}

static void
report_env(void)
{
    static const char *const vars[] = {"CUDA_MODULE_LOADING", "CUDA_VISIBLE_DEVICES", "NVIDIA_TF32_OVERRIDE",
                                       "CUDNN_LOGINFO_DBG", "CUDNN_LOGWARN_DBG", "CUDNN_LOGERR_DBG",
                                       "CUDNN_LOGDEST_DBG", "CUDNN_LOGLEVEL_DBG", "CUBLAS_WORKSPACE_CONFIG",
                                       "FREEDNN_MAX_ISA", "TORCH_CUDNN_V8_API_DISABLED", "TF_CUDNN_DETERMINISTIC"};
    char list[1024] = "";
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v == NULL)
            continue;
        char item[256];
        dr_fmt(item, sizeof item, "%s%s=%s", list[0] ? " " : "", vars[i], v);
        strncat(list, item, sizeof list - strlen(list) - 1);
    }
    if (list[0])
        dr_verdict(DR_INFO, "environment", NULL, "%s", list);
}

/* LD_PRELOAD loads a library before everything else, whatever the search
 * order says. */
static void
check_preload(void)
{
    const char *pre = getenv("CUDNN_DOCTOR_LD_PRELOAD");
    if (pre == NULL)
        pre = getenv("LD_PRELOAD");
    if (pre != NULL && strstr(pre, "libcudnn") != NULL)
        dr_verdict(DR_WARN, "preload", "unset LD_PRELOAD unless you mean to force this copy",
                   "LD_PRELOAD=%s forces a cuDNN into every program, before the search order shown here", pre);
}

static void
check_selftest(struct dr_ctx *ctx, int fam, struct dr_selftest *st, char *st_lib, size_t st_lib_n)
{
    struct dr_copy *w = dr_winner(dr_family_shim(ctx, fam));
    if (w == NULL || ctx->opt.no_selftest || ctx->opt.no_probe)
        return;
    dr_copy(st_lib, st_lib_n, w->path);
    if (!w->probe.loaded) {
        dr_verdict(DR_FAIL, "selftest", NULL, "not run: %s does not load", w->path);
        return;
    }
    *st = w->probe.st;
    dr_selftest_verdict(w->path, st);
}

void
dr_check_linux(struct dr_ctx *ctx, struct dr_selftest *st, char *st_lib, size_t st_lib_n)
{
    int expect_major = ctx->opt.expect != NULL ? atoi(ctx->opt.expect) : 0;
    /* A program given with --for that links libcudnn.so.N expects major N. */
    int program_major = dr_check_program(ctx);
    if (expect_major == 0)
        expect_major = program_major;
    else if (program_major != 0 && program_major != expect_major)
        dr_verdict(DR_FAIL, "expect", "rebuild the program against the cuDNN it should use (its headers and "
                   "-lcudnn from one install), or pass the --expect that matches it",
                   "%s links libcudnn.so.%d but cuDNN %s is expected: it was built against cuDNN %d (or linked "
                   "to it with headers of another major) and cannot be the %s program you meant",
                   ctx->for_path, program_major, ctx->opt.expect, program_major, ctx->opt.expect);
    check_preload();
    /* The self-test runs through one library: the expected major, else
     * cuDNN 8 (the API FreeDNN implements) when it loads, else cuDNN 9. */
    int st_family = expect_major;
    if (st_family != 8 && st_family != 9)
        st_family = dr_winner(dr_family_shim(ctx, 8)) != NULL ? 8 : 9;
    if (!ctx->opt.no_probe)
        probe_all(ctx, st_family);

    bool any = false;
    for (int fam = 8; fam <= 9; fam++) {
        if (!family_present(ctx, fam))
            continue;
        any = true;
        check_found(ctx, fam, expect_major);
        check_sublibs(ctx, fam);
        check_mixed(ctx, fam);
        check_shadow(ctx, fam);
        check_load(ctx, fam);
        dr_check_deps(ctx, fam);
        dr_check_cuda(ctx, fam);
    }
    if (!any)
        dr_verdict(DR_FAIL, "found",
                   "install cuDNN, or add the folder that holds libcudnn.so.* to LD_LIBRARY_PATH",
                   "no cuDNN library (libcudnn.so.8 or libcudnn.so.9) found on this machine");
    check_files(ctx);
    check_headers(ctx);
    dr_check_build_pairs(ctx, expect_major);
    check_expect(ctx);
    check_wsl(ctx);
    if (st_family == 8 || st_family == 9)
        check_selftest(ctx, st_family, st, st_lib, st_lib_n);
    report_env();
}
