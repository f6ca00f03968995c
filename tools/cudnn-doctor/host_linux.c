/* SPDX-License-Identifier: Apache-2.0
 * The Linux doctor's start and host checks (doctor.h, "plat_posix.c /
 * plat_win32.c"): the LD_PRELOAD re-run, the `workspace` subcommand, and the
 * Linux loader's view of every cuDNN it can reach. */
#include "doctor.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
dr_plat_subcommand(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "workspace") == 0)
        return dr_workspace_main(argc - 1, argv + 1);
    return -1;
}

/* LD_PRELOAD puts a library into this process before main, and every
 * probe is a fork of it: a preloaded cuDNN would answer for the copies
 * under test.  So the doctor runs itself again without it, keeping the
 * value (in CUDNN_DOCTOR_LD_PRELOAD) for the `preload` verdict. */
void
dr_plat_start(int *argc, char ***argv_p)
{
    (void)argc;
    char **argv = *argv_p;
    const char *pre = getenv("LD_PRELOAD");
    if (pre == NULL || pre[0] == 0 || getenv("CUDNN_DOCTOR_REEXEC") != NULL)
        return;
    setenv("CUDNN_DOCTOR_LD_PRELOAD", pre, 1);
    setenv("CUDNN_DOCTOR_REEXEC", "1", 1);
    unsetenv("LD_PRELOAD");
    execv("/proc/self/exe", argv);
    /* No /proc: go on with the preload (the verdict says it is set). */
    unsetenv("CUDNN_DOCTOR_REEXEC");
    setenv("LD_PRELOAD", pre, 1);
}

/* The doctor installed as <prefix>/bin/cudnn-doctor (FreeDNN's archive)
 * also looks at <prefix>/lib: the library it was shipped with. */
static void
find_own_prefix(struct dr_ctx *ctx)
{
    char bin[DR_PATH], prefix[DR_PATH], lib[DR_PATH], probe[DR_PATH];
    dr_plat_own_dir(bin, sizeof bin);
    if (bin[0] == 0 || strcmp(dr_basename(bin), "bin") != 0)
        return;
    dr_dirname(prefix, sizeof prefix, bin);
    static const char *const libs[] = {"lib", "lib64"};
    for (int i = 0; i < 2; i++) {
        dr_join(lib, sizeof lib, prefix, libs[i]);
        dr_join(probe, sizeof probe, lib, "libcudnn.so.8");
        bool has8 = dr_is_file(probe);
        dr_join(probe, sizeof probe, lib, "libcudnn.so.9");
        if (has8 || dr_is_file(probe)) {
            dr_copy(ctx->own_lib, sizeof ctx->own_lib, lib);
            return;
        }
    }
}

void
dr_plat_check_host(struct dr_ctx *ctx, struct dr_selftest *st, char *st_lib, size_t st_lib_n)
{
    find_own_prefix(ctx);
    dr_search_init(ctx);
    if (ctx->for_path[0] != 0 && !ctx->for_elf.ok)
        dr_verdict(DR_WARN, "for", NULL, "cannot read %s as ELF (%s); its RPATH/RUNPATH are ignored", ctx->for_path,
                   ctx->for_elf.error);
    dr_search_cudnn(ctx);
    dr_headers_find(ctx);
    dr_check_linux(ctx, st, st_lib, st_lib_n);
    dr_check_python(ctx);
}

