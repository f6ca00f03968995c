/* SPDX-License-Identifier: Apache-2.0
 * The problem-line grammar of shared/bench/shapes.txt.  See bench.h. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cudnn.h"

int
bench_out(const bench_problem_t *p, int i)
{
    return (p->in[i] + 2 * p->p[i] - ((p->k[i] - 1) * p->d[i] + 1)) / p->s[i] + 1;
}

bool
bench_parse_line(const char *line, bench_problem_t *p)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", line);
    char *save = NULL;
    char *tok = strtok_r(buf, " \t\r\n", &save);
    if (tok == NULL || tok[0] == '#' || strcmp(tok, "conv") != 0)
        return false;
    memset(p, 0, sizeof(*p));
    p->nsp = 2;
    p->g = 1;
    p->fwd = true;
    for (int i = 0; i < 3; i++)
        p->in[i] = p->k[i] = p->s[i] = p->d[i] = 1;
    snprintf(p->name, sizeof(p->name), "conv");
    bool named = false;
    while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
        char *eq = strchr(tok, '=');
        if (eq == NULL) {
            if (!named)
                snprintf(p->name, sizeof(p->name), "%s", tok);
            named = true;
            continue;
        }
        *eq = '\0';
        const char *key = tok, *val = eq + 1;
        int v = atoi(val);
        static const char *const keys3[5] = {"i", "k", "s", "p", "d"};
        int *arrs[5] = {p->in, p->k, p->s, p->p, p->d};
        bool done = false;
        for (int a = 0; a < 5 && !done; a++) {
            static const char dims[3] = {'d', 'h', 'w'};
            for (int i = 0; i < 3; i++) {
                if (key[0] == keys3[a][0] && key[1] == dims[i] && key[2] == '\0') {
                    arrs[a][i] = v;
                    if (i == 0)
                        p->nsp = 3;
                    done = true;
                }
            }
        }
        if (done)
            continue;
        if (strcmp(key, "mb") == 0)
            p->mb = v;
        else if (strcmp(key, "ic") == 0)
            p->ic = v;
        else if (strcmp(key, "oc") == 0)
            p->oc = v;
        else if (strcmp(key, "g") == 0)
            p->g = v;
        else if (strcmp(key, "dir") == 0) {
            p->fwd = strstr(val, "fwd") != NULL;
            p->bwd = strstr(val, "bwd") != NULL;
        }
        else if (strcmp(key, "dt") == 0) {
            /* HALF and BFLOAT16 run as PSEUDO_HALF / PSEUDO_BFLOAT16. */
            if (strcmp(val, "f16") == 0)
                p->dt = CUDNN_DATA_HALF;
            else if (strcmp(val, "bf16") == 0)
                p->dt = CUDNN_DATA_BFLOAT16;
            else if (strcmp(val, "f32") == 0)
                p->dt = CUDNN_DATA_FLOAT;
        }
        /* mode and layout keys of logged problem strings (and dt values
         * other than the three above) are accepted and ignored: the
         * driver's options choose them. */
    }
    if (p->mb <= 0 || p->ic <= 0 || p->oc <= 0 || p->g <= 0 || p->ic % p->g || p->oc % p->g) {
        fprintf(stderr, "freednn-bench: bad sizes in: %s", line);
        return false;
    }
    for (int i = 0; i < 3; i++)
        if (p->s[i] <= 0 || p->d[i] <= 0 || p->p[i] < 0 || bench_out(p, i) <= 0) {
            fprintf(stderr, "freednn-bench: bad geometry in: %s", line);
            return false;
        }
    return true;
}
