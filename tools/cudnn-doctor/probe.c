/* SPDX-License-Identifier: Apache-2.0
 * Loading a library in a child process.  A broken cuDNN can abort in its
 * constructor ("Could not load library ... Aborted"), crash, or hang; the
 * child takes that, the doctor reports it.  The child sends one fixed-size
 * struct dr_probe back through a pipe; what the library prints on stdout or
 * stderr is captured through a second pipe and kept as the error text when
 * the child does not report. */
#include "doctor.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void
write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

struct probe_arg {
    const char *preload, *path;
    const char *const *checks;
    bool selftest;
};

/* The probe, in the child: fills `out` (a struct dr_probe). */
static void
probe_child(void *argp, void *outp)
{
    const struct probe_arg *a = argp;
    struct dr_probe *r = outp;
    if (a->preload != NULL)
        dlopen(a->preload, RTLD_NOW | RTLD_GLOBAL);
    r->done = true;
    void *lib = dlopen(a->path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        dr_copy(r->error, sizeof r->error, e != NULL ? e : "dlopen failed");
        return;
    }
    r->loaded = true;
    size_t (*get_version)(void) = (size_t (*)(void))dlsym(lib, "cudnnGetVersion");
    if (get_version != NULL) {
        r->version = dr_norm_cudnn_version((long)get_version());
        /* Which file answered: the library itself or one of its dependencies. */
        Dl_info info;
        char real[PATH_MAX];
        if (dladdr((void *)get_version, &info) != 0 && info.dli_fname != NULL)
            dr_copy(r->version_file, sizeof r->version_file,
                    realpath(info.dli_fname, real) != NULL ? real : info.dli_fname);
    }
    size_t (*get_cudart)(void) = (size_t (*)(void))dlsym(lib, "cudnnGetCudartVersion");
    if (get_cudart != NULL)
        r->cudart = (long)get_cudart();
    r->is_freednn = dlsym(lib, "freednnSetIsa") != NULL;
    int (*driver_version)(int *) = (int (*)(int *))dlsym(lib, "cuDriverGetVersion");
    int dv = 0;
    if (driver_version != NULL && driver_version(&dv) == 0)
        r->driver = dv;
    for (int i = 0; a->checks != NULL && a->checks[i] != NULL && r->n_checks < 8; i++) {
        int (*check)(void) = (int (*)(void))dlsym(lib, a->checks[i]);
        dr_copy(r->check_name[r->n_checks], sizeof r->check_name[0], a->checks[i]);
        r->check_status[r->n_checks++] = check != NULL ? check() : -1;
    }
    if (a->selftest)
        dr_selftest_run(lib, r->is_freednn, r->cudart, &r->st);
}

void
dr_probe_library(const char *path, const char *const *checks, bool selftest, int timeout_s,
                 struct dr_probe *out)
{
    dr_probe_library_after(NULL, path, checks, selftest, timeout_s, out);
}

void
dr_probe_library_after(const char *preload, const char *path, const char *const *checks, bool selftest,
                       int timeout_s, struct dr_probe *out)
{
    struct probe_arg a = {preload, path, checks, selftest};
    int sig = 0;
    bool timed_out = false;
    char err[sizeof out->error];
    memset(out, 0, sizeof *out);
    if (dr_run_child(probe_child, &a, out, sizeof *out, timeout_s, &sig, &timed_out, err, sizeof err) &&
        out->done)
        return;
    memset(out, 0, sizeof *out);
    out->signal = sig;
    out->timed_out = timed_out;
    dr_copy(out->error, sizeof out->error, err);
}

bool
dr_run_child(void (*fn)(void *arg, void *out), void *arg, void *out, size_t out_size, int timeout_s, int *sig,
             bool *timed_out_p, char *err, size_t err_n)
{
    int res[2], txt[2];
    *sig = 0;
    *timed_out_p = false;
    err[0] = 0;
    if (pipe(res) != 0 || pipe(txt) != 0) {
        dr_fmt(err, err_n, "pipe: %s", strerror(errno));
        return false;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        dr_fmt(err, err_n, "fork: %s", strerror(errno));
        close(res[0]), close(res[1]), close(txt[0]), close(txt[1]);
        return false;
    }
    if (pid == 0) {
        /* Its own process group: a library that signals its group
         * (kill(0, ...)) or the terminal's reaches only this child. */
        setpgid(0, 0);
        close(res[0]);
        close(txt[0]);
        dup2(txt[1], STDOUT_FILENO);
        dup2(txt[1], STDERR_FILENO);
        close(txt[1]);
        void *buf = calloc(1, out_size);
        if (buf != NULL) {
            fn(arg, buf);
            write_all(res[1], buf, out_size);
        }
        _exit(0);
    }
    setpgid(pid, pid);                   /* also here: no race with the child's own call */
    close(res[1]);
    close(txt[1]);

    size_t got = 0;
    char text[400];
    size_t text_len = 0;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    bool res_open = true, txt_open = true, timed_out = false;
    while (res_open || txt_open) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = timeout_s - ((double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec));
        if (left <= 0) {
            timed_out = true;
            kill(-pid, SIGKILL);         /* the child and anything it started */
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd fds[2] = {{res_open ? res[0] : -1, POLLIN, 0}, {txt_open ? txt[0] : -1, POLLIN, 0}};
        int pr = poll(fds, 2, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0)
            break;
        if (res_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t r = got < out_size ? read(res[0], (char *)out + got, out_size - got) : 0;
            if (r > 0)
                got += (size_t)r;
            else if (r == 0 || errno != EINTR)
                res_open = false;
        }
        if (txt_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            char buf[512];
            ssize_t r = read(txt[0], buf, sizeof buf);
            if (r > 0) {
                /* Keep the last words: a library prints its reason just
                 * before it aborts. */
                size_t cap = sizeof text - 1, n = (size_t)r > cap ? cap : (size_t)r;
                const char *src = buf + ((size_t)r - n);
                if (text_len + n > cap) {
                    size_t drop = text_len + n - cap;
                    memmove(text, text + drop, text_len - drop);
                    text_len -= drop;
                }
                memcpy(text + text_len, src, n);
                text_len += n;
            } else if (r == 0 || errno != EINTR) {
                txt_open = false;
            }
        }
    }
    close(res[0]);
    close(txt[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    text[text_len] = 0;
    *timed_out_p = timed_out;
    if (got == out_size && !timed_out)
        return true;
    if (WIFSIGNALED(status))
        *sig = WTERMSIG(status);
    /* Keep the library's last words, on one line. */
    for (char *c = text; *c != 0; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    if (timed_out)
        dr_fmt(err, err_n, "no answer within %d s; output: %s", timeout_s, text);
    else if (*sig != 0)
        dr_fmt(err, err_n, "loading it killed the process (%s); output: %s", strsignal(*sig), text);
    else
        dr_fmt(err, err_n, "the test process exited with status %d; output: %s",
               WIFEXITED(status) ? WEXITSTATUS(status) : -1, text);
    return false;
}
