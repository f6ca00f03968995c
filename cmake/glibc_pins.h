/* SPDX-License-Identifier: Apache-2.0
 * Old glibc symbol versions for the shipped libraries (docs/install.md).
 *
 * A library linked on a new glibc records, for each C library function it
 * calls, the newest version node of that function (exp@GLIBC_2.29,
 * pthread_create@GLIBC_2.34), and then refuses to load on an older glibc
 * ("version `GLIBC_2.34' not found").  glibc keeps the older versions of
 * each such function, so a `.symver` directive in every object that calls
 * it binds the call to the old one instead.  CMake force-includes this
 * header (-include) in the objects of libcudnn.so.8, libcudart.so.12,
 * libcublas.so.12 and bin/cudnn-doctor (which also needs
 * cmake/glibc_exe_compat.c);
 * tests/doctor/check_portable.py checks the result with objdump -T (highest
 * GLIBC_ version <= 2.28, NVIDIA's baseline is 2.17).
 *
 * Which functions: those whose current version is newer than 2.28 (exp,
 * log, pow, exp2, log2: 2.29, new implementations behind the same old
 * entry points, which call them, so the results are the same bits;
 * pthread_*: 2.34, when libpthread moved into libc).  expf, logf and powf
 * (2.27) are left alone: within the baseline, and their 2.2.5 versions add
 * an error-handling wrapper on a hot path.  Which versions: the ones x86-64
 * glibc has had since its first release (GLIBC_2.2.5), except
 * pthread_condattr_setclock (GLIBC_2.3.3).  The
 * pthread functions lived in libpthread.so.0 before glibc 2.34, so the
 * libraries also link libpthread (and keep it in DT_NEEDED) to find them
 * there on older systems.  Only x86-64 glibc is pinned; elsewhere this
 * header does nothing.  A new call to a libc function whose current
 * version is newer than 2.28 makes the test fail: add its pin here. */
#if defined(__x86_64__) && defined(__linux__) && !defined(__ASSEMBLER__)
#define FDNN_PIN(sym, ver) __asm__(".symver " #sym "," #sym "@" #ver)
FDNN_PIN(exp, GLIBC_2.2.5);
FDNN_PIN(log, GLIBC_2.2.5);
FDNN_PIN(pow, GLIBC_2.2.5);
FDNN_PIN(log2, GLIBC_2.2.5);
FDNN_PIN(exp2, GLIBC_2.2.5);
FDNN_PIN(pthread_create, GLIBC_2.2.5);
FDNN_PIN(pthread_join, GLIBC_2.2.5);
FDNN_PIN(pthread_once, GLIBC_2.2.5);
FDNN_PIN(pthread_detach, GLIBC_2.2.5);
FDNN_PIN(pthread_key_create, GLIBC_2.2.5);
FDNN_PIN(pthread_getspecific, GLIBC_2.2.5);
FDNN_PIN(pthread_setspecific, GLIBC_2.2.5);
FDNN_PIN(pthread_condattr_setclock, GLIBC_2.3.3);
/* The dl* functions moved from libdl.so.2 into libc in 2.34 as well; a
 * target that calls them links libdl.so.2 (bin/cudnn-doctor does). */
FDNN_PIN(dlopen, GLIBC_2.2.5);
FDNN_PIN(dlsym, GLIBC_2.2.5);
FDNN_PIN(dlerror, GLIBC_2.2.5);
FDNN_PIN(dladdr, GLIBC_2.2.5);
FDNN_PIN(dlclose, GLIBC_2.2.5);
#undef FDNN_PIN
#endif
