// OpenBLAS through dlopen, not linked (issue 43): only a process that embeds text (the semantic
// pass, a question's second stage) loads it. Linked, every fsindex, fsfind-direct and
// fsindex-mcp start would load it, and its pthread build starts a thread per core as it loads.
// Debian's libopenblas0 provides libopenblas.so.0 (the pthread build by default). The CBLAS
// constants are the standard's (cblas.h), so building needs no -dev package.
#include "CBLASLoader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <immintrin.h>

enum { RowMajor = 101, NoTrans = 111, Trans = 112 };
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*threads_fn)(int);

static sgemm_fn sgemm;
static int loaded;
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

// 2: AVX-512, 1: AVX2 with FMA, 0: neither (OpenBLAS for everything). Set as OpenBLAS loads.
static int vectorLevel;

static int detectVectorLevel(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 2;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
}

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
    vectorLevel = detectVectorLevel();
    loaded = 1;
    pthread_mutex_unlock(&loading);
    return 1;
}

// A question's products are short: 10 to 20 rows (its tokens) times the 384 × 384 or 384 ×
// 1536 weights. OpenBLAS copies the whole weight matrix into its packed layout on every call,
// which for so few rows costs more than the arithmetic (perf on fsindexd answering questions:
// sgemm_incopy above the kernel). A layer of 14 rows: 846 µs through OpenBLAS, 633 µs here
// (AVX-512, medians of 300); a question, about 1 ms less. These kernels read A's rows and B's rows (the weights, as
// stored: one output's inputs in a row) in place, four rows of each at once, so each weight is
// loaded once for four rows and multiplied with 16 (or 8) inputs per instruction.
// The one shape they take: C = alpha · A · Bᵀ + beta · C with k a multiple of the vector width.
// Larger products (the semantic pass's 64-token texts) stay with OpenBLAS, whose blocking wins
// there.
enum { SMALL_ROWS = 16 };

#define TILE_KERNEL(NAME, TARGET, VEC, WIDTH, ZERO, LOAD, FMA, SUM)                                    \
__attribute__((target(TARGET)))                                                                        \
static void NAME(int m, int n, int k, float alpha, const float *a, int lda, const float *b, int ldb,  \
                 float beta, float *c, int ldc) {                                                      \
    for (int r = 0; r < m; r += 4) {                                                                   \
        int rows = m - r < 4 ? m - r : 4;                                                              \
        /* Rows past the end repeat the last one; their sums are not stored. */                       \
        const float *x[4];                                                                             \
        for (int i = 0; i < 4; i++) x[i] = a + (size_t)(r + (i < rows ? i : rows - 1)) * lda;          \
        for (int j = 0; j < n; j += 4) {                                                               \
            int cols = n - j < 4 ? n - j : 4;                                                          \
            const float *w[4];                                                                         \
            for (int i = 0; i < 4; i++) w[i] = b + (size_t)(j + (i < cols ? i : cols - 1)) * ldb;      \
            VEC s[4][4];                                                                               \
            for (int p = 0; p < 4; p++) for (int q = 0; q < 4; q++) s[p][q] = ZERO;                    \
            for (int t = 0; t < k; t += WIDTH) {                                                       \
                VEC w0 = LOAD(w[0] + t), w1 = LOAD(w[1] + t), w2 = LOAD(w[2] + t), w3 = LOAD(w[3] + t); \
                for (int p = 0; p < 4; p++) {                                                          \
                    VEC v = LOAD(x[p] + t);                                                            \
                    s[p][0] = FMA(v, w0, s[p][0]); s[p][1] = FMA(v, w1, s[p][1]);                      \
                    s[p][2] = FMA(v, w2, s[p][2]); s[p][3] = FMA(v, w3, s[p][3]);                      \
                }                                                                                      \
            }                                                                                          \
            for (int p = 0; p < rows; p++) for (int q = 0; q < cols; q++) {                            \
                float *out = c + (size_t)(r + p) * ldc + j + q;                                        \
                float sum = alpha * SUM(s[p][q]);                                                      \
                *out = beta == 0 ? sum : sum + beta * *out;                                            \
            }                                                                                          \
        }                                                                                              \
    }                                                                                                  \
}

__attribute__((target("avx2,fma")))
static inline float sum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

TILE_KERNEL(small512, "avx512f,fma", __m512, 16, _mm512_setzero_ps(), _mm512_loadu_ps, _mm512_fmadd_ps, _mm512_reduce_add_ps)
TILE_KERNEL(small256, "avx2,fma", __m256, 8, _mm256_setzero_ps(), _mm256_loadu_ps, _mm256_fmadd_ps, sum8)

void fsindex_sgemm(int transposeA, int transposeB, int m, int n, int k, float alpha,
                   const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc) {
    if (!transposeA && transposeB && m <= SMALL_ROWS) {
        int level = vectorLevel;
        if (level == 2 && k % 16 == 0) { small512(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); return; }
        if (level >= 1 && k % 8 == 0) { small256(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); return; }
    }
    sgemm(RowMajor, transposeA ? Trans : NoTrans, transposeB ? Trans : NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
