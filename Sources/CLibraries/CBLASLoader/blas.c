// OpenBLAS through dlopen, not linked (issue 43): only a process that embeds text (the semantic
// pass, a question's second stage) loads it. Linked, every fsindex, fsfind-direct and
// fsindex-mcp start would load it, and its pthread build starts a thread per core as it loads.
// Debian's libopenblas0 provides libopenblas.so.0 (the pthread build by default). The CBLAS
// constants are the standard's (cblas.h), so building needs no -dev package.
#include "CBLASLoader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

enum { RowMajor = 101, NoTrans = 111, Trans = 112 };
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*threads_fn)(int);

static sgemm_fn sgemm;
static int loaded;
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

int fsindex_blas_load(char *error, size_t size) {
    pthread_mutex_lock(&loading);
    if (loaded) { pthread_mutex_unlock(&loading); return 1; }
    void *lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(error, size, "cannot load OpenBLAS (libopenblas.so.0): %s; install the libopenblas0 package", dlerror());
        pthread_mutex_unlock(&loading);
        return 0;
    }
    sgemm = (sgemm_fn)dlsym(lib, "cblas_sgemm");
    threads_fn threads = (threads_fn)dlsym(lib, "openblas_set_num_threads");
    if (!sgemm) {
        snprintf(error, size, "libopenblas.so.0 lacks cblas_sgemm");
        pthread_mutex_unlock(&loading);
        return 0;
    }
    // One core: the pass runs beside the user's work at idle priority, and a question's
    // products are too small to gain from threads.
    if (threads) threads(1);
    loaded = 1;
    pthread_mutex_unlock(&loading);
    return 1;
}

void fsindex_sgemm(int transposeA, int transposeB, int m, int n, int k, float alpha,
                   const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc) {
    sgemm(RowMajor, transposeA ? Trans : NoTrans, transposeB ? Trans : NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
