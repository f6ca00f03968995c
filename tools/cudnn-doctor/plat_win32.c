/* SPDX-License-Identifier: Apache-2.0
 * The doctor's system layer on Windows (cudnn-doctor.exe; the interface is
 * in doctor.h, plat_posix.c + host_linux.c are the Linux side):
 *   - paths are UTF-8 inside the doctor and UTF-16 at every system call;
 *   - files are mapped with CreateFileMappingW, folders listed with
 *     FindFirstFileW, and two paths are one file when the volume serial
 *     number and the file index agree (case, 8.3 names, links do not fool it);
 *   - the search order is the standard one of LoadLibrary with
 *     SafeDllSearchMode on: (application folder), System32, the 16-bit
 *     system folder, the Windows folder, the current folder, then PATH;
 *   - a DLL is loaded in a child process, the doctor itself run again as
 *     `cudnn-doctor.exe --probe-dll PATH`: a DLL whose start-up crashes or
 *     hangs takes only the child with it.  The child prints one line of
 *     key=value facts that the parent reads back through a pipe.
 * With no --windows-dir or --windows-dll, the doctor checks this machine
 * (windows.c, ctx->windows_host).  The Linux-only parts (the ELF loader's
 * search, the in-process self-test, `workspace`) are not built here. */
#include "doctor.h"

#include <windows.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* UTF-8 -> UTF-16 into a malloc'ed string (NULL on failure). */
static wchar_t *
wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc(sizeof(wchar_t) * (size_t)n) : NULL;
    if (w != NULL && MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n) <= 0) {
        free(w);
        w = NULL;
    }
    return w;
}

/* UTF-16 -> UTF-8 into dst (truncated, always terminated). */
static void
narrow(const wchar_t *w, char *dst, size_t n)
{
    if (n == 0)
        return;
    if (WideCharToMultiByte(CP_UTF8, 0, w, -1, dst, (int)n, NULL, NULL) <= 0)
        dst[0] = 0;
    dst[n - 1] = 0;
}

char
dr_plat_sep(void)
{
    return '\\';
}

bool
dr_plat_is_sep(char c)
{
    return c == '/' || c == '\\';
}

int
dr_plat_kind(const char *path)
{
    wchar_t *w = wide(path);
    DWORD a = w != NULL ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
    free(w);
    if (a == INVALID_FILE_ATTRIBUTES)
        return DR_KIND_NONE;
    return (a & FILE_ATTRIBUTE_DIRECTORY) ? DR_KIND_DIR : (a & FILE_ATTRIBUTE_DEVICE) ? DR_KIND_OTHER : DR_KIND_FILE;
}

/* The system's words for an error code, on one line. */
static void
error_text(DWORD code, char *dst, size_t n)
{
    wchar_t buf[256];
    DWORD len = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, buf,
                               sizeof buf / sizeof buf[0], NULL);
    if (len == 0) {
        dr_fmt(dst, n, "error %lu", (unsigned long)code);
        return;
    }
    narrow(buf, dst, n);
    for (char *c = dst; *c != 0; c++)
        if (*c == '\r' || *c == '\n')
            *c = ' ';
    for (size_t l = strlen(dst); l > 0 && dst[l - 1] == ' '; l--)
        dst[l - 1] = 0;
}

int
dr_plat_map(const char *path, struct dr_map *m, char *err, size_t err_n)
{
    memset(m, 0, sizeof *m);
    wchar_t *w = wide(path);
    HANDLE f = w != NULL ? CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                                       OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL)
                         : INVALID_HANDLE_VALUE;
    free(w);
    if (f == INVALID_HANDLE_VALUE) {
        char why[200];
        error_text(GetLastError(), why, sizeof why);
        dr_fmt(err, err_n, "cannot open: %s", why);
        return -1;
    }
    LARGE_INTEGER size;
    if (!GetFileSizeEx(f, &size) || size.QuadPart <= 0 || (unsigned long long)size.QuadPart > (size_t)-1) {
        dr_copy(err, err_n, "empty or unreadable file");
        CloseHandle(f);
        return -1;
    }
    m->size = (size_t)size.QuadPart;
    HANDLE map = CreateFileMappingW(f, NULL, PAGE_READONLY, 0, 0, NULL);
    CloseHandle(f);
    const void *view = map != NULL ? MapViewOfFile(map, FILE_MAP_READ, 0, 0, 0) : NULL;
    if (view == NULL) {
        char why[200];
        error_text(GetLastError(), why, sizeof why);
        dr_fmt(err, err_n, "cannot map: %s", why);
        if (map != NULL)
            CloseHandle(map);
        return -1;
    }
    m->data = view;
    m->handle = map;
    return 0;
}

void
dr_plat_unmap(struct dr_map *m)
{
    if (m->data != NULL)
        UnmapViewOfFile(m->data);
    if (m->handle != NULL)
        CloseHandle(m->handle);
    m->data = NULL;
    m->handle = NULL;
}

bool
dr_plat_list_dir(const char *dir, bool (*fn)(const char *name, void *arg), void *arg)
{
    char pattern[DR_PATH];
    dr_join(pattern, sizeof pattern, dir, "*");
    wchar_t *w = wide(pattern);
    WIN32_FIND_DATAW e;
    HANDLE h = w != NULL ? FindFirstFileW(w, &e) : INVALID_HANDLE_VALUE;
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return false;
    do {
        char name[MAX_PATH * 3];
        narrow(e.cFileName, name, sizeof name);
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (!fn(name, arg))
            break;
    } while (FindNextFileW(h, &e));
    FindClose(h);
    return true;
}

bool
dr_plat_find_nocase(const char *dir, const char *name, char *out, size_t n)
{
    /* Names without wildcards or separators only: FindFirstFileW would
     * match a pattern. */
    if (strpbrk(name, "*?/\\") != NULL)
        return false;
    char path[DR_PATH];
    dr_join(path, sizeof path, dir, name);
    wchar_t *w = wide(path);
    WIN32_FIND_DATAW e;
    HANDLE h = w != NULL ? FindFirstFileW(w, &e) : INVALID_HANDLE_VALUE;
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return false;
    FindClose(h);
    if (e.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE))
        return false;
    char real[MAX_PATH * 3];
    narrow(e.cFileName, real, sizeof real);
    dr_join(out, n, dir, real);          /* the name as the folder spells it */
    return true;
}

static bool
file_id(const char *path, BY_HANDLE_FILE_INFORMATION *info)
{
    wchar_t *w = wide(path);
    /* No access rights asked: only the identity is read.  BACKUP_SEMANTICS
     * lets a folder be opened too. */
    HANDLE f = w != NULL ? CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                                       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL)
                         : INVALID_HANDLE_VALUE;
    free(w);
    if (f == INVALID_HANDLE_VALUE)
        return false;
    bool ok = GetFileInformationByHandle(f, info) != 0;
    CloseHandle(f);
    return ok;
}

bool
dr_plat_same_file(const char *a, const char *b)
{
    BY_HANDLE_FILE_INFORMATION ia, ib;
    return file_id(a, &ia) && file_id(b, &ib) && ia.dwVolumeSerialNumber == ib.dwVolumeSerialNumber &&
           ia.nFileIndexHigh == ib.nFileIndexHigh && ia.nFileIndexLow == ib.nFileIndexLow;
}

void
dr_plat_own_dir(char *dst, size_t n)
{
    wchar_t exe[MAX_PATH * 4];
    DWORD len = GetModuleFileNameW(NULL, exe, sizeof exe / sizeof exe[0]);
    if (len == 0 || len >= sizeof exe / sizeof exe[0]) {
        dr_copy(dst, n, "");
        return;
    }
    char path[DR_PATH];
    narrow(exe, path, sizeof path);
    dr_dirname(dst, n, path);
}

/* ---- loading a DLL: the child's side ---------------------------------- */

/* The child's answers go to their own pipe (the handle's number is given
 * with --probe-out), not to stdout: what the DLL or Wine's crash handler
 * prints cannot bury them. */
static HANDLE probe_out = INVALID_HANDLE_VALUE;

static void
say(const char *fmt, ...)
{
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    DWORD len = (DWORD)((size_t)n < sizeof line ? (size_t)n : sizeof line - 1), put = 0;
    if (probe_out != INVALID_HANDLE_VALUE)
        WriteFile(probe_out, line, len, &put, NULL);
    else
        fwrite(line, 1, len, stdout), fflush(stdout);
}

/* A crash in the DLL (its DllMain or the self-test's calls) is said, with
 * its exception code, and ends the child at once (no debugger, no dialog). */
static LONG WINAPI
crashed(EXCEPTION_POINTERS *e)
{
    DWORD code = e != NULL && e->ExceptionRecord != NULL ? e->ExceptionRecord->ExceptionCode : 0;
    say("exception=%lu\n", (unsigned long)code);
    TerminateProcess(GetCurrentProcess(), code);
    return EXCEPTION_EXECUTE_HANDLER;
}

/* `cudnn-doctor.exe --probe-dll PATH [--probe-out HANDLE] [--selftest]`:
 * loads PATH the way a program loads cuDNN by full path (its own folder
 * searched first for what it imports) and says what it answers: one line
 * of key=value facts, written before the self-test runs (a crash there
 * keeps them), then, with --selftest, "selftest=" and the struct
 * dr_selftest in hex (the parent is this same program: the same layout). */
static int
probe_child(const char *path, bool selftest)
{
    SetUnhandledExceptionFilter(crashed);
    wchar_t *w = wide(path), full[MAX_PATH * 4];
    DWORD len = w != NULL ? GetFullPathNameW(w, sizeof full / sizeof full[0], full, NULL) : 0;
    free(w);
    if (len == 0 || len >= sizeof full / sizeof full[0]) {
        say("loaded=0 error=%lu message=bad path\n", (unsigned long)ERROR_BAD_PATHNAME);
        return 0;
    }
    HMODULE lib = LoadLibraryExW(full, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    if (lib == NULL) {
        DWORD code = GetLastError();
        char why[200];
        error_text(code, why, sizeof why);
        say("loaded=0 error=%lu message=%s\n", (unsigned long)code, why);
        return 0;
    }
    typedef size_t (*version_fn)(void);
    version_fn get_version = (version_fn)dr_plat_sym(lib, "cudnnGetVersion");
    version_fn get_cudart = (version_fn)dr_plat_sym(lib, "cudnnGetCudartVersion");
    bool freednn = dr_plat_sym(lib, "freednnSetIsa") != NULL;
    unsigned long cudart = get_cudart != NULL ? (unsigned long)get_cudart() : 0ul;
    say("loaded=1 error=0 version=%lu cudart=%lu freednn=%d message=\n",
        get_version != NULL ? (unsigned long)get_version() : 0ul, cudart, freednn ? 1 : 0);
    if (selftest) {
        static struct dr_selftest st;
        static char hex[2 * sizeof st + 1];
        dr_selftest_run(lib, freednn, (long)cudart, &st);
        for (size_t i = 0; i < sizeof st; i++)
            snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)&st)[i]);
        say("selftest=%s\n", hex);
    }
    /* No FreeLibrary: the process ends here, and a library's unload code
     * is not what is being checked. */
    return 0;
}

void *
dr_plat_sym(void *lib, const char *name)
{
    return (void *)(void (*)(void))GetProcAddress((HMODULE)lib, name);
}

void *
dr_plat_open_cudart(long cudart, char *name, size_t n)
{
    long major = cudart / 1000, minor = (cudart % 1000) / 10;
    /* NVIDIA's names: cudart64_12.dll from CUDA 12, cudart64_110.dll for
     * every 11.x, cudart64_102.dll for 10.2. */
    if (major >= 12)
        dr_fmt(name, n, "cudart64_%ld.dll", major);
    else if (major == 11)
        dr_copy(name, n, "cudart64_110.dll");
    else
        dr_fmt(name, n, "cudart64_%ld%ld.dll", major, minor);
    wchar_t *w = wide(name);
    HMODULE lib = w != NULL ? LoadLibraryW(w) : NULL;
    free(w);
    return lib;
}

double
dr_plat_now(void)
{
    LARGE_INTEGER t, f;
    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return (double)t.QuadPart / (double)f.QuadPart;
}

int
dr_plat_subcommand(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--probe-dll") == 0) {
        bool selftest = false;
        for (int i = 3; i < argc; i++) {
            if (strcmp(argv[i], "--selftest") == 0)
                selftest = true;
            else if (strcmp(argv[i], "--probe-out") == 0 && i + 1 < argc)
                probe_out = (HANDLE)(uintptr_t)strtoull(argv[++i], NULL, 10);
        }
        return probe_child(argv[2], selftest);
    }
    if (argc > 1 && strcmp(argv[1], "workspace") == 0) {
        fprintf(stderr, "cudnn-doctor: `workspace` is in the Linux doctor only for now (docs/cudnn-doctor.md)\n");
        return 2;
    }
    return -1;
}

/* Splits a UTF-16 command line as the C runtime does for main (and
 * CommandLineToArgvW, which would bring in shell32 and, under Wine, the
 * whole window system with it): the program name up to the first blank or
 * within quotes; then 2n backslashes before '"' give n and toggle quoting,
 * 2n+1 give n and a literal '"', other backslashes are literal, and '""'
 * inside quotes is a literal '"'.  Returns the count; args[i] are
 * malloc'ed UTF-8 strings (NULL when out of memory: the caller keeps argv). */
static int
split_command_line(const wchar_t *cl, char **args, int max)
{
    int n = 0;
    size_t cap = wcslen(cl) + 1;
    wchar_t *arg = malloc(sizeof(wchar_t) * cap);
    if (arg == NULL)
        return -1;
    const wchar_t *p = cl;
    while (*p != 0 && n < max) {
        while (*p == L' ' || *p == L'\t')
            p++;
        if (*p == 0)
            break;
        size_t len = 0;
        bool quoted = false;
        if (n == 0) {                    /* the program name: no escapes */
            if (*p == L'"') {
                for (p++; *p != 0 && *p != L'"'; p++)
                    arg[len++] = *p;
                if (*p == L'"')
                    p++;
            } else {
                for (; *p != 0 && *p != L' ' && *p != L'\t'; p++)
                    arg[len++] = *p;
            }
        } else {
            for (; *p != 0 && (quoted || (*p != L' ' && *p != L'\t'));) {
                size_t bs = 0;
                while (*p == L'\\') {
                    bs++;
                    p++;
                }
                if (*p == L'"') {
                    for (size_t k = 0; k < bs / 2; k++)
                        arg[len++] = L'\\';
                    if (bs % 2 == 1) {
                        arg[len++] = L'"';
                        p++;
                    } else if (quoted && p[1] == L'"') {
                        arg[len++] = L'"';
                        p += 2;
                    } else {
                        quoted = !quoted;
                        p++;
                    }
                } else {
                    for (size_t k = 0; k < bs; k++)
                        arg[len++] = L'\\';
                    if (*p != 0 && (quoted || (*p != L' ' && *p != L'\t')))
                        arg[len++] = *p++;
                }
            }
        }
        arg[len] = 0;
        int bytes = WideCharToMultiByte(CP_UTF8, 0, arg, -1, NULL, 0, NULL, NULL);
        args[n] = bytes > 0 ? malloc((size_t)bytes) : NULL;
        if (args[n] == NULL || WideCharToMultiByte(CP_UTF8, 0, arg, -1, args[n], bytes, NULL, NULL) <= 0) {
            free(arg);
            return -1;
        }
        n++;
    }
    free(arg);
    return n;
}

void
dr_plat_start(int *argc, char ***argv)
{
    /* A DLL that cannot load must give an error code, not a dialog box
     * that waits for a click. */
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
    /* Paths are UTF-8 inside the doctor: the output is UTF-8, and the
     * options are taken from the UTF-16 command line, not the ANSI argv
     * (a user folder such as C:\\Users\\José survives). */
    SetConsoleOutputCP(CP_UTF8);
    const wchar_t *cl = GetCommandLineW();
    int max = (int)wcslen(cl) / 2 + 2;   /* at most one argument per two characters, plus one */
    char **v = cl != NULL ? calloc((size_t)max + 1, sizeof *v) : NULL;
    int n = v != NULL ? split_command_line(cl, v, max) : -1;
    if (n <= 0) {
        free(v);                          /* keep the ANSI argv (the strings are left: start-up only) */
        return;
    }
    *argc = n;
    *argv = v;                           /* lives as long as the process */
}

void
dr_plat_check_host(struct dr_ctx *ctx, struct dr_selftest *st, char *st_lib, size_t st_lib_n)
{
    ctx->windows_host = true;
    dr_check_windows(ctx, st, st_lib, st_lib_n);
}

/* ---- loading a DLL: the parent's side --------------------------------- */

/* The value of `key=` in the child's line: numbers, or the rest of the
 * line for message=. */
static const char *
field(const char *line, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p += n)
        if ((p == line || p[-1] == ' ') && p[n] == '=')
            return p + n + 1;
    return NULL;
}

/* Appends what is available on pipe h to buf (keeping its last cap-1
 * bytes when `tail`, else its first ones). */
static void
drain(HANDLE h, char *buf, size_t cap, size_t *len, bool tail)
{
    DWORD avail = 0, got = 0;
    char chunk[512];
    while (PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL) && avail > 0 &&
           ReadFile(h, chunk, avail < sizeof chunk ? avail : (DWORD)sizeof chunk, &got, NULL) && got > 0) {
        if (*len + got > cap - 1) {
            if (!tail) {
                size_t room = cap - 1 - *len;
                memcpy(buf + *len, chunk, room);
                *len += room;
                continue;                /* keep reading: the child must not block */
            }
            size_t drop = *len + got - (cap - 1);
            drop = drop < *len ? drop : *len;
            memmove(buf, buf + drop, *len - drop);
            *len -= drop;
        }
        memcpy(buf + *len, chunk, got);
        *len += got;
    }
    buf[*len] = 0;
}

bool
dr_plat_win_probe(const char *path, bool selftest, int timeout_s, struct dr_win_probe *out)
{
    memset(out, 0, sizeof *out);
    wchar_t exe[MAX_PATH * 4];
    DWORD len = GetModuleFileNameW(NULL, exe, sizeof exe / sizeof exe[0]);
    if (len == 0 || len >= sizeof exe / sizeof exe[0])
        return false;
    /* Two pipes: the child's answers (its --probe-out handle), and its
     * stdout/stderr (the DLL's own words, kept for a crash message). */
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    HANDLE ard = NULL, awr = NULL, trd = NULL, twr = NULL;
    if (!CreatePipe(&ard, &awr, &sa, 0))
        return false;
    if (!CreatePipe(&trd, &twr, &sa, 0)) {
        CloseHandle(ard);
        CloseHandle(awr);
        return false;
    }
    SetHandleInformation(ard, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(trd, HANDLE_FLAG_INHERIT, 0);
    char exe8[DR_PATH], cmd8[3 * DR_PATH];
    narrow(exe, exe8, sizeof exe8);
    /* Windows paths cannot hold '"', so quoting both is enough. */
    dr_fmt(cmd8, sizeof cmd8, "\"%s\" --probe-dll \"%s\" --probe-out %llu%s", exe8, path,
           (unsigned long long)(uintptr_t)awr, selftest ? " --selftest" : "");
    wchar_t *cmd = wide(cmd8);
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdOutput = twr;
    si.hStdError = twr;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    PROCESS_INFORMATION pi;
    BOOL started = cmd != NULL && CreateProcessW(exe, cmd, NULL, NULL, TRUE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi);
    free(cmd);
    CloseHandle(awr);
    CloseHandle(twr);
    if (!started) {
        CloseHandle(ard);
        CloseHandle(trd);
        return false;
    }
    /* Both pipes are drained while waiting (a DLL that prints much cannot
     * block the child on a full pipe).  A hang is cut at the timeout. */
    char answer[2048], text[512];
    size_t alen = 0, tlen = 0;
    DWORD limit_ms = (DWORD)(timeout_s > 0 ? timeout_s : 60) * 1000u, waited_ms = 0, waited;
    for (;;) {
        waited = WaitForSingleObject(pi.hProcess, 20);
        drain(ard, answer, sizeof answer, &alen, false);
        drain(trd, text, sizeof text, &tlen, true);
        if (waited != WAIT_TIMEOUT || (waited_ms += 20) >= limit_ms)
            break;
    }
    out->done = true;
    if (waited != WAIT_OBJECT_0) {
        TerminateProcess(pi.hProcess, 1);
        WaitForSingleObject(pi.hProcess, 5000);
    }
    DWORD code = 0;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(ard);
    CloseHandle(trd);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    for (char *c = text; *c != 0; c++)
        if (*c == '\r' || *c == '\n')
            *c = ' ';

    const char *line = strstr(answer, "loaded="), *v;
    const char *exc = strstr(answer, "exception=");
    unsigned long exc_code = exc != NULL ? strtoul(exc + 10, NULL, 10) : 0;
    if (line == NULL || (exc != NULL && exc < line)) {
        /* No answer: the DLL's start-up crashed (exception=), or the child
         * hung or died otherwise. */
        out->error = waited != WAIT_OBJECT_0 ? WAIT_TIMEOUT : exc != NULL ? exc_code : code;
        if (waited != WAIT_OBJECT_0)
            dr_fmt(out->message, sizeof out->message, "no answer within %d s", timeout_s);
        else
            dr_fmt(out->message, sizeof out->message, "loading it ended the process (%s 0x%lx)%s%.120s",
                   exc != NULL ? "exception" : "exit code", exc != NULL ? exc_code : (unsigned long)code,
                   text[0] ? "; output: " : "", text);
        return true;
    }
    out->loaded = (v = field(line, "loaded")) != NULL && *v == '1';
    if ((v = field(line, "error")) != NULL)
        out->error = strtoul(v, NULL, 10);
    if ((v = field(line, "version")) != NULL)
        out->version = dr_norm_cudnn_version(strtol(v, NULL, 10));
    if ((v = field(line, "cudart")) != NULL)
        out->cudart = strtol(v, NULL, 10);
    out->is_freednn = (v = field(line, "freednn")) != NULL && *v == '1';
    if ((v = field(line, "message")) != NULL) {
        dr_copy(out->message, sizeof out->message, v);
        out->message[strcspn(out->message, "\r\n")] = 0;
    }
    /* The self-test's answer, or (asked, loaded, none) how the child ended. */
    const char *hex = strstr(line, "selftest=");
    if (selftest && out->loaded) {
        bool ok = hex != NULL && strspn(hex + 9, "0123456789abcdef") >= 2 * sizeof out->st;
        for (size_t i = 0; ok && i < sizeof out->st; i++) {
            unsigned b = 0;
            ok = sscanf(hex + 9 + 2 * i, "%2x", &b) == 1;
            ((unsigned char *)&out->st)[i] = (unsigned char)b;
        }
        if (!ok) {
            memset(&out->st, 0, sizeof out->st);
            out->st.result = DR_ST_ERROR;
            dr_copy(out->st.step, sizeof out->st.step, "self-test process");
            if (waited != WAIT_OBJECT_0)
                dr_fmt(out->st.detail, sizeof out->st.detail, "no answer within %d s", timeout_s);
            else if (exc != NULL)
                dr_fmt(out->st.detail, sizeof out->st.detail, "the convolution crashed (exception 0x%lx)%s%.80s",
                       exc_code, text[0] ? "; output: " : "", text);
            else
                dr_fmt(out->st.detail, sizeof out->st.detail, "the test process ended during the convolution "
                       "(exit code 0x%lx)", (unsigned long)code);
        }
    }
    return true;
}

/* ---- the search order --------------------------------------------------- */

void
dr_plat_win_search_order(void (*add)(const char *dir, const char *origin))
{
    wchar_t buf[MAX_PATH * 4];
    char dir[DR_PATH], sub[DR_PATH];
    UINT n = GetSystemDirectoryW(buf, sizeof buf / sizeof buf[0]);
    if (n > 0 && n < sizeof buf / sizeof buf[0]) {
        narrow(buf, dir, sizeof dir);
        add(dir, "system folder");
    }
    n = GetWindowsDirectoryW(buf, sizeof buf / sizeof buf[0]);
    if (n > 0 && n < sizeof buf / sizeof buf[0]) {
        narrow(buf, dir, sizeof dir);
        dr_join(sub, sizeof sub, dir, "System");
        if (dr_is_dir(sub))
            add(sub, "16-bit system folder");
        add(dir, "Windows folder");
    }
    DWORD c = GetCurrentDirectoryW(sizeof buf / sizeof buf[0], buf);
    if (c > 0 && c < sizeof buf / sizeof buf[0]) {
        narrow(buf, dir, sizeof dir);
        add(dir, "current folder");
    }
    /* PATH can be up to 32767 characters. */
    DWORD need = GetEnvironmentVariableW(L"PATH", NULL, 0);
    wchar_t *path = need > 0 ? malloc(sizeof(wchar_t) * need) : NULL;
    if (path == NULL)
        return;
    if (GetEnvironmentVariableW(L"PATH", path, need) > 0) {
        size_t len8 = (size_t)need * 3 + 1;
        char *path8 = malloc(len8);
        if (path8 != NULL) {
            narrow(path, path8, len8);
            for (const char *p = path8; *p != 0;) {
                size_t l = strcspn(p, ";");
                if (l > 0 && l < DR_PATH) {
                    memcpy(dir, p, l);
                    dir[l] = 0;
                    add(dir, "PATH");
                }
                p += l + (p[l] != 0);
            }
            free(path8);
        }
    }
    free(path);
}
