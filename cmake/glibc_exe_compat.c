/* SPDX-License-Identifier: Apache-2.0
 * What an executable needs, beyond cmake/glibc_pins.h, to load on glibc
 * 2.28 when it is linked on a newer one (docs/install.md "Requirements").
 * Linked into bin/cudnn-doctor with
 *   -Wl,--wrap=__libc_start_main,--wrap=stat,--wrap=fstat,--wrap=lstat
 * so every reference to those names, the C runtime's included, comes here.
 *
 * __libc_start_main: glibc 2.34's start files (Scrt1.o) call the version
 * GLIBC_2.34, which runs the program's constructors itself, and pass NULL
 * for the init and fini arguments.  The GLIBC_2.2.5 version exists in
 * every x86-64 glibc; before 2.34 it runs only what `init` runs (the dynamic
 * loader skips the executable's own constructors), and from 2.34 on it
 * calls `init` instead of running them when `init` is not NULL.  So `init`
 * here does what glibc's old __libc_csu_init did for a dynamic executable:
 * _init (DT_INIT), then the .init_array entries.  Destructors need nothing:
 * the loader runs the executable's .fini_array at exit in every version.
 *
 * stat, fstat, lstat: real functions only since glibc 2.33; before, the
 * headers turned them into __xstat(_STAT_VER, ...), which every x86-64
 * glibc still exports at GLIBC_2.2.5 (_STAT_VER is 1 on x86-64). */
#if defined(__x86_64__) && defined(__linux__)
#include <stddef.h>
#include <sys/stat.h>

typedef int fdnn_main_fn(int, char **, char **);
typedef void fdnn_init_fn(int, char **, char **);

int fdnn_libc_start_main_2_2_5(fdnn_main_fn *main, int argc, char **argv, fdnn_init_fn *init,
                               void (*fini)(void), void (*rtld_fini)(void), void *stack_end);
int fdnn_xstat_2_2_5(int ver, const char *path, struct stat *buf);
int fdnn_fxstat_2_2_5(int ver, int fd, struct stat *buf);
int fdnn_lxstat_2_2_5(int ver, const char *path, struct stat *buf);
__asm__(".symver fdnn_libc_start_main_2_2_5,__libc_start_main@GLIBC_2.2.5");
__asm__(".symver fdnn_xstat_2_2_5,__xstat@GLIBC_2.2.5");
__asm__(".symver fdnn_fxstat_2_2_5,__fxstat@GLIBC_2.2.5");
__asm__(".symver fdnn_lxstat_2_2_5,__lxstat@GLIBC_2.2.5");

/* Defined by crti.o and by the linker for every executable. */
void _init(void);
extern fdnn_init_fn *__init_array_start[] __attribute__((visibility("hidden")));
extern fdnn_init_fn *__init_array_end[] __attribute__((visibility("hidden")));

static void
run_constructors(int argc, char **argv, char **envp)
{
    _init();
    size_t n = (size_t)(__init_array_end - __init_array_start);
    for (size_t i = 0; i < n; i++)
        __init_array_start[i](argc, argv, envp);
}

int __wrap___libc_start_main(fdnn_main_fn *main, int argc, char **argv, fdnn_init_fn *init, void (*fini)(void),
                             void (*rtld_fini)(void), void *stack_end);
int
__wrap___libc_start_main(fdnn_main_fn *main, int argc, char **argv, fdnn_init_fn *init, void (*fini)(void),
                         void (*rtld_fini)(void), void *stack_end)
{
    /* Start files older than 2.34 pass their own init and fini: keep them. */
    return fdnn_libc_start_main_2_2_5(main, argc, argv, init != NULL ? init : run_constructors, fini, rtld_fini,
                                      stack_end);
}

int __wrap_stat(const char *path, struct stat *buf);
int __wrap_fstat(int fd, struct stat *buf);
int __wrap_lstat(const char *path, struct stat *buf);

int
__wrap_stat(const char *path, struct stat *buf)
{
    return fdnn_xstat_2_2_5(1, path, buf);
}

int
__wrap_fstat(int fd, struct stat *buf)
{
    return fdnn_fxstat_2_2_5(1, fd, buf);
}

int
__wrap_lstat(const char *path, struct stat *buf)
{
    return fdnn_lxstat_2_2_5(1, path, buf);
}
#endif
