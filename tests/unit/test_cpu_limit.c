/* SPDX-License-Identifier: Apache-2.0
 * The default thread count follows the CPUs this process may use
 * (core/cpu_limit.c): the cgroup v1/v2 CPU quota read from fake trees, the
 * affinity mask set on this process, and FREEDNN_NUM_THREADS over both. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cpu.h"
#include "freednn.h"
#include "testutil.h"

static char root[64];

static void
put(const char *path, const char *text)
{
    fdnn_test_put_file(root, path, text);
}

/* A fresh fake root for each case. */
static void
fresh_root(void)
{
    static int n;
    snprintf(root, sizeof(root), "/tmp/fdnn_cgroup_%d_%d", (int)getpid(), n++);
    mkdir(root, 0755);
}

static void
check_quota(const char *what, size_t expected)
{
    size_t got = fdnn_cpu_quota_count(root);
    CHECK_MSG(got == expected, "%s: quota allows %zu CPUs, expected %zu", what, got, expected);
}

static void
test_cgroup_v2(void)
{
    fresh_root();
    put("proc/self/cgroup", "0::/app\n");
    put("sys/fs/cgroup/app/cpu.max", "max 100000\n");
    check_quota("v2 max", 0);

    fresh_root();
    put("proc/self/cgroup", "0::/app\n");
    put("sys/fs/cgroup/app/cpu.max", "150000 100000\n");
    check_quota("v2 1.5 CPUs (rounded up)", 2);

    fresh_root(); /* a parent's quota binds the child */
    put("proc/self/cgroup", "0::/a/b\n");
    put("sys/fs/cgroup/a/cpu.max", "100000 100000\n");
    put("sys/fs/cgroup/a/b/cpu.max", "400000 100000\n");
    check_quota("v2 parent tighter", 1);

    fresh_root(); /* cgroup namespace: the process sees itself at "/" */
    put("proc/self/cgroup", "0::/\n");
    put("sys/fs/cgroup/cpu.max", "250000 100000\n");
    check_quota("v2 namespace root", 3);

    fresh_root(); /* the path is not visible under the mount */
    put("proc/self/cgroup", "0::/elsewhere\n");
    put("sys/fs/cgroup/cpu.max", "50000 100000\n");
    check_quota("v2 invisible path", 1);
}

static void
test_cgroup_v1(void)
{
    fresh_root();
    put("proc/self/cgroup", "5:memory:/docker/x\n4:cpu,cpuacct:/docker/x\n0::/\n");
    put("sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "200000\n");
    put("sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n");
    check_quota("v1 2 CPUs", 2);

    fresh_root();
    put("proc/self/cgroup", "4:cpu,cpuacct:/docker/x\n");
    put("sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "-1\n");
    put("sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n");
    check_quota("v1 quota -1", 0);

    fresh_root(); /* the controller mounted as "cpu" only */
    put("proc/self/cgroup", "2:cpuacct:/\n1:cpu:/job\n");
    put("sys/fs/cgroup/cpu/job/cpu.cfs_quota_us", "350000\n");
    put("sys/fs/cgroup/cpu/job/cpu.cfs_period_us", "100000\n");
    check_quota("v1 cpu mount", 4);

    fresh_root(); /* cpuacct is not cpu */
    put("proc/self/cgroup", "2:cpuacct:/job\n");
    put("sys/fs/cgroup/cpuacct/job/cpu.cfs_quota_us", "100000\n");
    put("sys/fs/cgroup/cpuacct/job/cpu.cfs_period_us", "100000\n");
    check_quota("v1 cpuacct only", 0);

    fresh_root();
    check_quota("no /proc/self/cgroup", 0);
}

static void
test_combine(void)
{
    CHECK(fdnn_cpu_usable_from(8, 2, 0) == 2);
    CHECK(fdnn_cpu_usable_from(8, 0, 3) == 3);
    CHECK(fdnn_cpu_usable_from(8, 4, 2) == 2);
    CHECK(fdnn_cpu_usable_from(4, 8, 6) == 4);
    CHECK(fdnn_cpu_usable_from(0, 0, 0) == 1);
}

static int
handle_threads(void)
{
    cudnnHandle_t h;
    int n = -1;
    CHECK_OK(cudnnCreate(&h));
    CHECK_OK(freednnGetNumThreads(h, &n));
    CHECK_OK(cudnnDestroy(h));
    return n;
}

/* taskset -c <one CPU>: the affinity count, the usable count and a new
 * handle's threads are 1; FREEDNN_NUM_THREADS still wins. */
static void
test_affinity(void)
{
    cpu_set_t saved, one;
    CHECK(sched_getaffinity(0, sizeof(saved), &saved) == 0);
    CHECK((size_t)CPU_COUNT(&saved) == fdnn_cpu_affinity_count());
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &saved))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
    unsetenv("FREEDNN_NUM_THREADS");
    CHECK(fdnn_cpu_affinity_count() == 1);
    CHECK(fdnn_cpu_usable_count() == 1);
    CHECK_MSG(handle_threads() == 1, "a handle under a one-CPU affinity mask has %d threads", handle_threads());
    setenv("FREEDNN_NUM_THREADS", "3", 1);
    CHECK(handle_threads() == 3);
    unsetenv("FREEDNN_NUM_THREADS");
    CHECK(sched_setaffinity(0, sizeof(saved), &saved) == 0);
    CHECK(fdnn_cpu_usable_count() >= 1 && fdnn_cpu_usable_count() <= fdnn_cpu_count());
}

int
main(void)
{
    test_cgroup_v2();
    test_cgroup_v1();
    test_combine();
    test_affinity();
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf /tmp/fdnn_cgroup_%d_*", (int)getpid());
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove the fake trees\n");
    return fdnn_test_finish("test_cpu_limit");
}
