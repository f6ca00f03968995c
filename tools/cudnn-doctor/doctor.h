/* SPDX-License-Identifier: Apache-2.0
 * cudnn-doctor: finds every cuDNN reachable on this machine (or in a copied
 * Windows folder), reads versions without loading, loads each copy in a child
 * process, and explains what is wrong in plain words.  See
 * docs/cudnn-doctor.md.
 *
 * This header holds the types that the parts share.  Each part has one file:
 *   util.c      strings, paths, small file helpers
 *   elf_read.c  ELF dynamic section, symbol versions, exported names
 *   pe_read.c   PE machine, import and delay-import tables, file version
 *   ldcache.c   /etc/ld.so.cache
 *   search.c    the Linux loader's search order, and where copies live
 *   headers.c   cudnn_version.h / cudnn.h in include folders
 *   probe.c     loading a copy in a forked child and asking it questions
 *   selftest.c  the convolution self-test (runs inside the child)
 *   checks.c    Linux verdicts on the cuDNN files themselves
 *   deps.c      their dependencies, the CUDA toolkit and the driver
 *   python.c    the Python pitfalls (pip wheels, PyTorch, TensorFlow)
 *   buildpairs.c headers and libcudnn.so development links, as builds pair them
 *   windows.c   a Windows folder: DLL search order, imports, bitness
 *   workspace.c `cudnn-doctor workspace`: every algorithm's workspace for one problem
 *   report.c    verdicts, the human summary and --json
 *   main.c      options and the order of the work (the same on every system)
 *   plat_posix.c / plat_win32.c  what differs between the Linux and the
 *               Windows doctor: mapping, listing and comparing files, loading
 *               a DLL, the Windows search order (CMake compiles one of them;
 *               no #ifdef elsewhere)
 *   host_linux.c the Linux doctor's start and host checks (plat_win32.c has
 *               the Windows ones)
 * Nothing here is thread-shared; the doctor is single-threaded. */
#ifndef CUDNN_DOCTOR_H
#define CUDNN_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DR_PATH 1024
#define DR_MAX_NEEDED 48
#define DR_MAX_COPIES 16

#if defined(__MINGW32__)
/* The Windows build uses MinGW's C99 printf (__USE_MINGW_ANSI_STDIO): %zu, %lld. */
#define DR_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define DR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DR_PRINTF(f, a)
#endif

/* ---- plat_posix.c + host_linux.c / plat_win32.c --------------------------------------- */
/* Paths are UTF-8 on Windows (the Windows file converts to UTF-16 for the
 * system calls) and bytes on Linux. */
char dr_plat_sep(void);                       /* written between folder and name: '/' or '\\' */
bool dr_plat_is_sep(char c);                  /* '/' on Linux; '/' or '\\' on Windows */
enum dr_kind { DR_KIND_NONE = 0, DR_KIND_FILE, DR_KIND_DIR, DR_KIND_OTHER };
int dr_plat_kind(const char *path);           /* enum dr_kind, following links */
/* A read-only view of a whole file.  Returns 0, or -1 with the reason in
 * err (and m->size set when the file was only too small to map). */
struct dr_map {
    const unsigned char *data;
    size_t size;
    void *handle;                             /* the system's handle, for dr_plat_unmap */
};
int dr_plat_map(const char *path, struct dr_map *m, char *err, size_t err_n);
void dr_plat_unmap(struct dr_map *m);
/* Calls fn(name, arg) for each entry of the folder but "." and "..", until
 * fn returns false.  Returns false when the folder cannot be read. */
bool dr_plat_list_dir(const char *dir, bool (*fn)(const char *name, void *arg), void *arg);
/* The regular file named `name` in any case in `dir` (Windows file names
 * are case-insensitive), its path as the folder spells it written to out.
 * Linux lists the folder; Windows asks for the name directly. */
bool dr_plat_find_nocase(const char *dir, const char *name, char *out, size_t n);
/* True when both paths name one existing file or folder (the same inode;
 * on Windows the same volume and file index, whatever the case or links). */
bool dr_plat_same_file(const char *a, const char *b);
/* The subcommands that only one system has (`workspace` loads a Linux
 * library; the Windows doctor's internal `--probe-dll`).  Returns the exit
 * status, or -1 when argv[1] is none of them. */
int dr_plat_subcommand(int argc, char **argv);
/* Before the options are read (Linux: runs itself again without LD_PRELOAD;
 * Windows: no error dialog boxes from the loader, UTF-8 output, and the
 * arguments taken from the UTF-16 command line as UTF-8). */
void dr_plat_start(int *argc, char ***argv);
struct dr_ctx;
struct dr_selftest;
/* The checks of the machine the doctor runs on when no --windows-dir or
 * --windows-dll is given: the Linux loader's view, or the Windows one. */
void dr_plat_check_host(struct dr_ctx *ctx, struct dr_selftest *st, char *st_lib, size_t st_lib_n);
/* A loaded library's symbol (dlsym / GetProcAddress), NULL if absent. */
void *dr_plat_sym(void *lib, const char *name);
/* The CUDA runtime of the major in `cudart` (cudnnGetCudartVersion's
 * answer): libcudart.so.12 / cudart64_12.dll, cudart64_110.dll for 11.x.
 * Its name goes to name (for the message when it does not load). */
void *dr_plat_open_cudart(long cudart, char *name, size_t n);
/* Seconds on a monotonic clock. */
double dr_plat_now(void);
/* The Windows loader's folders after the application folder, in its order
 * (system folder, 16-bit system folder, Windows folder, current folder,
 * PATH), as add(path, origin) calls.  Nothing on Linux. */
void dr_plat_win_search_order(void (*add)(const char *dir, const char *origin));
/* The folder of the running doctor program ("" when unknown). */
void dr_plat_own_dir(char *dst, size_t n);

/* ---- util.c ------------------------------------------------------------ */
void dr_copy(char *dst, size_t n, const char *src);            /* truncating strcpy */
void dr_fmt(char *dst, size_t n, const char *fmt, ...) DR_PRINTF(3, 4);
void dr_join(char *dst, size_t n, const char *dir, const char *name);
void dr_dirname(char *dst, size_t n, const char *path);
const char *dr_basename(const char *path);
bool dr_is_file(const char *path);
bool dr_is_dir(const char *path);
/* Reads at most `max` bytes of `path` into a malloc'ed buffer (NUL-terminated
 * one byte past *size).  Returns 0, or -1 with errno. */
int dr_read_file(const char *path, size_t max, unsigned char **data, size_t *size);
/* Versions are kept as major*10000 + minor*100 + patch whatever the library
 * reported: cuDNN 8 reports major*1000 + minor*100 + patch (8904), cuDNN 9
 * major*10000 + minor*100 + patch (91900). */
long dr_norm_cudnn_version(long reported);
void dr_version_str(char *dst, size_t n, long v);              /* "8.9.4", "?" for 0 */
/* "libcudnn.so.8.9.4" with prefix "libcudnn.so." -> 80904; 0 if the name
 * carries no full version. */
long dr_version_from_name(const char *file, const char *prefix);
/* Calls fn for each non-empty element of a `sep`-separated list. */
void dr_split(const char *list, char sep, void (*fn)(const char *item, void *arg), void *arg);
/* The same for a loader search list (LD_LIBRARY_PATH, RPATH, RUNPATH): glibc
 * reads an empty element (":/x", "/x:", "a::b") as the current folder, so fn
 * gets "" for it.  `seps` holds the separators (":" or ":;"). */
void dr_split_search(const char *list, const char *seps, void (*fn)(const char *item, void *arg), void *arg);
bool dr_starts_with(const char *s, const char *prefix);
/* Case-insensitive equality (Windows file names). */
bool dr_ieq(const char *a, const char *b);

/* ---- elf_read.c --------------------------------------------------------- */
struct dr_elf {
    bool ok;                 /* an ELF file was read */
    char error[160];         /* why not, when !ok */
    int elf_class;           /* 1 = 32-bit, 2 = 64-bit */
    int machine;             /* e_machine */
    bool is_shared;          /* ET_DYN */
    char soname[128];
    char rpath[DR_PATH];     /* DT_RPATH, "" if none */
    char runpath[DR_PATH];   /* DT_RUNPATH, "" if none */
    int n_needed;
    char needed[DR_MAX_NEEDED][96];
    int n_verdefs;           /* symbol version definitions (BASE first) */
    char verdefs[8][96];
    bool exports_get_version;   /* defines cudnnGetVersion */
    bool exports_freednn;       /* defines freednnSetIsa: this is FreeDNN */
};
/* Parses `path` without loading it.  Always fills out->ok / out->error. */
void dr_elf_read(const char *path, struct dr_elf *out);
/* The same on `size` bytes in memory; reads nothing outside them. */
void dr_elf_parse(const unsigned char *data, size_t size, struct dr_elf *out);
/* True when the loader of this process could load a file of this class and
 * machine (it silently skips the others and keeps searching). */
bool dr_elf_loadable(const struct dr_elf *e);
/* True when e->machine is this process's machine. */
bool dr_elf_loadable_machine(const struct dr_elf *e);
const char *dr_elf_machine_name(int machine);

/* ---- pe_read.c ---------------------------------------------------------- */
#define DR_PE_MAX_IMPORTS 48
struct dr_pe {
    bool ok;
    char error[160];
    int machine;             /* IMAGE_FILE_HEADER.Machine: 0x8664 AMD64, 0x14c i386 */
    bool pe32plus;           /* optional header magic 0x20b */
    int n_imports;           /* static imports, then delay-loaded ones */
    int n_delay;
    char imports[DR_PE_MAX_IMPORTS][64];
    bool has_version;        /* VS_FIXEDFILEINFO found */
    int file_version[4];     /* e.g. 8.9.4.25 */
    bool exports_get_version;   /* the export table names cudnnGetVersion */
    bool exports_freednn;       /* ... and freednnSetIsa: FreeDNN's DLL */
};
void dr_pe_read(const char *path, struct dr_pe *out);
/* The same on `size` bytes in memory; reads nothing outside them. */
void dr_pe_parse(const unsigned char *data, size_t size, struct dr_pe *out);
const char *dr_pe_machine_name(int machine);

/* ---- ldcache.c ---------------------------------------------------------- */
struct dr_ldcache_entry {
    const char *key;         /* soname as the cache lists it */
    const char *value;       /* full path */
    int32_t flags;
};
struct dr_ldcache {
    unsigned char *data;
    size_t size;
    int n;
    struct dr_ldcache_entry *entries;
    char error[160];
};
/* Parses the glibc cache file (new "glibc-ld.so.cache1.1" format, possibly
 * behind an old "ld.so-1.7.0" table).  Returns 0 or -1 with c->error. */
int dr_ldcache_load(const char *path, struct dr_ldcache *c);
void dr_ldcache_free(struct dr_ldcache *c);

/* ---- probe.c ------------------------------------------------------------ */
enum dr_selftest_result {
    DR_ST_NOT_RUN = 0,
    DR_ST_PASS,              /* bit-exact against the doctor's reference */
    DR_ST_MISMATCH,          /* ran, wrong numbers */
    DR_ST_NOT_SUPPORTED,     /* the library declines the convolution */
    DR_ST_NO_DEVICE,         /* NVIDIA's library, no GPU/driver */
    DR_ST_ERROR,             /* another failing status */
};
struct dr_selftest {
    int result;              /* enum dr_selftest_result */
    int status;              /* the failing cuDNN status, as the library numbers it */
    char step[48];           /* the call that failed */
    char detail[200];
    double ms_per_call;      /* timing loop, 0 if not run */
    double gflops;
    long max_abs_diff_x1e6;  /* on mismatch: max |y - ref| * 1e6 */
};
struct dr_probe {
    bool done;               /* the child reported */
    bool loaded;             /* dlopen succeeded */
    int signal;              /* the child died of this signal (0: did not) */
    bool timed_out;
    char error[512];         /* dlerror() or what went wrong */
    long version;            /* cudnnGetVersion, normalised; 0 if absent */
    char version_file[DR_PATH]; /* the file that defines the cudnnGetVersion answered */
    long cudart;             /* cudnnGetCudartVersion, 0 if absent */
    bool is_freednn;         /* freednnSetIsa found */
    long driver;             /* cuDriverGetVersion, when probing libcuda */
    int n_checks;            /* sub-library version checks asked */
    char check_name[8][40];
    int check_status[8];     /* status, or -1 when the function is absent */
    struct dr_selftest st;
};
/* Loads `path` in a forked child with RTLD_NOW | RTLD_LOCAL and asks it
 * cudnnGetVersion, cudnnGetCudartVersion and the version-check functions in
 * `checks` (NULL-terminated).  With `selftest`, also runs the convolution
 * self-test there.  A crash, abort or hang of the library is reported in
 * out->signal / out->timed_out and never reaches the doctor. */
void dr_probe_library(const char *path, const char *const *checks, bool selftest,
                      int timeout_s, struct dr_probe *out);
/* The same, after loading `preload` (RTLD_GLOBAL) first, as a program that
 * has the shim loaded when a sub-library comes in.  A failing preload is
 * ignored (the shim's own probe reports it). */
void dr_probe_library_after(const char *preload, const char *path, const char *const *checks,
                            bool selftest, int timeout_s, struct dr_probe *out);
/* Runs fn(arg, out) in a forked child (its own process group, stdout and
 * stderr captured) and copies the out_size bytes it fills back into `out`.
 * Returns true when they came back; else *sig / *timed_out and err say what
 * happened (with the child's last words). */
bool dr_run_child(void (*fn)(void *arg, void *out), void *arg, void *out, size_t out_size, int timeout_s, int *sig,
                  bool *timed_out, char *err, size_t err_n);
/* What loading a DLL said (Windows only; the Linux doctor cannot load one). */
struct dr_win_probe {
    bool done;               /* the probe ran */
    bool loaded;             /* LoadLibraryExW succeeded */
    unsigned long error;     /* GetLastError() when it did not: 126, 193, ... */
    char message[256];       /* the system's words for it */
    long version;            /* cudnnGetVersion, normalised; 0 if absent */
    long cudart;             /* cudnnGetCudartVersion, 0 if absent */
    bool is_freednn;         /* freednnSetIsa is exported */
    struct dr_selftest st;   /* with selftest: the convolution's result */
};
/* Loads `path` in a child process and asks it the versions; with
 * `selftest`, also runs the convolution self-test there.  Returns false
 * where DLLs cannot be loaded (Linux) or the child could not be run. */
bool dr_plat_win_probe(const char *path, bool selftest, int timeout_s, struct dr_win_probe *out);
/* Inside the child: the self-test on an already-opened library. */
void dr_selftest_run(void *lib, bool is_freednn, long cudart, struct dr_selftest *out);
const char *dr_selftest_name(int result);
/* The `selftest` verdict for the self-test run through the library at path. */
void dr_selftest_verdict(const char *path, const struct dr_selftest *st);

/* ---- search.c ----------------------------------------------------------- */
enum dr_source_kind {
    DR_SRC_FOR_RPATH,        /* DT_RPATH of the --for binary */
    DR_SRC_LD_LIBRARY_PATH,
    DR_SRC_FOR_RUNPATH,      /* DT_RUNPATH of the --for binary */
    DR_SRC_CACHE,            /* /etc/ld.so.cache */
    DR_SRC_DEFAULT,          /* the loader's built-in folders */
    DR_SRC_OFF_PATH,         /* known install places the loader does not search */
};
struct dr_source {
    int kind;                /* enum dr_source_kind */
    char path[DR_PATH];      /* a folder; "" for the ld.so.cache */
    bool is_cache;
    char origin[160];        /* "LD_LIBRARY_PATH", "RUNPATH of /x/app", ... */
    bool on_path;            /* the loader looks here; false: only known to exist */
    bool system;             /* a system location (left out by --no-system) */
};
struct dr_copy {
    char path[DR_PATH];      /* where the loader (or we) found it */
    char real[DR_PATH];      /* after symlinks: the real file name */
    char origin[160];
    bool on_path;
    bool loadable;           /* a valid ELF object of the right class and machine */
    bool unreadable;         /* exists but cannot be opened (EACCES): the loader skips it */
    struct dr_elf elf;
    long name_version;       /* from the real file name, 0 if none */
    struct dr_probe probe;
};
struct dr_soname {
    const char *name;        /* "libcudnn_cnn_infer.so.8" */
    int family;              /* 8 or 9 */
    bool is_shim;
    const char *check_fn;    /* its own version-check function, or NULL */
    int n;
    struct dr_copy copies[DR_MAX_COPIES]; /* loader order: on-path first */
    int winner;              /* index of the copy the loader takes, -1 if none */
};
/* The best-known version of a copy: what the library itself answered when
 * the answer came from this very file, else its file name; 0 if unknown. */
long dr_copy_version(const struct dr_copy *c);

struct dr_options {
    const char *for_binary;  /* --for */
    const char *windows_dir; /* --windows-dir */
    const char *windows_app; /* --windows-app */
    const char *windows_system; /* --windows-system */
    const char *windows_path;   /* --windows-path, ';'-separated */
    const char *windows_dll;    /* --windows-dll: check this DLL's imports */
    const char *expect;      /* --expect MAJOR.MINOR */
    const char *include_dirs[8]; int n_include_dirs; /* --include */
    const char *search_dirs[8]; int n_search_dirs;   /* --search */
    const char *python_sites[8]; int n_python_sites; /* --python-site */
    const char *ld_cache;    /* --ld-cache FILE (default /etc/ld.so.cache) */
    bool no_system;          /* --no-system */
    bool no_probe;           /* --no-probe */
    bool no_selftest;        /* --no-selftest */
    bool json;
    bool verbose;
    int timeout_s;
};

struct dr_header {
    char path[DR_PATH];
    char origin[160];
    long version;            /* normalised */
    bool paired;             /* sibling include folder of a library copy */
};

struct dr_ctx {
    struct dr_options opt;
    struct dr_source *sources;   /* grown as needed: no cap on search places */
    int n_sources, cap_sources;
    char own_lib[DR_PATH];   /* <prefix>/lib when the doctor runs from <prefix>/bin */
    bool windows_host;       /* set by plat_win32.c: check this Windows machine's search order */
    char dst_lib[64];        /* what $LIB expands to here ("lib/x86_64-linux-gnu") */
    char dst_platform[64];   /* what $PLATFORM expands to (AT_PLATFORM: "x86_64") */
    int n_hwcaps;            /* hwcaps subfolders the loader searches, best first */
    char hwcaps[8][48];      /* "glibc-hwcaps/x86-64-v3", legacy "x86_64" */
    struct dr_ldcache cache;
    bool have_cache;
    char for_path[DR_PATH];
    struct dr_elf for_elf;   /* the --for binary */
    struct dr_soname *sonames;
    int n_sonames;
    struct dr_header headers[32];
    int n_headers;
    char python_sites[16][DR_PATH];
    int n_python_sites;
};

/* Builds the ordered list of places (LD_LIBRARY_PATH, the --for binary's
 * RPATH/RUNPATH, the ld.so.cache, default folders, then the places that are
 * not on the loader's path: CUDA toolkits, conda, pip, --search). */
void dr_search_init(struct dr_ctx *ctx);
/* Every copy of `name` as the loader would look for it when `from` (an ELF
 * object at from_path; NULL: the --for binary or a plain program) asks for
 * it: on-path copies first in loader order, then off-path copies.  Returns
 * the number of copies (at most max) and the index of the winner in *winner
 * (-1: the loader finds none). */
int dr_resolve(struct dr_ctx *ctx, const char *name, const char *from_path,
               const struct dr_elf *from, struct dr_copy *out, int max, int *winner);
/* Fills ctx->sonames: the cuDNN 8 and 9 sonames and their copies. */
void dr_search_cudnn(struct dr_ctx *ctx);
bool dr_is_cudnn_name(const char *name);

/* ---- headers.c ---------------------------------------------------------- */
void dr_headers_find(struct dr_ctx *ctx);
/* The version of the cuDNN header in `incdir` (cudnn_version.h, else
 * cudnn.h or the Debian _v8/_v9 copies), normalised; 0 if none.  Its path
 * goes to path_out. */
long dr_header_version_in(const char *incdir, char *path_out, size_t n);

/* ---- report.c ----------------------------------------------------------- */
enum dr_level { DR_OK = 0, DR_INFO, DR_SKIP, DR_WARN, DR_FAIL };
/* One verdict line: `check` names the check ("sublib-mix"), `fix` tells the
 * user what to do (NULL when nothing).  The message is printf-formatted. */
void dr_verdict(enum dr_level level, const char *check, const char *fix, const char *fmt, ...)
    DR_PRINTF(4, 5);
int dr_worst_level(void);
/* Writes s to stdout as a JSON string (valid UTF-8 whatever its bytes). */
void dr_json_str(const char *s);
void dr_report_print(struct dr_ctx *ctx, const struct dr_selftest *st, const char *st_lib);
/* The Windows part keeps its own facts for the JSON output. */
#define DR_WIN_MAX_SHADOWED 8
struct dr_win_dll {
    char name[64];
    char path[DR_PATH];      /* "" when not found */
    char origin[64];
    struct dr_pe pe;
    struct dr_win_probe probe;  /* Windows only: loading the winner */
    char version[48];        /* file version, else cudnnGetVersion's answer, else "?" */
    int n_shadowed;          /* later copies in the search order, in that order */
    char shadowed[DR_WIN_MAX_SHADOWED][DR_PATH];
    char shadowed_origin[DR_WIN_MAX_SHADOWED][64];
    char shadowed_version[DR_WIN_MAX_SHADOWED][48];
};
/* One folder of the Windows search order. */
struct dr_win_dir {
    char path[DR_PATH];
    char origin[48];
};
void dr_report_set_windows(const struct dr_win_dll *dlls, int n, const struct dr_win_dir *dirs, int n_dirs);

/* ---- checks.c, deps.c, python.c, windows.c ------------------------------- */
/* The shim soname of cuDNN major `fam` (8 or 9), and the copy of a soname
 * that the loader takes (NULL when none). */
struct dr_soname *dr_family_shim(struct dr_ctx *ctx, int fam);
struct dr_copy *dr_winner(struct dr_soname *s);
/* The fix text for a copy that cannot be used (unreadable, a folder, a
 * link loop, damaged), written to fix; returns fix. */
const char *dr_unusable_fix(const struct dr_copy *c, char *fix, size_t n);
void dr_check_deps(struct dr_ctx *ctx, int fam);
void dr_check_cuda(struct dr_ctx *ctx, int fam);
/* --for: the program's own libraries; returns the cuDNN major it links. */
int dr_check_program(struct dr_ctx *ctx);
void dr_check_linux(struct dr_ctx *ctx, struct dr_selftest *st, char *st_lib, size_t st_lib_n);
void dr_check_python(struct dr_ctx *ctx);
/* buildpairs.c: headers and libcudnn.so development links as a build
 * would pair them (-I, -lcudnn), against the library that loads. */
void dr_check_build_pairs(struct dr_ctx *ctx, int expect_major);
/* The Windows checks; on Windows the self-test of the winning shim goes to
 * st / st_lib. */
void dr_check_windows(struct dr_ctx *ctx, struct dr_selftest *st, char *st_lib, size_t st_lib_n);
/* The CUDA major in a CUDA DLL name (cudart64_110.dll -> 11), 0 if none. */
int dr_win_cuda_major(const char *name);

/* ---- workspace.c: `cudnn-doctor workspace "PROBLEM"` -------------------- */
int dr_workspace_main(int argc, char **argv);

#endif /* CUDNN_DOCTOR_H */
