/* SPDX-License-Identifier: Apache-2.0 */
#include "report.h"

#include <stdio.h>
#include <unistd.h>

const char *const class_names[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                     "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

void
report_progress(int epoch, size_t done, size_t total, double images_per_s, double loss)
{
    const int width = 30;
    int filled = total ? (int)((double)done / (double)total * width) : width;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    /* Redraw in place on a terminal; one line per update otherwise would
     * flood logs, so only the final state is printed there. */
    if (isatty(STDOUT_FILENO)) {
        printf("\repoch %d [%s] %5.1f%%  %7.0f img/s  loss %.4f", epoch, bar, 100.0 * (double)done / (double)total,
               images_per_s, loss);
        fflush(stdout);
    } else if (done == total) {
        printf("epoch %d [%s] 100.0%%  %7.0f img/s  loss %.4f", epoch, bar, images_per_s, loss);
    }
}

void
report_confusion(const unsigned counts[10][10])
{
    printf("\nconfusion matrix (rows: true class, columns: predicted)\n%12s", "");
    for (int p = 0; p < 10; p++)
        printf(" %5d", p);
    printf("\n");
    for (int t = 0; t < 10; t++) {
        printf("%d %-10s", t, class_names[t]);
        for (int p = 0; p < 10; p++)
            printf(" %5u", counts[t][p]);
        printf("\n");
    }
}

void
report_image(const uint8_t *pixels)
{
    static const char shades[] = " .:-=+*#%@";
    for (int r = 0; r < 28; r += 2) {
        printf("    ");
        for (int c = 0; c < 28; c++) {
            int v = (pixels[r * 28 + c] + pixels[(r + 1) * 28 + c]) / 2;
            putchar(shades[v * 9 / 255]);
        }
        putchar('\n');
    }
}
