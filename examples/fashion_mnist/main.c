/* SPDX-License-Identifier: Apache-2.0
 * Fashion-MNIST with the cuDNN API: train a small CNN, evaluate it, save and
 * reload its weights, classify single images.  Written only against cudnn.h
 * and the CUDA runtime, so the same source builds against NVIDIA's libraries.
 *
 *   fashion_mnist [--epochs N] [--batch N] [--lr X] [--seed N] [--threads N]
 *                 [--data DIR] [--train-limit N] [--test-limit N]
 *                 [--save FILE] [--quiet] [--hash]
 *   fashion_mnist --infer FILE [--image INDEX] [--data DIR]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>
#include <cudnn.h>

#include "idx.h"
#include "net.h"
#include "report.h"

#define DEFAULT_DATA "/usr/share/datasets/fashion-mnist"

typedef struct options {
    int epochs, batch, threads, quiet, hash, image;
    float lr, momentum, weight_decay;
    unsigned long long seed;
    size_t train_limit, test_limit;
    const char *data, *save, *infer, *save_init;
} options_t;

static void
usage(void)
{
    fprintf(stderr,
            "usage: fashion_mnist [--epochs N] [--batch N] [--lr X] [--momentum X] [--seed N] [--threads N]\n"
            "                     [--data DIR] [--train-limit N] [--test-limit N] [--save FILE] [--save-init FILE]\n"
            "                     [--quiet] [--hash]\n"
            "       fashion_mnist --infer FILE [--image INDEX] [--data DIR]\n");
}

static int
parse(int argc, char **argv, options_t *o)
{
    *o = (options_t){.epochs = 2, .batch = 64, .threads = 0, .image = -1, .lr = 0.05f, .momentum = 0.9f,
                     .weight_decay = 0.0f, .seed = 42, .data = DEFAULT_DATA, .save = "fashion_mnist.weights"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(name) (strcmp(a, name) == 0 && v != NULL && (i++, 1))
        if (TAKE("--epochs")) o->epochs = atoi(v);
        else if (TAKE("--batch")) o->batch = atoi(v);
        else if (TAKE("--lr")) o->lr = strtof(v, NULL);
        else if (TAKE("--momentum")) o->momentum = strtof(v, NULL);
        else if (TAKE("--seed")) o->seed = strtoull(v, NULL, 10);
        else if (TAKE("--threads")) o->threads = atoi(v);
        else if (TAKE("--data")) o->data = v;
        else if (TAKE("--train-limit")) o->train_limit = strtoull(v, NULL, 10);
        else if (TAKE("--test-limit")) o->test_limit = strtoull(v, NULL, 10);
        else if (TAKE("--save")) o->save = v;
        else if (TAKE("--infer")) o->infer = v;
        else if (TAKE("--save-init")) o->save_init = v;
        else if (TAKE("--image")) o->image = atoi(v);
        else if (strcmp(a, "--quiet") == 0) o->quiet = 1;
        else if (strcmp(a, "--hash") == 0) o->hash = 1;
        else {
            usage();
            return -1;
        }
#undef TAKE
    }
    if (o->epochs < 0 || o->batch < 1 || o->batch > 4096) {
        usage();
        return -1;
    }
    return 0;
}

static double
now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t
shuffle_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Gathers `batch` images (indices order[first..]) into contiguous buffers;
 * indices past the end repeat the last image (their predictions are
 * ignored). */
static void
gather(const dataset_t *ds, const size_t *order, size_t first, size_t count, int batch, uint8_t *images,
       uint8_t *labels)
{
    for (int i = 0; i < batch; i++) {
        size_t k = first + (size_t)i < count ? first + (size_t)i : count - 1;
        size_t idx = order != NULL ? order[k] : k;
        memcpy(images + (size_t)i * 784, ds->pixels + idx * 784, 784);
        labels[i] = ds->labels[idx];
    }
}

/* Accuracy on the first `count` test images; fills the confusion matrix and
 * remembers up to `max_wrong` misclassified indices. */
static double
evaluate(net_t *net, const dataset_t *test, size_t count, int batch, unsigned confusion[10][10], size_t *wrong,
         uint8_t *wrong_pred, int max_wrong, int *nwrong)
{
    uint8_t *images = malloc((size_t)batch * 784), *labels = malloc((size_t)batch), *pred = malloc((size_t)batch);
    size_t correct = 0;
    memset(confusion, 0, sizeof(unsigned[10][10]));
    *nwrong = 0;
    for (size_t first = 0; first < count; first += (size_t)batch) {
        gather(test, NULL, first, count, batch, images, labels);
        if (net_predict(net, images, pred, NULL) != 0) {
            correct = 0;
            break;
        }
        for (int i = 0; i < batch && first + (size_t)i < count; i++) {
            confusion[labels[i]][pred[i]]++;
            if (pred[i] == labels[i]) {
                correct++;
            } else if (*nwrong < max_wrong) {
                wrong[*nwrong] = first + (size_t)i;
                wrong_pred[*nwrong] = pred[i];
                (*nwrong)++;
            }
        }
    }
    free(images);
    free(labels);
    free(pred);
    return (double)correct / (double)count;
}

static int
run_infer(cudnnHandle_t handle, const options_t *o)
{
    dataset_t test;
    if (dataset_load(&test, o->data, "t10k") != 0)
        return 1;
    net_config_t cfg = {.batch = 1, .seed = o->seed};
    net_t *net = net_create(handle, &cfg);
    FILE *f = fopen(o->infer, "rb");
    if (net == NULL || f == NULL || net_load(net, f) != 0) {
        fprintf(stderr, "fashion_mnist: cannot load weights from %s%s%s\n", o->infer, f ? "" : ": ",
                f ? "" : strerror(errno));
        if (f)
            fclose(f);
        net_destroy(net);
        dataset_free(&test);
        return 1;
    }
    fclose(f);
    size_t first = o->image >= 0 ? (size_t)o->image : 0, last = o->image >= 0 ? first + 1 : 10;
    if (first >= test.count) {
        fprintf(stderr, "fashion_mnist: --image %d is outside the %zu test images\n", o->image, test.count);
        return 1;
    }
    for (size_t i = first; i < last && i < test.count; i++) {
        uint8_t pred;
        float logp[NET_CLASSES];
        if (net_predict(net, test.pixels + i * 784, &pred, logp) != 0)
            return 1;
        report_image(test.pixels + i * 784);
        float p = 0;
        for (int c = 0; c < NET_CLASSES; c++)
            if (c == pred)
                p = logp[c];
        printf("test image %zu: predicted %s (p=%.3f), true %s%s\n\n", i, class_names[pred], exp((double)p),
               class_names[test.labels[i]], pred == test.labels[i] ? "" : "  <- wrong");
    }
    net_destroy(net);
    dataset_free(&test);
    return 0;
}

static int
run_train(cudnnHandle_t handle, const options_t *o)
{
    dataset_t train, test;
    if (dataset_load(&train, o->data, "train") != 0)
        return 1;
    if (dataset_load(&test, o->data, "t10k") != 0) {
        dataset_free(&train);
        return 1;
    }
    size_t ntrain = o->train_limit && o->train_limit < train.count ? o->train_limit : train.count;
    size_t ntest = o->test_limit && o->test_limit < test.count ? o->test_limit : test.count;
    net_config_t cfg = {.batch = o->batch, .learning_rate = o->lr, .momentum = o->momentum,
                        .weight_decay = o->weight_decay, .seed = o->seed};
    net_t *net = net_create(handle, &cfg);
    if (net == NULL)
        return 1;
    /* The initial weights, for train_torch.py --init: PyTorch then starts
     * from the same point and replays the same shuffles. */
    if (o->save_init != NULL) {
        FILE *f = fopen(o->save_init, "wb");
        if (f == NULL || net_save(net, f) != 0) {
            fprintf(stderr, "fashion_mnist: cannot write %s\n", o->save_init);
            if (f)
                fclose(f);
            net_destroy(net);
            return 1;
        }
        fclose(f);
    }
    size_t *order = malloc(ntrain * sizeof(size_t));
    uint8_t *images = malloc((size_t)o->batch * 784), *labels = malloc((size_t)o->batch);
    size_t wrong[8];
    uint8_t wrong_pred[8];
    int nwrong = 0;
    unsigned confusion[10][10];
    uint64_t shuffle_state = o->seed * 2654435761ull + 1;
    size_t batches = ntrain / (size_t)o->batch; /* the last partial batch is dropped */
    if (batches == 0) {
        fprintf(stderr, "fashion_mnist: fewer training images (%zu) than one batch (%d)\n", ntrain, o->batch);
        return 1;
    }
    printf("training on %zu images, testing on %zu, batch %d, lr %g, momentum %g, seed %llu\n", ntrain, ntest,
           o->batch, (double)o->lr, (double)o->momentum, o->seed);
    int status = 0;
    for (int epoch = 1; epoch <= o->epochs && status == 0; epoch++) {
        for (size_t i = 0; i < ntrain; i++)
            order[i] = i;
        for (size_t i = ntrain - 1; i > 0; i--) {
            size_t j = (size_t)(shuffle_next(&shuffle_state) % (i + 1));
            size_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        double start = now_seconds(), loss_sum = 0;
        for (size_t b = 0; b < batches; b++) {
            gather(&train, order, b * (size_t)o->batch, ntrain, o->batch, images, labels);
            double loss = net_train_step(net, images, labels);
            if (loss < 0) {
                status = 1;
                break;
            }
            loss_sum += loss;
            if (!o->quiet && (b % 10 == 9 || b + 1 == batches)) {
                double el = now_seconds() - start;
                report_progress(epoch, b + 1, batches, (double)((b + 1) * (size_t)o->batch) / el,
                                loss_sum / (double)(b + 1));
            }
        }
        if (status != 0)
            break;
        double train_time = now_seconds() - start;
        double acc = evaluate(net, &test, ntest, o->batch, confusion, wrong, wrong_pred, 8, &nwrong);
        printf("%sepoch %d: train loss %.4f, test accuracy %.2f%%, %.1f s training (%.0f img/s)\n",
               o->quiet ? "" : "\n", epoch, loss_sum / (double)batches, 100.0 * acc, train_time,
               (double)(batches * (size_t)o->batch) / train_time);
        fflush(stdout);
    }
    if (status == 0) {
        report_confusion(confusion);
        if (!o->quiet) {
            printf("\nsome misclassified test images:\n");
            for (int i = 0; i < nwrong && i < 3; i++) {
                report_image(test.pixels + wrong[i] * 784);
                printf("test image %zu: predicted %s, true %s\n\n", wrong[i], class_names[wrong_pred[i]],
                       class_names[test.labels[wrong[i]]]);
            }
        }
        FILE *f = fopen(o->save, "wb");
        if (f == NULL || net_save(net, f) != 0) {
            fprintf(stderr, "fashion_mnist: cannot write %s\n", o->save);
            status = 1;
        } else {
            printf("weights saved to %s (classify with: fashion_mnist --infer %s --image 0)\n", o->save, o->save);
        }
        if (f)
            fclose(f);
        if (o->hash)
            printf("parameter hash: %016llx\n", (unsigned long long)net_param_hash(net));
    }
    free(order);
    free(images);
    free(labels);
    net_destroy(net);
    dataset_free(&train);
    dataset_free(&test);
    return status;
}

int
main(int argc, char **argv)
{
    options_t o;
    if (parse(argc, argv, &o) != 0)
        return 2;
    /* FreeDNN reads its thread count when a handle is created. */
    if (o.threads > 0) {
        char buf[16];
        snprintf(buf, sizeof(buf), "%d", o.threads);
        setenv("FREEDNN_NUM_THREADS", buf, 1);
    }
    cudnnHandle_t handle;
    cudnnStatus_t s = cudnnCreate(&handle);
    if (s != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "fashion_mnist: cudnnCreate failed: %s\n", cudnnGetErrorString(s));
        return 1;
    }
    printf("cuDNN %zu (runtime %zu)\n", cudnnGetVersion(), cudnnGetCudartVersion());
    int rc = o.infer != NULL ? run_infer(handle, &o) : run_train(handle, &o);
    cudnnDestroy(handle);
    return rc;
}
