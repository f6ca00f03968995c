/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench --net: a side (net_side_api_t) in a child process of its own,
 * driven step by step over two pipes, so that the parent can alternate the
 * steps of two sides while each keeps its own memory (and peak RSS).
 *
 * Protocol (fixed-size messages; both ends are this program):
 *   child -> parent  after open: a net_result_t (ok, or why it failed)
 *   parent -> child  's': one timed step; the child answers a net_result_t
 *                    whose median_ms is that step's time
 *   parent -> child  'e': the end; the child closes the side and answers a
 *                    net_result_t (check, grad_norm), its peak RSS (long,
 *                    KiB), then with run->profile net->count net_node_prof_t
 * A child whose parent or pipe goes away exits; a parent whose child dies
 * reads end-of-file and reports the side as failed (never blocks on it). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net.h"

static bool
write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

static bool
read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r <= 0)
            return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}

/* The child's life: open, answer steps, close on 'e' or when the parent goes. */
static void
serve(const net_side_api_t *api, const net_t *net, const net_run_t *run, int in, int out)
{
    net_result_t r = {0};
    void *side = api->open(net, run, &r);
    r.ok = side != NULL;
    fflush(stdout);
    if (!write_all(out, &r, sizeof(r)) || side == NULL)
        _exit(1);
    char cmd = 0;
    while (read_all(in, &cmd, 1) && cmd == 's') {
        r.ok = api->step(side, &r.median_ms, &r);
        if (!write_all(out, &r, sizeof(r)) || !r.ok)
            _exit(1);
    }
    if (cmd != 'e')
        _exit(1); /* the parent went away */
    net_node_prof_t *nodes = run->profile ? calloc((size_t)net->count, sizeof(*nodes)) : NULL;
    if (run->profile && nodes == NULL)
        _exit(1);
    api->close(side, &r, nodes);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss = ru.ru_maxrss;
    fflush(stdout); /* the side's profile lines before the parent's next */
    bool good = write_all(out, &r, sizeof(r)) && write_all(out, &rss, sizeof(rss)) &&
                (nodes == NULL || write_all(out, nodes, (size_t)net->count * sizeof(*nodes)));
    _exit(good ? 0 : 1);
}

bool
net_child_open(net_child_t *ch, const net_side_api_t *api, const net_t *net, const net_run_t *run)
{
    memset(ch, 0, sizeof(*ch));
    ch->pid = -1;
    ch->net = net;
    ch->run = run;
    signal(SIGPIPE, SIG_IGN); /* a dead child's pipe: a failed write, not the end of the parent */
    int down[2], up[2];
    if (pipe(down) != 0) {
        snprintf(ch->result.why, sizeof(ch->result.why), "pipe failed");
        return false;
    }
    if (pipe(up) != 0) {
        close(down[0]), close(down[1]);
        snprintf(ch->result.why, sizeof(ch->result.why), "pipe failed");
        return false;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        /* another child's pipe ends, inherited from the parent, would keep
         * that child from seeing its parent go: close every other one */
        for (int fd = 3; fd < 1024; fd++)
            if (fd != down[0] && fd != up[1])
                close(fd);
        serve(api, net, run, down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    ch->pid = pid;
    ch->to = down[1];
    ch->from = up[0];
    if (pid < 0 || !read_all(ch->from, &ch->result, sizeof(ch->result)) || !ch->result.ok) {
        if (pid < 0 || ch->result.why[0] == '\0')
            snprintf(ch->result.why, sizeof(ch->result.why), "the side's process ended without a report");
        ch->result.ok = false;
        net_child_close(ch, NULL, NULL, NULL);
        return false;
    }
    ch->alive = true;
    return true;
}

bool
net_child_step(net_child_t *ch, double *ms)
{
    if (!ch->alive)
        return false;
    if (!write_all(ch->to, "s", 1) || !read_all(ch->from, &ch->result, sizeof(ch->result)) || !ch->result.ok) {
        if (ch->result.ok || ch->result.why[0] == '\0')
            snprintf(ch->result.why, sizeof(ch->result.why), "the side's process ended during a step");
        ch->result.ok = false;
        ch->alive = false;
        return false;
    }
    *ms = ch->result.median_ms;
    return true;
}

bool
net_child_close(net_child_t *ch, net_result_t *r, long *peak_rss_kib, net_node_prof_t *nodes)
{
    bool good = false;
    if (ch->alive) {
        long rss = 0;
        net_result_t fin = {0};
        good = write_all(ch->to, "e", 1) && read_all(ch->from, &fin, sizeof(fin)) &&
               read_all(ch->from, &rss, sizeof(rss)) &&
               (!ch->run->profile || nodes == NULL ||
                read_all(ch->from, nodes, (size_t)ch->net->count * sizeof(*nodes)));
        if (good) {
            ch->result.check = fin.check;
            ch->result.grad_norm = fin.grad_norm;
            if (peak_rss_kib != NULL)
                *peak_rss_kib = rss;
        } else {
            ch->result.ok = false;
            snprintf(ch->result.why, sizeof(ch->result.why), "the side's process ended without its last report");
        }
    }
    if (ch->to > 0)
        close(ch->to);
    if (ch->from > 0)
        close(ch->from);
    ch->to = ch->from = -1;
    if (ch->pid > 0)
        waitpid(ch->pid, NULL, 0);
    ch->pid = -1;
    ch->alive = false;
    if (r != NULL)
        *r = ch->result;
    return good;
}
