/* SPDX-License-Identifier: Apache-2.0
 * main() of the replay build of a fuzz harness: runs every file named on the
 * command line, and every file in every folder named, through
 * LLVMFuzzerTestOneInput once.  The libFuzzer build links libFuzzer's main
 * instead.  A folder that does not exist counts as empty (git keeps no empty
 * folders).  Exit status 0 when every input returned; a crash is the
 * failure. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    uint8_t *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            data = realloc(data, cap);
            if (data == NULL)
                abort();
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    /* A copy of exactly n bytes, so ASan sees reads past the input. */
    uint8_t *copy = malloc(n ? n : 1);
    if (copy == NULL)
        abort();
    memcpy(copy, data, n);
    free(data);
    LLVMFuzzerTestOneInput(copy, n);
    free(copy);
    return 0;
}

static int
by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int
main(int argc, char **argv)
{
    int files = 0, errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            continue;
        if (!S_ISDIR(st.st_mode)) {
            errors += run_file(argv[i]);
            files++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, by_name);
        for (int k = 0; k < n; k++) {
            char path[4096];
            if (names[k]->d_name[0] != '.') {
                snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
                errors += run_file(path);
                files++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %d inputs\n", files);
    return errors != 0;
}
