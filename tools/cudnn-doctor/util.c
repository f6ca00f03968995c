/* SPDX-License-Identifier: Apache-2.0
 * Small string, path and file helpers (see doctor.h). */
#include "doctor.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
dr_copy(char *dst, size_t n, const char *src)
{
    if (n == 0)
        return;
    snprintf(dst, n, "%s", src != NULL ? src : "");
}

void
dr_fmt(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

void
dr_join(char *dst, size_t n, const char *dir, const char *name)
{
    size_t len = strlen(dir);
    if (len > 0 && dr_plat_is_sep(dir[len - 1]))
        snprintf(dst, n, "%s%s", dir, name);
    else
        snprintf(dst, n, "%s%c%s", dir, dr_plat_sep(), name);
}

/* The last folder separator of path (dr_plat_is_sep), or NULL. */
static const char *
last_sep(const char *path)
{
    const char *last = NULL;
    for (const char *p = path; *p != 0; p++)
        if (dr_plat_is_sep(*p))
            last = p;
    return last;
}

void
dr_dirname(char *dst, size_t n, const char *path)
{
    const char *slash = last_sep(path);
    if (slash == NULL) {
        dr_copy(dst, n, ".");
        return;
    }
    if (slash == path) {
        dr_copy(dst, n, path[0] == '/' ? "/" : "\\");
        return;
    }
    snprintf(dst, n, "%.*s", (int)(slash - path), path);
}

const char *
dr_basename(const char *path)
{
    const char *slash = last_sep(path);
    return slash != NULL ? slash + 1 : path;
}

bool
dr_is_file(const char *path)
{
    return dr_plat_kind(path) == DR_KIND_FILE;
}

bool
dr_is_dir(const char *path)
{
    return dr_plat_kind(path) == DR_KIND_DIR;
}

int
dr_read_file(const char *path, size_t max, unsigned char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t cap = max < 65536 ? max : 65536, len = 0;
    unsigned char *buf = malloc(cap + 1);
    while (buf != NULL && len < max) {
        if (len == cap) {
            cap = cap * 2 < max ? cap * 2 : max;
            unsigned char *grown = realloc(buf, cap + 1);
            if (grown == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (buf == NULL) {
        errno = ENOMEM;
        return -1;
    }
    buf[len] = 0;
    *data = buf;
    *size = len;
    return 0;
}

long
dr_norm_cudnn_version(long v)
{
    if (v >= 90000)
        return v;                                /* 9.x: already major*10000 + ... */
    return (v / 1000) * 10000 + ((v % 1000) / 100) * 100 + v % 100;
}

void
dr_version_str(char *dst, size_t n, long v)
{
    if (v <= 0)
        dr_copy(dst, n, "?");
    else
        snprintf(dst, n, "%ld.%ld.%ld", v / 10000, (v / 100) % 100, v % 100);
}

long
dr_version_from_name(const char *file, const char *prefix)
{
    const char *base = dr_basename(file);
    size_t plen = strlen(prefix);
    if (strncmp(base, prefix, plen) != 0)
        return 0;
    int v[3];
    char tail;
    if (sscanf(base + plen, "%d.%d.%d%c", &v[0], &v[1], &v[2], &tail) != 3)
        return 0;
    if (v[0] < 0 || v[1] < 0 || v[1] > 99 || v[2] < 0 || v[2] > 99)
        return 0;
    return v[0] * 10000L + v[1] * 100L + v[2];
}

void
dr_split(const char *list, char sep, void (*fn)(const char *item, void *arg), void *arg)
{
    if (list == NULL)
        return;
    const char *p = list;
    while (*p != 0) {
        const char *end = strchr(p, sep);
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len > 0 && len < DR_PATH) {
            char item[DR_PATH];
            memcpy(item, p, len);
            item[len] = 0;
            fn(item, arg);
        }
        if (end == NULL)
            break;
        p = end + 1;
    }
}

void
dr_split_search(const char *list, const char *seps, void (*fn)(const char *item, void *arg), void *arg)
{
    if (list == NULL)
        return;
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, seps);
        if (len < DR_PATH) {
            char item[DR_PATH];
            memcpy(item, p, len);
            item[len] = 0;
            fn(item, arg);
        }
        if (p[len] == 0)
            break;
        p += len + 1;
    }
}

bool
dr_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
dr_ieq(const char *a, const char *b)
{
    while (*a != 0 && *b != 0) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
        a++;
        b++;
    }
    return *a == *b;
}
