/* SPDX-License-Identifier: Apache-2.0
 * Fashion-MNIST with the cuDNN API: train a small CNN (or a small residual
 * network), evaluate it, save and reload its weights, classify single
 * images.  Written only against cudnn.h and the CUDA runtime, so the same
 * source builds against NVIDIA's libraries.  Built with MPI, the same program
 * started by mpirun trains data-parallel (dist.h, docs/distributed.md).
 *
 *   fashion_mnist [--net cnn|resnet] [--epochs N] [--batch N] [--chunk N]
 *                 [--allreduce] [--no-overlap] [--timeout S] [--lr X] [--seed N]
 *                 [--threads N] [--data DIR] [--train-limit N]
 *                 [--test-limit N] [--save FILE] [--quiet] [--hash]
 *   fashion_mnist --infer FILE [--image INDEX] [--data DIR]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>
#include <cudnn.h>

#include "dist.h"
#include "idx.h"
#include "model.h"
#include "report.h"

#define DEFAULT_DATA "/usr/share/datasets/fashion-mnist"

typedef struct options {
    int epochs, batch, chunk, threads, quiet, hash, image, allreduce, no_overlap;
    float lr, momentum, weight_decay;
    double timeout;
    unsigned long long seed;
    size_t train_limit, test_limit;
    const char *data, *save, *infer, *save_init, *net;
} options_t;

static void
usage(void)
{
    fprintf(stderr,
            "usage: fashion_mnist [--net cnn|resnet] [--epochs N] [--batch N] [--chunk N] [--allreduce]\n"
            "                     [--no-overlap] [--timeout S] [--lr X] [--momentum X] [--seed N] [--threads N]\n"
            "                     [--data DIR] [--train-limit N] [--test-limit N] [--save FILE] [--save-init FILE]\n"
            "                     [--quiet] [--hash]\n"
            "       fashion_mnist --infer FILE [--image INDEX] [--data DIR]\n");
}

static int
parse(int argc, char **argv, options_t *o)
{
    *o = (options_t){.epochs = 2, .batch = 64, .threads = 0, .image = -1, .lr = 0.05f, .momentum = 0.9f,
                     .weight_decay = 0.0f, .seed = 42, .data = DEFAULT_DATA, .save = "fashion_mnist.weights", .net = "cnn",
                     .timeout = 120};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(name) (strcmp(a, name) == 0 && v != NULL && (i++, 1))
        if (TAKE("--epochs")) o->epochs = atoi(v);
        else if (TAKE("--batch")) o->batch = atoi(v);
        else if (TAKE("--chunk")) o->chunk = atoi(v);
        else if (TAKE("--net")) o->net = v;
        else if (TAKE("--timeout")) o->timeout = strtod(v, NULL);
        else if (strcmp(a, "--allreduce") == 0) o->allreduce = 1;
        else if (strcmp(a, "--no-overlap") == 0) o->no_overlap = 1;
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
    if (o->epochs < 0 || o->batch < 1 || o->batch > 4096 || o->chunk < 0 || o->timeout < 0 ||
        (strcmp(o->net, "cnn") != 0 && strcmp(o->net, "resnet") != 0)) {
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

/* CPU seconds of this process (all its threads): a measure of the work
 * that a busy, shared machine disturbs less than the wall clock. */
static double
cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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
 * remembers up to `max_wrong` misclassified indices (of this rank's share).
 * The test batches are shared among the ranks in contiguous runs, so every
 * image is classified in the same batch, at the same position, as in a
 * single process; the counts are summed exactly (integers). */
static double
evaluate(dist_t *d, model_t *net, const dataset_t *test, size_t count, unsigned confusion[10][10], size_t *wrong,
         uint8_t *wrong_pred, int max_wrong, int *nwrong)
{
    int batch = net->batch;
    uint8_t *images = malloc((size_t)batch * 784), *labels = malloc((size_t)batch), *pred = malloc((size_t)batch);
    uint64_t counts[1 + 100] = {0}; /* correct, confusion */
    *nwrong = 0;
    size_t nb = (count + (size_t)batch - 1) / (size_t)batch;
    size_t b0 = nb * (size_t)d->rank / (size_t)d->size, b1 = nb * (size_t)(d->rank + 1) / (size_t)d->size;
    int failed = 0;
    for (size_t b = b0; b < b1; b++) {
        size_t first = b * (size_t)batch;
        gather(test, NULL, first, count, batch, images, labels);
        if (model_predict(net, images, pred, NULL) != 0) {
            failed = 1;
            break;
        }
        for (int i = 0; i < batch && first + (size_t)i < count; i++) {
            counts[1 + labels[i] * 10 + pred[i]]++;
            if (pred[i] == labels[i]) {
                counts[0]++;
            } else if (*nwrong < max_wrong) {
                wrong[*nwrong] = first + (size_t)i;
                wrong_pred[*nwrong] = pred[i];
                (*nwrong)++;
            }
        }
    }
    dist_sum_u64(d, counts, 101);
    for (int t = 0; t < 10; t++)
        for (int p = 0; p < 10; p++)
            confusion[t][p] = (unsigned)counts[1 + t * 10 + p];
    free(images);
    free(labels);
    free(pred);
    return failed ? 0.0 : (double)counts[0] / (double)count;
}

static model_t *
create_model(cudnnHandle_t handle, const char *kind, int batch, uint64_t seed)
{
    model_config_t cfg = {.batch = batch, .seed = seed};
    return strcmp(kind, "resnet") == 0 ? resnet_create(handle, &cfg) : cnn_create(handle, &cfg);
}

static int
run_infer(cudnnHandle_t handle, const options_t *o)
{
    dataset_t test;
    if (dataset_load(&test, o->data, "t10k") != 0)
        return 1;
    FILE *f = fopen(o->infer, "rb");
    const char *kind = f != NULL ? model_file_kind(f) : NULL;
    model_t *net = kind != NULL ? create_model(handle, kind, 1, o->seed) : NULL;
    if (net == NULL || model_load(net, f) != 0) {
        fprintf(stderr, "fashion_mnist: cannot load weights from %s%s%s\n", o->infer, f ? "" : ": ",
                f ? "" : strerror(errno));
        if (f)
            fclose(f);
        model_destroy(net);
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
        if (model_predict(net, test.pixels + i * 784, &pred, logp) != 0)
            return 1;
        report_image(test.pixels + i * 784);
        float p = 0;
        for (int c = 0; c < NET_CLASSES; c++)
            if (c == pred)
                p = logp[c];
        printf("test image %zu: predicted %s (p=%.3f), true %s%s\n\n", i, class_names[pred], exp((double)p),
               class_names[test.labels[i]], pred == test.labels[i] ? "" : "  <- wrong");
    }
    model_destroy(net);
    dataset_free(&test);
    return 0;
}

/* FNV-1a over a data set's bytes: ranks must train on the same files. */
static uint64_t
dataset_checksum(const dataset_t *ds, uint64_t h)
{
    size_t n = ds->count * 784;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ds->pixels[i]) * 0x100000001B3ull;
    for (size_t i = 0; i < ds->count; i++)
        h = (h ^ ds->labels[i]) * 0x100000001B3ull;
    return h;
}

/* A test hook (FASHION_MNIST_DIE_AT=RANK:STEP[:stop]): that rank kills
 * itself at the start of that step, as a crashed process vanishes, or stops
 * (SIGSTOP), as a hung one no longer answers. */
static long
die_step(const dist_t *d, int *sig)
{
    const char *v = getenv("FASHION_MNIST_DIE_AT");
    int r, n = 0;
    long step;
    if (v == NULL || sscanf(v, "%d:%ld%n", &r, &step, &n) != 2 || r != d->rank)
        return -1;
    *sig = strcmp(v + n, ":stop") == 0 ? SIGSTOP : SIGKILL;
    return step;
}

/* Checks the global batch, chunk and process count; sets the model's batch
 * and the number of chunks.  Every rank decides the same, rank 0 says why. */
static int
plan(const dist_t *d, const options_t *o, int *model_batch, int *chunks)
{
    char why[256] = "";
    int share = o->batch / d->size, chunk = o->chunk;
    /* Default: started by hand, today's program (one chunk per batch);
     * under mpirun, 16 images whatever the process count, so that runs
     * with any -np give the same weights. */
    if (chunk == 0)
        chunk = o->allreduce || !d->mpi ? share : 16;
    if (o->batch % d->size != 0)
        snprintf(why, sizeof(why), "the global batch %d is not divisible by the %d processes", o->batch, d->size);
    else if (o->allreduce && chunk != share)
        snprintf(why, sizeof(why), "--chunk does not apply to --allreduce (each process's %d images are one chunk)",
                 share);
    else if (share % chunk != 0)
        snprintf(why, sizeof(why),
                 "each process gets %d images of the global batch %d, not a whole number of %d-image chunks "
                 "(--chunk must divide batch / processes)",
                 share, o->batch, chunk);
    if (why[0] != '\0') {
        if (d->rank == 0)
            fprintf(stderr, "fashion_mnist: %s\n", why);
        return -1;
    }
    *model_batch = chunk;
    *chunks = o->batch / chunk;
    return 0;
}

static int
run_train(cudnnHandle_t handle, dist_t *d, const options_t *o)
{
    int root = d->rank == 0, quiet = o->quiet || !root;
    int model_batch, chunks;
    if (plan(d, o, &model_batch, &chunks) != 0)
        return -2;
    dataset_t train, test;
    if (dataset_load(&train, o->data, "train") != 0)
        return 1;
    if (dataset_load(&test, o->data, "t10k") != 0) {
        dataset_free(&train);
        return 1;
    }
    if (dist_check_same(d, dataset_checksum(&test, dataset_checksum(&train, 0xCBF29CE484222325ull)),
                        "different data files (checksum of the training and test sets)") != 0) {
        dataset_free(&train);
        dataset_free(&test);
        return -1;
    }
    size_t ntrain = o->train_limit && o->train_limit < train.count ? o->train_limit : train.count;
    size_t ntest = o->test_limit && o->test_limit < test.count ? o->test_limit : test.count;
    model_t *net = create_model(handle, o->net, model_batch, o->seed);
    if (net == NULL)
        return 1;
    exchange_t *ex = exchange_create(d, net, chunks, o->allreduce ? EXCHANGE_ALLREDUCE : EXCHANGE_ORDERED,
                                     !o->no_overlap, o->timeout);
    if (ex == NULL) {
        fprintf(stderr, "fashion_mnist: out of memory for the gradient exchange\n");
        model_destroy(net);
        return 1;
    }
    /* The ranks must also compute alike: FreeDNN's results depend on the
     * instruction set it picks (AVX-512, AVX2, scalar), so hosts of
     * different CPUs would each be reproducible but not equal.  A forward
     * pass of the initial network on the first test images, hashed, shows
     * it before any training. */
    if (d->size > 1) {
        uint8_t *probe = malloc((size_t)model_batch * 785), *pred = probe + (size_t)model_batch * 784;
        float *logp = malloc((size_t)model_batch * NET_CLASSES * sizeof(float));
        uint64_t h = 0xCBF29CE484222325ull;
        for (int i = 0; i < model_batch; i++)
            memcpy(probe + (size_t)i * 784, test.pixels + (size_t)(i % (int)test.count) * 784, 784);
        if (model_predict(net, probe, pred, logp) == 0)
            for (size_t i = 0; i < (size_t)model_batch * NET_CLASSES * sizeof(float); i++)
                h = (h ^ ((const uint8_t *)logp)[i]) * 0x100000001B3ull;
        free(probe);
        free(logp);
        if (dist_check_same(d, h,
                            "different arithmetic (a forward pass of the initial network gives other "
                            "bits): set FREEDNN_MAX_ISA to an instruction set every host has") != 0) {
            exchange_destroy(ex);
            model_destroy(net);
            return -1;
        }
    }
    /* The initial weights, for train_torch.py --init: PyTorch then starts
     * from the same point and replays the same shuffles. */
    if (o->save_init != NULL && root) {
        FILE *f = fopen(o->save_init, "wb");
        if (f == NULL || model_save(net, f) != 0) {
            fprintf(stderr, "fashion_mnist: cannot write %s\n", o->save_init);
            if (f)
                fclose(f);
            dist_abort(d, 1);
        }
        fclose(f);
    }
    int local = exchange_local_chunks(ex), first_chunk = exchange_first_chunk(ex);
    size_t *order = malloc(ntrain * sizeof(size_t));
    uint8_t *images = malloc((size_t)model_batch * 784), *labels = malloc((size_t)model_batch);
    double *losses = malloc((size_t)local * sizeof(double));
    size_t wrong[8];
    uint8_t wrong_pred[8];
    int nwrong = 0;
    unsigned confusion[10][10] = {{0}}; /* (printed as zeros after --epochs 0) */
    uint64_t shuffle_state = o->seed * 2654435761ull + 1;
    size_t batches = ntrain / (size_t)o->batch; /* the last partial batch is dropped */
    if (batches == 0) {
        if (root)
            fprintf(stderr, "fashion_mnist: fewer training images (%zu) than one batch (%d)\n", ntrain, o->batch);
        return -1;
    }
    int die_signal = 0;
    long die_at = die_step(d, &die_signal), step = 0;
    if (root) {
        printf("training %s on %zu images, testing on %zu, batch %d, lr %g, momentum %g, seed %llu\n", o->net, ntrain,
               ntest, o->batch, (double)o->lr, (double)o->momentum, o->seed);
        if (d->size > 1 || chunks > 1) {
            size_t floats = 0;
            for (int i = 0; i < net->nparams; i++)
                floats += net->params[i]->count;
            printf("data-parallel: %d process%s, %d chunks of %d images per batch, %s sum%s, gradient %.2f MB\n",
                   d->size, d->size > 1 ? "es" : "", chunks, model_batch,
                   o->allreduce ? "MPI_Allreduce (fast, order not fixed)" : "fixed-order (reproducible)",
                   o->no_overlap ? ", no overlap" : "", 4e-6 * (double)floats);
        }
    }
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
        exchange_times_t t0 = exchange_times(ex);
        double start = now_seconds(), cpu_start = cpu_seconds(), loss_sum = 0;
        for (size_t b = 0; b < batches; b++, step++) {
            if (step == die_at) {
                fprintf(stderr, "fashion_mnist: rank %d: %s at step %ld (FASHION_MNIST_DIE_AT)\n", d->rank,
                        die_signal == SIGKILL ? "dying" : "stopping", step);
                fflush(stderr);
                raise(die_signal);
            }
            for (int j = 0; j < local && status == 0; j++) {
                size_t first = b * (size_t)o->batch + (size_t)(first_chunk + j) * (size_t)model_batch;
                gather(&train, order, first, ntrain, model_batch, images, labels);
                exchange_begin_chunk(ex, j);
                if (model_train_chunk(net, images, labels, o->batch, &losses[j]) != 0)
                    status = 1;
            }
            double loss;
            if (status != 0 || exchange_finish(ex, losses, &loss) != 0 ||
                model_sgd(net, o->lr, o->momentum, o->weight_decay) != 0) {
                status = 1;
                break;
            }
            loss_sum += loss / o->batch;
            if (!quiet && (b % 10 == 9 || b + 1 == batches)) {
                double el = now_seconds() - start;
                report_progress(epoch, b + 1, batches, (double)((b + 1) * (size_t)o->batch) / el,
                                loss_sum / (double)(b + 1));
            }
        }
        if (status != 0)
            break;
        double train_time = now_seconds() - start;
        double cpu = dist_sum_f64(d, cpu_seconds() - cpu_start);
        exchange_times_t t1 = exchange_times(ex);
        double acc = evaluate(d, net, &test, ntest, confusion, wrong, wrong_pred, 8, &nwrong);
        if (root) {
            printf("%sepoch %d: train loss %.4f, test accuracy %.2f%%, %.1f s training (%.0f img/s)\n",
                   quiet ? "" : "\n", epoch, loss_sum / (double)batches, 100.0 * acc, train_time,
                   (double)(batches * (size_t)o->batch) / train_time);
            if (d->size > 1 || chunks > 1) {
                double per = 1e3 / (double)batches;
                printf("  rank 0 per step: %.1f ms, of which MPI wait %.1f ms (%.0f%%), MPI starts %.1f ms, "
                       "summing %.1f ms",
                       1e3 * train_time / (double)batches, (t1.wait - t0.wait) * per,
                       100.0 * (t1.wait - t0.wait) / train_time, (t1.start - t0.start) * per,
                       (t1.fold - t0.fold) * per);
                if (o->no_overlap && d->size > 1)
                    printf(", waiting for the slowest rank %.1f ms", (t1.skew - t0.skew) * per);
                printf("\n");
                printf("  CPU time of all ranks: %.1f s (%.0f images per CPU-second)\n", cpu,
                       (double)(batches * (size_t)o->batch) / cpu);
            }
            fflush(stdout);
        }
    }
    if (status == 0 && root) {
        report_confusion(confusion);
        if (!quiet) {
            printf("\nsome misclassified test images:\n");
            for (int i = 0; i < nwrong && i < 3; i++) {
                report_image(test.pixels + wrong[i] * 784);
                printf("test image %zu: predicted %s, true %s\n\n", wrong[i], class_names[wrong_pred[i]],
                       class_names[test.labels[wrong[i]]]);
            }
        }
        FILE *f = fopen(o->save, "wb");
        if (f == NULL || model_save(net, f) != 0) {
            fprintf(stderr, "fashion_mnist: cannot write %s\n", o->save);
            status = 1;
        } else {
            printf("weights saved to %s (classify with: fashion_mnist --infer %s --image 0)\n", o->save, o->save);
        }
        if (f)
            fclose(f);
        if (o->hash)
            printf("parameter hash: %016llx\n", (unsigned long long)model_hash(net));
    }
    free(order);
    free(images);
    free(labels);
    free(losses);
    exchange_destroy(ex);
    model_destroy(net);
    dataset_free(&train);
    dataset_free(&test);
    return status;
}

int
main(int argc, char **argv)
{
    dist_t d;
    dist_init(&d, &argc, &argv);
    options_t o;
    if (parse(argc, argv, &o) != 0) {
        dist_finalize(&d);
        return 2;
    }
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
        dist_abort(&d, 1);
    }
    if (d.rank == 0)
        printf("cuDNN %zu (runtime %zu)\n", cudnnGetVersion(), cudnnGetCudartVersion());
    int rc;
    if (o.infer != NULL) {
        rc = d.rank == 0 ? run_infer(handle, &o) : 0;
    } else {
        rc = run_train(handle, &d, &o);
    }
    cudnnDestroy(handle);
    /* A negative code: every rank found the same problem and says so; any
     * other failure may be this rank's alone and must not leave the others
     * waiting in a collective. */
    if (rc > 0 && d.size > 1)
        dist_abort(&d, rc);
    if (rc < 0)
        rc = -rc;
    dist_finalize(&d);
    return rc;
}
