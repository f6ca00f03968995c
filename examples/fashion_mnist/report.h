/* SPDX-License-Identifier: Apache-2.0
 * What the demo prints: progress bar, confusion matrix, images as text. */
#ifndef FASHION_REPORT_H
#define FASHION_REPORT_H

#include <stddef.h>
#include <stdint.h>

extern const char *const class_names[10];

/* Redraws the progress line: done/total batches, images/s, running loss. */
void report_progress(int epoch, size_t done, size_t total, double images_per_s, double loss);

/* counts[true][pred] */
void report_confusion(const unsigned counts[10][10]);

/* A 28x28 image as 14 lines of 28 characters (two pixel rows per line). */
void report_image(const uint8_t *pixels);

#endif
