/* SPDX-License-Identifier: Apache-2.0
 * Verdicts and output.  Every check ends in one verdict line: a level, the
 * check's name, a plain-words message and, for problems, the fix.  The
 * human summary lists what was found and then the verdicts; --json gives the
 * same facts as one JSON object (schema in docs/cudnn-doctor.md). */
#include "doctor.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_VERDICTS 256

struct verdict {
    enum dr_level level;
    char check[32];
    char message[768];
    char fix[512];
};

static struct verdict verdicts[MAX_VERDICTS];
static int n_verdicts;
static const struct dr_win_dll *win_dlls;
static int n_win_dlls;

static const char *const level_names[] = {"ok", "info", "skip", "warn", "fail"};
static const struct dr_win_dir *win_dirs;
static int n_win_dirs;

/* Names and versions as the report shows them (also used by checks.c). */
const char *
dr_selftest_name(int result)
{
    switch (result) {
    case DR_ST_PASS: return "pass";
    case DR_ST_MISMATCH: return "wrong results";
    case DR_ST_NOT_SUPPORTED: return "not supported";
    case DR_ST_NO_DEVICE: return "no GPU/device";
    case DR_ST_ERROR: return "error";
    default: return "not run";
    }
}

void
dr_selftest_verdict(const char *path, const struct dr_selftest *st)
{
    switch (st->result) {
    case DR_ST_PASS:
        dr_verdict(DR_OK, "selftest", NULL, "3x3 convolution through %s: %s", path, st->detail);
        break;
    case DR_ST_NO_DEVICE:
        dr_verdict(DR_SKIP, "selftest", NULL, "no GPU/device: %s cannot run the test convolution (%s)", path,
                   st->detail);
        break;
    case DR_ST_NOT_SUPPORTED:
        dr_verdict(DR_INFO, "selftest", NULL, "%s does not support the test convolution yet: %s", path,
                   st->detail);
        break;
    case DR_ST_MISMATCH:
        dr_verdict(DR_FAIL, "selftest", "report this: the library computes a wrong convolution",
                   "%s computes WRONG results: %s", path, st->detail);
        break;
    default:
        dr_verdict(DR_FAIL, "selftest", NULL, "%s: %s", path, st->detail[0] ? st->detail : "failed");
        break;
    }
}

long
dr_copy_version(const struct dr_copy *c)
{
    if (c->probe.done && c->probe.version > 0 && strcmp(c->probe.version_file, c->real) == 0)
        return c->probe.version;
    return c->name_version;
}

void
dr_verdict(enum dr_level level, const char *check, const char *fix, const char *fmt, ...)
{
    if (n_verdicts >= MAX_VERDICTS)
        return;
    struct verdict *v = &verdicts[n_verdicts++];
    v->level = level;
    dr_copy(v->check, sizeof v->check, check);
    dr_copy(v->fix, sizeof v->fix, fix);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
}

int
dr_worst_level(void)
{
    int worst = DR_OK;
    for (int i = 0; i < n_verdicts; i++)
        if ((int)verdicts[i].level > worst)
            worst = (int)verdicts[i].level;
    return worst;
}

void
dr_report_set_windows(const struct dr_win_dll *dlls, int n, const struct dr_win_dir *dirs, int n_dirs)
{
    win_dlls = dlls;
    n_win_dlls = n;
    win_dirs = dirs;
    n_win_dirs = n_dirs;
}

/* ---- JSON ---- */

/* Length of the valid UTF-8 sequence at p (1 to 4), or 0.  Strict
 * (RFC 3629): no overlong forms, no surrogates (ED A0..BF), nothing above
 * U+10FFFF (F4 90.. and F5..FF), so that the output is UTF-8 that any JSON
 * reader accepts whatever bytes a path holds. */
static int
utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    int n;
    unsigned lo = 0x80, hi = 0xbf;       /* allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;
        if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

static void jstr(const char *s);

/* A JSON string.  Paths and library messages are bytes, not always UTF-8:
 * an invalid byte becomes U+FFFD so the document stays valid. */
void
dr_json_str(const char *s)
{
    jstr(s);
}

static void
jstr(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)(s != NULL ? s : ""); *p != 0;) {
        int n = utf8_len(p);
        if (n == 0) {
            printf("\\ufffd");
            p++;
        } else if (n > 1) {
            fwrite(p, 1, (size_t)n, stdout);
            p += n;
        } else {
            if (*p == '"' || *p == '\\')
                printf("\\%c", *p);
            else if (*p < 0x20 || *p == 0x7f)
                printf("\\u%04x", *p);
            else
                putchar(*p);
            p++;
        }
    }
    putchar('"');
}

static void
jversion(long v)
{
    char s[32];
    dr_version_str(s, sizeof s, v);
    if (v > 0)
        jstr(s);
    else
        printf("null");
}

static void
json_probe(const struct dr_probe *p)
{
    printf("{\"loaded\":%s,\"error\":", p->loaded ? "true" : "false");
    jstr(p->error);
    printf(",\"signal\":%d,\"timed_out\":%s,\"version\":", p->signal, p->timed_out ? "true" : "false");
    jversion(p->version);
    printf(",\"version_number\":%ld,\"version_from\":", p->version);
    jstr(p->version_file);
    printf(",\"cudart\":%ld,\"freednn\":%s,\"checks\":{", p->cudart, p->is_freednn ? "true" : "false");
    for (int i = 0; i < p->n_checks; i++) {
        printf("%s", i ? "," : "");
        jstr(p->check_name[i]);
        printf(":%d", p->check_status[i]);
    }
    printf("}}");
}

static void
json_copy(const struct dr_copy *c, bool winner)
{
    printf("{\"path\":");
    jstr(c->path);
    printf(",\"real\":");
    jstr(c->real);
    printf(",\"origin\":");
    jstr(c->origin);
    printf(",\"on_path\":%s,\"winner\":%s,\"loadable\":%s,\"version\":", c->on_path ? "true" : "false",
           winner ? "true" : "false", c->loadable ? "true" : "false");
    jversion(dr_copy_version(c));
    printf(",\"name_version\":");
    jversion(c->name_version);
    printf(",\"elf\":{\"ok\":%s,\"error\":", c->elf.ok ? "true" : "false");
    jstr(c->elf.error);
    printf(",\"class\":%d,\"machine\":", c->elf.elf_class == 2 ? 64 : 32);
    jstr(dr_elf_machine_name(c->elf.machine));
    printf(",\"soname\":");
    jstr(c->elf.soname);
    printf(",\"runpath\":");
    jstr(c->elf.runpath);
    printf(",\"rpath\":");
    jstr(c->elf.rpath);
    printf(",\"needed\":[");
    for (int i = 0; i < c->elf.n_needed; i++) {
        printf("%s", i ? "," : "");
        jstr(c->elf.needed[i]);
    }
    printf("],\"version_definitions\":[");
    for (int i = 0; i < c->elf.n_verdefs; i++) {
        printf("%s", i ? "," : "");
        jstr(c->elf.verdefs[i]);
    }
    printf("]},\"probe\":");
    if (c->probe.done || c->probe.signal || c->probe.timed_out || c->probe.error[0])
        json_probe(&c->probe);
    else
        printf("null");
    printf("}");
}

static void
json_selftest(const struct dr_selftest *st, const char *lib)
{
    printf("{\"library\":");
    jstr(lib);
    printf(",\"result\":");
    jstr(dr_selftest_name(st->result));
    printf(",\"status\":%d,\"step\":", st->status);
    jstr(st->step);
    printf(",\"detail\":");
    jstr(st->detail);
    printf(",\"ms_per_call\":%.6f,\"gflops\":%.4f}", st->ms_per_call, st->gflops);
}

static void
print_json(struct dr_ctx *ctx, const struct dr_selftest *st, const char *st_lib)
{
    int worst = dr_worst_level();
    printf("{\"tool\":\"cudnn-doctor\",\"schema\":1,\"healthy\":%s,\"worst\":", worst < DR_FAIL ? "true" : "false");
    jstr(level_names[worst]);
    printf(",\"search_order\":[");
    for (int i = 0; i < ctx->n_sources; i++) {
        printf("%s{\"path\":", i ? "," : "");
        jstr(ctx->sources[i].is_cache ? "/etc/ld.so.cache" : ctx->sources[i].path);
        printf(",\"origin\":");
        jstr(ctx->sources[i].origin);
        printf(",\"on_path\":%s}", ctx->sources[i].on_path ? "true" : "false");
    }
    printf("],\"libraries\":[");
    for (int i = 0; i < ctx->n_sonames; i++) {
        const struct dr_soname *s = &ctx->sonames[i];
        printf("%s{\"soname\":", i ? "," : "");
        jstr(s->name);
        printf(",\"family\":%d,\"winner\":", s->family);
        if (s->winner >= 0)
            jstr(s->copies[s->winner].path);
        else
            printf("null");
        printf(",\"copies\":[");
        for (int k = 0; k < s->n; k++) {
            printf("%s", k ? "," : "");
            json_copy(&s->copies[k], k == s->winner);
        }
        printf("]}");
    }
    printf("],\"headers\":[");
    for (int i = 0; i < ctx->n_headers; i++) {
        printf("%s{\"path\":", i ? "," : "");
        jstr(ctx->headers[i].path);
        printf(",\"origin\":");
        jstr(ctx->headers[i].origin);
        printf(",\"version\":");
        jversion(ctx->headers[i].version);
        printf("}");
    }
    printf("],\"windows\":[");
    for (int i = 0; i < n_win_dlls; i++) {
        const struct dr_win_dll *d = &win_dlls[i];
        printf("%s{\"dll\":", i ? "," : "");
        jstr(d->name);
        printf(",\"path\":");
        if (d->path[0])
            jstr(d->path);
        else
            printf("null");
        printf(",\"origin\":");
        jstr(d->origin);
        printf(",\"machine\":");
        jstr(d->path[0] && d->pe.ok ? dr_pe_machine_name(d->pe.machine) : "");
        printf(",\"file_version\":");
        if (d->pe.has_version) {
            char v[48];
            dr_fmt(v, sizeof v, "%d.%d.%d.%d", d->pe.file_version[0], d->pe.file_version[1], d->pe.file_version[2],
                   d->pe.file_version[3]);
            jstr(v);
        } else {
            printf("null");
        }
        printf(",\"imports\":[");
        for (int k = 0; k < d->pe.n_imports; k++) {
            printf("%s", k ? "," : "");
            jstr(d->pe.imports[k]);
        }
        printf("],\"version\":");
        jstr(d->path[0] ? d->version : "");
        printf(",\"freednn\":%s,\"probe\":", d->pe.exports_freednn || d->probe.is_freednn ? "true" : "false");
        if (d->probe.done) {
            printf("{\"loaded\":%s,\"error\":%lu,\"message\":", d->probe.loaded ? "true" : "false", d->probe.error);
            jstr(d->probe.message);
            printf(",\"version\":");
            jversion(d->probe.version);
            printf(",\"cudart\":%ld}", d->probe.cudart);
        } else {
            printf("null");
        }
        printf(",\"shadowed\":[");
        for (int k = 0; k < d->n_shadowed; k++) {
            printf("%s", k ? "," : "");
            jstr(d->shadowed[k]);
        }
        printf("],\"shadowed_versions\":[");
        for (int k = 0; k < d->n_shadowed; k++) {
            printf("%s", k ? "," : "");
            jstr(d->shadowed_version[k]);
        }
        printf("]}");
    }
    printf("],\"windows_search_order\":[");
    for (int i = 0; i < n_win_dirs; i++) {
        printf("%s{\"path\":", i ? "," : "");
        jstr(win_dirs[i].path);
        printf(",\"origin\":");
        jstr(win_dirs[i].origin);
        printf("}");
    }
    printf("],\"selftest\":");
    if (st != NULL && st->result != DR_ST_NOT_RUN)
        json_selftest(st, st_lib);
    else
        printf("null");
    printf(",\"verdicts\":[");
    for (int i = 0; i < n_verdicts; i++) {
        printf("%s{\"level\":", i ? "," : "");
        jstr(level_names[verdicts[i].level]);
        printf(",\"check\":");
        jstr(verdicts[i].check);
        printf(",\"message\":");
        jstr(verdicts[i].message);
        printf(",\"fix\":");
        if (verdicts[i].fix[0])
            jstr(verdicts[i].fix);
        else
            printf("null");
        printf("}");
    }
    printf("]}\n");
}

/* ---- human summary ---- */

static void
print_human(struct dr_ctx *ctx, const struct dr_selftest *st, const char *st_lib)
{
    char v[32];
    printf("cudnn-doctor: cuDNN installations as the loader sees them\n");
    if (ctx->opt.verbose && ctx->n_sources > 0) {
        printf("\nSearch order:\n");
        for (int i = 0; i < ctx->n_sources; i++)
            printf("  %2d. %-40s %s\n", i + 1, ctx->sources[i].is_cache ? "/etc/ld.so.cache" : ctx->sources[i].path,
                   ctx->sources[i].origin);
    }
    if (ctx->opt.verbose && n_win_dirs > 0) {
        printf("\nWindows DLL search order:\n");
        for (int i = 0; i < n_win_dirs; i++)
            printf("  %2d. %-40s %s\n", i + 1, win_dirs[i].path, win_dirs[i].origin);
    }
    for (int fam = 8; fam <= 9; fam++) {
        bool any = false;
        for (int i = 0; i < ctx->n_sonames; i++)
            any |= ctx->sonames[i].family == fam && ctx->sonames[i].n > 0;
        if (!any)
            continue;
        printf("\ncuDNN %d libraries:\n", fam);
        for (int i = 0; i < ctx->n_sonames; i++) {
            const struct dr_soname *s = &ctx->sonames[i];
            if (s->family != fam)
                continue;
            if (s->n == 0) {
                printf("  %-40s MISSING\n", s->name);
                continue;
            }
            for (int k = 0; k < s->n; k++) {
                const struct dr_copy *c = &s->copies[k];
                dr_version_str(v, sizeof v, dr_copy_version(c));
                const char *role = k == s->winner ? "loads" : c->on_path ? (c->loadable ? "shadowed" : "skipped")
                                                                          : "off path";
                printf("  %-40s %-8s %-8s %s%s [%s]\n", k == 0 ? s->name : "", role, v, c->real,
                       c->probe.is_freednn ? " (FreeDNN)" : "", c->origin);
            }
        }
    }
    if (ctx->n_headers > 0) {
        printf("\nHeaders:\n");
        for (int i = 0; i < ctx->n_headers; i++) {
            dr_version_str(v, sizeof v, ctx->headers[i].version);
            printf("  %-8s %s [%s]\n", v, ctx->headers[i].path, ctx->headers[i].origin);
        }
    }
    if (n_win_dlls > 0) {
        printf("\nWindows DLLs:\n");
        for (int i = 0; i < n_win_dlls; i++) {
            const struct dr_win_dll *d = &win_dlls[i];
            if (d->path[0] == 0) {
                printf("  %-40s MISSING\n", d->name);
                continue;
            }
            /* Windows' own DLLs (found on this machine): only with -v. */
            if (!ctx->opt.verbose && (strcmp(d->origin, "system folder") == 0 || strcmp(d->origin, "Windows folder") == 0))
                continue;
            bool many = d->n_shadowed > 0;
            printf("  %-32s %s%-12s %-6s %s [%s]%s\n", d->name, many ? "1. " : "", d->version,
                   d->pe.ok ? dr_pe_machine_name(d->pe.machine) : "bad", d->path, d->origin,
                   many ? " <- loads" : "");
            for (int k = 0; k < d->n_shadowed; k++)
                printf("  %-32s %d. %-12s %-6s %s [%s, shadowed]\n", "", k + 2, d->shadowed_version[k], "",
                       d->shadowed[k], d->shadowed_origin[k]);
        }
    }
    if (st != NULL && st->result != DR_ST_NOT_RUN)
        printf("\nSelf-test (%s): %s: %s\n", st_lib, dr_selftest_name(st->result), st->detail);
    printf("\nVerdicts:\n");
    for (int i = 0; i < n_verdicts; i++) {
        printf("  %-4s  %-16s %s\n", level_names[verdicts[i].level], verdicts[i].check, verdicts[i].message);
        if (verdicts[i].fix[0] && verdicts[i].level >= DR_WARN)
            printf("  %-4s  %-16s fix: %s\n", "", "", verdicts[i].fix);
    }
    int fails = 0, warns = 0;
    for (int i = 0; i < n_verdicts; i++) {
        fails += verdicts[i].level == DR_FAIL;
        warns += verdicts[i].level == DR_WARN;
    }
    printf("\nResult: %s (%d failed, %d warnings)\n", fails ? "PROBLEMS FOUND" : "healthy", fails, warns);
}

void
dr_report_print(struct dr_ctx *ctx, const struct dr_selftest *st, const char *st_lib)
{
    if (ctx->opt.json)
        print_json(ctx, st, st_lib);
    else
        print_human(ctx, st, st_lib);
}
