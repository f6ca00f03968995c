/* SPDX-License-Identifier: Apache-2.0
 * cudnn-doctor: options and the order of the work.  Exit status: 0 when
 * nothing failed (warnings, skips and notes allowed), 1 when a check
 * failed, 2 on a usage error. */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPEAT 8

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: cudnn-doctor [options]\n"
            "       cudnn-doctor workspace [--json] [--lib FILE] [--free MIB] \"PROBLEM\"\n"
            "Finds every cuDNN the loader can reach, reads versions without loading, loads each\n"
            "copy in a child process, runs a small convolution, and explains what is wrong.\n"
            "`workspace` lists every algorithm's workspace for one convolution problem (as\n"
            "freednn-bench and CUDNN_LOGINFO_DBG print it), the free memory and what fits.\n\n"
            "  --for BINARY        use BINARY's RPATH/RUNPATH, as when it loads cuDNN\n"
            "                      (cudnn-doctor.exe: its folder first, and its imports)\n"
            "  --expect M.m        the cuDNN a program was built with (same major, minor >= m)\n"
            "  --include DIR       also read cuDNN headers in DIR (up to %d times)\n"
            "  --search DIR        also look for copies in DIR, not on the loader path (up to %d times)\n"
            "  --python-site DIR   a Python site-packages folder to check (up to %d times)\n"
            "  --ld-cache FILE     read FILE instead of /etc/ld.so.cache ('none': no cache)\n"
            "  --no-system         ignore cuDNN copies and headers in system places\n"
            "                      (ld.so.cache, default folders, /usr/local/cuda*, /usr/include)\n"
            "  --windows-dir DIR   check a Windows cuDNN folder (archive root or its bin/);\n"
            "                      cudnn-doctor.exe without it checks this machine's search order\n"
            "  --windows-app DIR   the application's folder (searched first)\n"
            "  --windows-system DIR a copy of System32 (else system DLLs are taken as present)\n"
            "  --windows-path LIST PATH folders, ';'-separated\n"
            "  --windows-dll FILE  check the imports of one DLL (e.g. a framework's provider DLL)\n"
            "  --no-probe          do not load anything (file reading only)\n"
            "  --no-selftest       load, but do not run the convolution self-test\n"
            "  --timeout S         seconds a test process may take (default 60)\n"
            "  --json              machine-readable output\n"
            "  -v, --verbose       also print the search order\n"
            "  -h, --help          this text\n\n"
            "Exit status: 0 nothing failed (notes, skips, warnings allowed); 1 a check failed;\n"
            "2 usage error (unknown option, malformed --expect, unreadable --ld-cache, ...).\n\n"
            "Examples:\n"
            "  cudnn-doctor                          everything the loader can reach\n"
            "  cudnn-doctor --for ./my_app --expect 8.9\n"
            "  cudnn-doctor --python-site $(python3 -c 'import site; print(site.getsitepackages()[0])')\n"
            "  cudnn-doctor --windows-dir cudnn-windows-x86_64-8.9.4.25_cuda12-archive --windows-path 'cuda/bin'\n"
            "  cudnn-doctor workspace \"fwd n32c64h56w56 k64r3s3 p1q1 u1v1 d1e1 g1 NCHW float\"\n"
            "See docs/cudnn-doctor.md.\n",
            MAX_REPEAT, MAX_REPEAT, MAX_REPEAT);
}

/* --expect MAJOR[.MINOR]: digits only. */
static bool
valid_expect(const char *e)
{
    int ma, mi, used = 0;
    if (sscanf(e, "%d%n", &ma, &used) != 1 || e[0] < '0' || e[0] > '9')
        return false;
    if (e[used] == 0)
        return ma > 0;
    if (e[used] != '.' || e[used + 1] < '0' || e[used + 1] > '9')
        return false;
    int used2 = 0;
    if (sscanf(e + used + 1, "%d%n", &mi, &used2) != 1)
        return false;
    return ma > 0 && e[used + 1 + used2] == 0;
}

static int
too_many(const char *opt)
{
    fprintf(stderr, "cudnn-doctor: %s can be given at most %d times\n", opt, MAX_REPEAT);
    return 2;
}

int
main(int argc, char **argv)
{
    static struct dr_ctx ctx;
    struct dr_options *o = &ctx.opt;
    o->timeout_s = 60;
    dr_plat_start(&argc, &argv);
    int sub = dr_plat_subcommand(argc, argv);
    if (sub >= 0)
        return sub;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(opt) (strcmp(a, opt) == 0 && next != NULL && (i++, true))
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o->verbose = true;
        } else if (strcmp(a, "--no-system") == 0) {
            o->no_system = true;
        } else if (strcmp(a, "--no-probe") == 0) {
            o->no_probe = true;
        } else if (strcmp(a, "--no-selftest") == 0) {
            o->no_selftest = true;
        } else if (TAKE("--for")) {
            o->for_binary = next;
        } else if (TAKE("--expect")) {
            o->expect = next;
        } else if (TAKE("--ld-cache")) {
            o->ld_cache = next;
        } else if (TAKE("--windows-dir")) {
            o->windows_dir = next;
        } else if (TAKE("--windows-app")) {
            o->windows_app = next;
        } else if (TAKE("--windows-system")) {
            o->windows_system = next;
        } else if (TAKE("--windows-dll")) {
            o->windows_dll = next;
        } else if (TAKE("--windows-path")) {
            o->windows_path = next;
        } else if (TAKE("--timeout")) {
            o->timeout_s = atoi(next) > 0 ? atoi(next) : 60;
        } else if (TAKE("--include")) {
            if (o->n_include_dirs >= MAX_REPEAT)
                return too_many("--include");
            o->include_dirs[o->n_include_dirs++] = next;
        } else if (TAKE("--search")) {
            if (o->n_search_dirs >= MAX_REPEAT)
                return too_many("--search");
            o->search_dirs[o->n_search_dirs++] = next;
        } else if (TAKE("--python-site")) {
            if (o->n_python_sites >= MAX_REPEAT)
                return too_many("--python-site");
            o->python_sites[o->n_python_sites++] = next;
        } else {
            fprintf(stderr, "cudnn-doctor: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
#undef TAKE
    }
    if (o->expect != NULL && !valid_expect(o->expect)) {
        fprintf(stderr, "cudnn-doctor: --expect %s: give MAJOR.MINOR, e.g. --expect 8.9\n", o->expect);
        return 2;
    }
    if (o->ld_cache != NULL && strcmp(o->ld_cache, "none") != 0) {
        struct dr_ldcache c;
        if (dr_ldcache_load(o->ld_cache, &c) != 0) {
            fprintf(stderr, "cudnn-doctor: --ld-cache: %s\n", c.error);
            dr_ldcache_free(&c);
            return 2;
        }
        dr_ldcache_free(&c);
    }
    if (o->for_binary != NULL && !dr_is_file(o->for_binary)) {
        fprintf(stderr, "cudnn-doctor: --for %s: no such file\n", o->for_binary);
        return 2;
    }
    if (o->windows_dir != NULL && !dr_is_dir(o->windows_dir)) {
        fprintf(stderr, "cudnn-doctor: --windows-dir %s: no such folder\n", o->windows_dir);
        return 2;
    }

    struct dr_selftest st;
    char st_lib[DR_PATH] = "";
    memset(&st, 0, sizeof st);
    if (o->windows_dll != NULL && !dr_is_file(o->windows_dll)) {
        fprintf(stderr, "cudnn-doctor: --windows-dll %s: no such file\n", o->windows_dll);
        return 2;
    }
    if (o->windows_dir != NULL || o->windows_dll != NULL) {
        /* A Windows folder is checked on its own: the Linux libraries of this
         * machine have nothing to do with it. */
        dr_check_windows(&ctx, &st, st_lib, sizeof st_lib);
    } else {
        dr_plat_check_host(&ctx, &st, st_lib, sizeof st_lib);
    }
    dr_report_print(&ctx, &st, st_lib);
    return dr_worst_level() == DR_FAIL ? 1 : 0;
}
