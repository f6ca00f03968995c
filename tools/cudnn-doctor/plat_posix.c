/* SPDX-License-Identifier: Apache-2.0
 * The doctor's system layer on Linux (and other POSIX systems): files are
 * mapped with mmap, folders listed with readdir, file identity is the
 * device and inode; a DLL cannot be loaded here.  The host checks (the
 * Linux loader's view) are in host_linux.c.  plat_win32.c is the Windows
 * side of the same interface (doctor.h); CMake compiles one of the two. */
#include "doctor.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char
dr_plat_sep(void)
{
    return '/';
}

bool
dr_plat_is_sep(char c)
{
    return c == '/';
}

int
dr_plat_kind(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return DR_KIND_NONE;
    return S_ISREG(st.st_mode) ? DR_KIND_FILE : S_ISDIR(st.st_mode) ? DR_KIND_DIR : DR_KIND_OTHER;
}

int
dr_plat_map(const char *path, struct dr_map *m, char *err, size_t err_n)
{
    memset(m, 0, sizeof *m);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        dr_fmt(err, err_n, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        dr_copy(err, err_n, "empty or unreadable file");
        close(fd);
        return -1;
    }
    m->size = (size_t)st.st_size;
    void *map = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        dr_fmt(err, err_n, "cannot map: %s", strerror(errno));
        return -1;
    }
    m->data = map;
    return 0;
}

void
dr_plat_unmap(struct dr_map *m)
{
    if (m->data != NULL)
        munmap((void *)m->data, m->size);
    m->data = NULL;
}

bool
dr_plat_list_dir(const char *dir, bool (*fn)(const char *name, void *arg), void *arg)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return false;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (!fn(e->d_name, arg))
            break;
    }
    closedir(d);
    return true;
}

struct find_arg {
    const char *dir, *name;
    char *out;
    size_t n;
    bool found;
};

static bool
find_entry(const char *entry, void *argp)
{
    struct find_arg *a = argp;
    if (!dr_ieq(entry, a->name))
        return true;
    dr_join(a->out, a->n, a->dir, entry);
    a->found = dr_is_file(a->out);
    return !a->found;
}

bool
dr_plat_find_nocase(const char *dir, const char *name, char *out, size_t n)
{
    struct find_arg a = {dir, name, out, n, false};
    dr_plat_list_dir(dir, find_entry, &a);
    return a.found;
}

bool
dr_plat_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void
dr_plat_own_dir(char *dst, size_t n)
{
    char exe[DR_PATH];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        dr_copy(dst, n, "");
        return;
    }
    exe[len] = 0;
    dr_dirname(dst, n, exe);
}

void *
dr_plat_sym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

void *
dr_plat_open_cudart(long cudart, char *name, size_t n)
{
    dr_fmt(name, n, "libcudart.so.%ld", cudart / 1000);
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    return lib != NULL ? lib : dlopen("libcudart.so", RTLD_NOW | RTLD_LOCAL);
}

double
dr_plat_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

bool
dr_plat_win_probe(const char *path, bool selftest, int timeout_s, struct dr_win_probe *out)
{
    (void)path;
    (void)selftest;
    (void)timeout_s;
    memset(out, 0, sizeof *out);
    return false;
}

void
dr_plat_win_search_order(void (*add)(const char *dir, const char *origin))
{
    (void)add;
}
