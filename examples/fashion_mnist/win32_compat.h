/* SPDX-License-Identifier: Apache-2.0
 * The POSIX names the demo uses that Windows' C runtime lacks, for the
 * mingw-w64 build (force-included by CMakeLists.txt on Windows only):
 * setenv over _putenv_s, and the signals of the FASHION_MNIST_DIE_AT test
 * hook (a distributed-run test that runs on Linux only): both end the
 * process there. */
#ifndef FASHION_MNIST_WIN32_COMPAT_H
#define FASHION_MNIST_WIN32_COMPAT_H

#include <signal.h>
#include <stdlib.h>

#ifndef SIGKILL
#define SIGKILL SIGTERM
#endif
#ifndef SIGSTOP
#define SIGSTOP SIGABRT
#endif

static inline int
fashion_mnist_setenv(const char *name, const char *value, int overwrite)
{
    if (!overwrite && getenv(name) != NULL)
        return 0;
    return _putenv_s(name, value) == 0 ? 0 : -1;
}
#define setenv fashion_mnist_setenv

#endif
