/* SPDX-License-Identifier: Apache-2.0
 * The test harness.  See testutil.h. */
#include "testutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "test_os.h"

_Atomic int fdnn_test_passed;
_Atomic int fdnn_test_failed;

void
fdnn_test_fail(const char *file, int line, const char *fmt, ...)
{
    fdnn_test_failed++;
    fprintf(stderr, "%s:%d: FAILED: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int
fdnn_test_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, fdnn_test_passed, fdnn_test_failed);
    return fdnn_test_failed == 0 && fdnn_test_passed > 0 ? 0 : 1;
}

/* Layout: [guard page][header page ... data][guard page].  The header (the
 * mapping's base and length) sits at the start of the first data page. */
typedef struct guard_header {
    void *base;
    size_t length;
} guard_header_t;

void *
fdnn_guarded_alloc(size_t bytes)
{
    size_t page = fdnn_test_page_size();
    size_t rounded = (bytes + 7) & ~(size_t)7;
    size_t data_pages = (rounded + sizeof(guard_header_t) + page - 1) / page;
    size_t length = (data_pages + 2) * page;
    char *base = fdnn_test_map_pages(length);
    if (base == NULL) {
        fprintf(stderr, "fdnn_guarded_alloc: cannot map %zu bytes\n", length);
        abort();
    }
    fdnn_test_protect_none(base, page);
    fdnn_test_protect_none(base + (data_pages + 1) * page, page);
    char *end = base + (data_pages + 1) * page;
    char *p = end - rounded;
    guard_header_t *h = (guard_header_t *)(base + page);
    h->base = base;
    h->length = length;
    /* The header lives at the start of the data pages; find it again from p
     * by rounding down to the page after the leading guard. */
    return p;
}

void
fdnn_guarded_free(void *p)
{
    if (p == NULL)
        return;
    size_t page = fdnn_test_page_size();
    /* Walk back page by page to the first data page: its predecessor is the
     * guard.  The header stored there names the mapping. */
    /* p - 1, not p: a zero-byte buffer ends exactly at the trailing guard
     * page, and the header always sits before the first byte. */
    uintptr_t q = ((uintptr_t)p - 1) & ~(uintptr_t)(page - 1);
    for (;;) {
        guard_header_t *h = (guard_header_t *)q;
        if ((uintptr_t)h->base + page == q) {
            fdnn_test_unmap_pages(h->base, h->length);
            return;
        }
        q -= page;
    }
}

void
fdnn_poison_f32(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
}

void
fdnn_poison_f64(double *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
}

void
fdnn_poison_bytes(void *p, size_t n)
{
    memset(p, 0xFF, n);
}

void
fdnn_rng_seed(fdnn_rng_t *rng, uint64_t seed)
{
    rng->state = seed;
}

uint64_t
fdnn_rng_u64(fdnn_rng_t *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double
fdnn_rng_uniform(fdnn_rng_t *rng, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(fdnn_rng_u64(rng) >> 11) * 0x1.0p-53);
}

int
fdnn_rng_int(fdnn_rng_t *rng, int lo, int hi)
{
    return lo + (int)(fdnn_rng_u64(rng) % (uint64_t)(hi - lo + 1));
}

double
fdnn_max_rel_error_f32(const float *a, const float *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]) && isnan(b[i]))
            continue;
        if (isnan(a[i]) || isnan(b[i]))
            return INFINITY;
        if (isinf(a[i]) || isinf(b[i])) {
            if (a[i] != b[i])
                return INFINITY;
            continue;
        }
        double d = fabs((double)a[i] - (double)b[i]) / fmax(1.0, fabs((double)b[i]));
        if (d > worst)
            worst = d;
    }
    return worst;
}

int
fdnn_test_isa_count(void)
{
    return (int)fdnn_cpu_max_isa() + 1;
}

const char *
fdnn_test_isa_name(int i)
{
    return fdnn_isa_name((fdnn_isa_t)i);
}

void
fdnn_test_put_file(const char *root, const char *path, const char *text)
{
    char full[512];
    snprintf(full, sizeof(full), "%s/%s", root, path);
    for (char *p = full + strlen(root) + 1; *p != '\0'; p++)
        if (*p == '/') {
            *p = '\0';
            fdnn_test_make_dir(full);
            *p = '/';
        }
    FILE *f = fopen(full, "w");
    CHECK_MSG(f != NULL, "cannot write %s", full);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}
