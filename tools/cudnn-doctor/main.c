/* SPDX-License-Identifier: Apache-2.0
 * cudnn-doctor: options and the order of the work.  Exit status: 0 when
 * nothing failed (warnings, skips and notes allowed), 1 when a check
 * failed, 2 on a usage error. */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: cudnn-doctor [options]\n"
            "Finds every cuDNN the loader can reach, reads versions without loading, loads each\n"
            "copy in a child process, runs a small convolution, and explains what is wrong.\n\n"
            "  --for BINARY        use BINARY's RPATH/RUNPATH, as when it loads cuDNN\n"
            "  --expect M.m        the cuDNN a program was built with (same major, minor >= m)\n"
            "  --include DIR       also read cuDNN headers in DIR (repeatable)\n"
            "  --search DIR        also look for copies in DIR, not on the loader path (repeatable)\n"
            "  --python-site DIR   a Python site-packages folder to check (repeatable)\n"
            "  --ld-cache FILE     read FILE instead of /etc/ld.so.cache ('none': no cache)\n"
            "  --no-system         ignore cuDNN copies and headers in system places\n"
            "                      (ld.so.cache, default folders, /usr/local/cuda*, /usr/include)\n"
            "  --windows-dir DIR   check a Windows cuDNN folder (archive root or its bin/)\n"
            "  --windows-app DIR   the application's folder (searched first)\n"
            "  --windows-system DIR a copy of System32 (else system DLLs are taken as present)\n"
            "  --windows-path LIST PATH folders, ';'-separated\n"
            "  --windows-dll FILE  check the imports of one DLL (e.g. a framework's provider DLL)\n"
            "  --no-probe          do not load anything (file reading only)\n"
            "  --no-selftest       load, but do not run the convolution self-test\n"
            "  --timeout S         seconds a test process may take (default 60)\n"
            "  --json              machine-readable output\n"
            "  -v, --verbose       also print the search order\n"
            "  -h, --help          this text\n");
}

int
main(int argc, char **argv)
{
    static struct dr_ctx ctx;
    struct dr_options *o = &ctx.opt;
    o->timeout_s = 60;
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
        } else if (TAKE("--include") && o->n_include_dirs < 8) {
            o->include_dirs[o->n_include_dirs++] = next;
        } else if (TAKE("--search") && o->n_search_dirs < 8) {
            o->search_dirs[o->n_search_dirs++] = next;
        } else if (TAKE("--python-site") && o->n_python_sites < 8) {
            o->python_sites[o->n_python_sites++] = next;
        } else {
            fprintf(stderr, "cudnn-doctor: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
#undef TAKE
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
        dr_check_windows(&ctx);
    } else {
        dr_search_init(&ctx);
        if (ctx.for_path[0] != 0 && !ctx.for_elf.ok)
            dr_verdict(DR_WARN, "for", NULL, "cannot read %s as ELF (%s); its RPATH/RUNPATH are ignored",
                       ctx.for_path, ctx.for_elf.error);
        dr_search_cudnn(&ctx);
        dr_headers_find(&ctx);
        dr_check_linux(&ctx, &st, st_lib, sizeof st_lib);
        dr_check_python(&ctx);
    }
    dr_report_print(&ctx, &st, st_lib);
    return dr_worst_level() == DR_FAIL ? 1 : 0;
}
