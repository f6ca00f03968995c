/* SPDX-License-Identifier: Apache-2.0
 * How many CPUs this process may use: the online processors, cut by the
 * affinity mask (taskset, cpusets) and by the cgroup CPU quota (a
 * container's --cpus), as OpenMP runtimes, oneDNN and Go do.  See cpu.h.
 * The affinity count is the OS layer's (os_posix.c, os_win32.c); the cgroup
 * files exist on Linux only (elsewhere the quota is 0: none). */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX, access */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cpu.h"

/* Reads the first line of `path` into buf; false when it cannot. */
static bool
read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    bool ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    return ok;
}

/* CPUs allowed by quota/period, rounded up (1.5 CPUs of quota keep two
 * threads busy part of the time, better than one all of it). */
static size_t
quota_cpus(long long quota, long long period)
{
    if (quota <= 0 || period <= 0)
        return 0;
    long long n = (quota + period - 1) / period;
    return n < 1 ? 1 : (size_t)n;
}

/* The limit set in one cgroup directory: v2 cpu.max ("max 100000",
 * "150000 100000") or v1 cpu.cfs_quota_us (-1: none) over
 * cpu.cfs_period_us; 0 when there is none. */
static size_t
dir_limit(const char *dir)
{
    char path[PATH_MAX], line[128];
    snprintf(path, sizeof(path), "%s/cpu.max", dir);
    if (read_line(path, line, sizeof(line))) {
        long long quota, period;
        if (strncmp(line, "max", 3) == 0 || sscanf(line, "%lld %lld", &quota, &period) != 2)
            return 0;
        return quota_cpus(quota, period);
    }
    snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
    if (!read_line(path, line, sizeof(line)))
        return 0;
    long long quota = atoll(line);
    snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
    if (!read_line(path, line, sizeof(line)))
        return 0;
    return quota_cpus(quota, atoll(line));
}

static size_t
tighter(size_t a, size_t b)
{
    if (a == 0)
        return b;
    return b != 0 && b < a ? b : a;
}

/* The tightest limit on `mount` + `cgpath` and each directory above it up
 * to the mount point (a parent's quota binds its children).  When the
 * process's path is not visible under the mount (a cgroup namespace shows
 * "/" or the mount is of another namespace), the mount point itself is the
 * process's cgroup. */
static size_t
walk_up(const char *mount, const char *cgpath)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof(dir), "%s%s", mount, cgpath) >= (int)sizeof(dir))
        return 0;
    if (access(dir, F_OK) != 0)
        return dir_limit(mount);
    size_t limit = 0, mlen = strlen(mount);
    for (;;) {
        limit = tighter(limit, dir_limit(dir));
        char *slash = strrchr(dir, '/');
        if (slash == NULL || (size_t)(slash - dir) < mlen)
            break;
        *slash = '\0';
    }
    return limit;
}

/* Is `name` one of the comma-separated controllers in `list`? */
static bool
has_controller(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p != NULL && *p != '\0'; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

size_t
fdnn_cpu_quota_count(const char *root)
{
    char path[PATH_MAX], line[PATH_MAX];
    snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t limit = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        /* hierarchy-id:controllers:path */
        char *c1 = strchr(line, ':'), *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL)
            continue;
        *c1 = *c2 = '\0';
        const char *controllers = c1 + 1, *cgpath = c2 + 1;
        if (strcmp(cgpath, "/") == 0)
            cgpath = "";
        char mount[PATH_MAX];
        if (strcmp(line, "0") == 0 && *controllers == '\0') { /* v2 (unified) */
            snprintf(mount, sizeof(mount), "%s/sys/fs/cgroup", root);
            limit = tighter(limit, walk_up(mount, cgpath));
        } else if (has_controller(controllers, "cpu")) { /* v1 */
            snprintf(mount, sizeof(mount), "%s/sys/fs/cgroup/%s", root, controllers);
            if (access(mount, F_OK) != 0)
                snprintf(mount, sizeof(mount), "%s/sys/fs/cgroup/cpu", root);
            limit = tighter(limit, walk_up(mount, cgpath));
        }
    }
    fclose(f);
    return limit;
}

size_t
fdnn_cpu_usable_from(size_t online, size_t affinity, size_t quota)
{
    size_t n = online > 0 ? online : 1;
    n = tighter(n, affinity);
    return tighter(n, quota);
}
