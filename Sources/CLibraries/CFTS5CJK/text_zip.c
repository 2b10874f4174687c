// Compressed storage of the full text (issue 14, "Half the index"): the text of each item is a
// compressed stream in `item_texts.text`, and the full-text table reads it back through
// `fsindex_unzip` in its content view (snippets, highlights, the 'delete' of old words).
// See text_zip.h for the stored format. New texts are zstd frames (issue 41); the zlib streams of
// older indexes are read as before.
#include "text_zip.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/// One compression and one decompression context per thread: the crawl's extraction threads pack
/// texts in parallel, and a context costs more to make than a small text does to compress. A
/// context is freed when its thread ends (a thread-specific key's destructor): fsindexd starts
/// threads for each batch and each publish pass, and a level-5 context kept by every one of
/// them would grow the daemon by a megabyte a batch.
static pthread_key_t compressorKey, decompressorKey;
static pthread_once_t keysOnce = PTHREAD_ONCE_INIT;
static _Atomic long liveContexts;

static void freeCompressor(void *c) { ZSTD_freeCCtx(c); liveContexts--; }
static void freeDecompressor(void *d) { ZSTD_freeDCtx(d); liveContexts--; }
static void makeKeys(void) {
    pthread_key_create(&compressorKey, freeCompressor);
    pthread_key_create(&decompressorKey, freeDecompressor);
}

static ZSTD_CCtx *threadCompressor(void) {
    pthread_once(&keysOnce, makeKeys);
    ZSTD_CCtx *c = pthread_getspecific(compressorKey);
    if (c) return c;
    if (!(c = ZSTD_createCCtx())) return NULL;
    if (pthread_setspecific(compressorKey, c) != 0) { ZSTD_freeCCtx(c); return NULL; }
    liveContexts++;
    return c;
}

static ZSTD_DCtx *threadDecompressor(void) {
    pthread_once(&keysOnce, makeKeys);
    ZSTD_DCtx *d = pthread_getspecific(decompressorKey);
    if (d) return d;
    if (!(d = ZSTD_createDCtx())) return NULL;
    if (pthread_setspecific(decompressorKey, d) != 0) { ZSTD_freeDCtx(d); return NULL; }
    liveContexts++;
    return d;
}

long fsindex_zip_live_contexts(void) { return liveContexts; }

unsigned char *fsindex_zip_bytes(const unsigned char *text, size_t n, size_t *outLength) {
    if (!text || n < FSINDEX_ZIP_MINIMUM || n > FSINDEX_TEXT_MAXIMUM) return NULL;
    ZSTD_CCtx *threadContext = threadCompressor();
    if (!threadContext) return NULL;
    size_t bound = ZSTD_compressBound(n);
    unsigned char *out = malloc(4 + bound);
    if (!out) return NULL;
    size_t length = ZSTD_compressCCtx(threadContext, out + 4, bound, text, n, FSINDEX_ZIP_LEVEL);
    if (ZSTD_isError(length) || 4 + length >= n) {   // not worth it: keep the text
        free(out);
        return NULL;
    }
    uint32_t len = (uint32_t)n;
    out[0] = (unsigned char)len; out[1] = (unsigned char)(len >> 8);
    out[2] = (unsigned char)(len >> 16); out[3] = (unsigned char)(len >> 24);
    *outLength = 4 + length;
    return out;
}

static void zipFunction(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    sqlite3_value *v = argv[0];
    if (sqlite3_value_type(v) == SQLITE_BLOB) {   // a BLOB in the column is always a compressed text
        sqlite3_result_error(ctx, "fsindex_zip: a text is expected, not a blob", -1);
        return;
    }
    if (sqlite3_value_type(v) != SQLITE_TEXT) { sqlite3_result_value(ctx, v); return; }
    const unsigned char *text = sqlite3_value_text(v);
    int n = sqlite3_value_bytes(v);
    size_t length = 0;
    unsigned char *out = text ? fsindex_zip_bytes(text, (size_t)n, &length) : NULL;
    if (!out) { sqlite3_result_value(ctx, v); return; }
    sqlite3_result_blob(ctx, out, (int)length, free);
}

/// Inflates `n` bytes of zlib stream into exactly `len` bytes, or returns NULL: the buffer starts
/// at what the input can plausibly give and doubles as output arrives, never past `len`, so a
/// header's claim costs nothing until the stream backs it.
static unsigned char *inflateExactly(const unsigned char *in, size_t n, uint32_t len) {
    z_stream z = {0};
    if (inflateInit(&z) != Z_OK) return NULL;
    size_t capacity = (size_t)n * 8 + 4096;
    if (capacity > (size_t)len + 1) capacity = (size_t)len + 1;
    unsigned char *out = sqlite3_malloc64(capacity);
    if (!out) { inflateEnd(&z); return NULL; }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    size_t produced = 0;
    int rc = Z_OK;
    while (rc == Z_OK) {
        if (produced == capacity) {
            if (capacity >= (size_t)len + 1) break;   // more than the header said: not ours
            size_t larger = capacity * 2;
            if (larger > (size_t)len + 1) larger = (size_t)len + 1;
            unsigned char *grown = sqlite3_realloc64(out, larger);
            if (!grown) { sqlite3_free(out); inflateEnd(&z); return NULL; }
            out = grown;
            capacity = larger;
        }
        z.next_out = out + produced;
        z.avail_out = (uInt)(capacity - produced);
        rc = inflate(&z, Z_NO_FLUSH);
        produced = capacity - z.avail_out;
        if (rc == Z_BUF_ERROR && z.avail_out != 0) break;   // the input ended early
        if (rc == Z_BUF_ERROR) rc = Z_OK;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END || produced != len || z.avail_in != 0) { sqlite3_free(out); return NULL; }
    return out;
}

/// Decompresses the zstd frame of `n` bytes into exactly `len` bytes, or returns NULL, growing
/// the buffer as output arrives (like `inflateExactly`): a frame's claim costs nothing until its
/// data backs it. A frame that needs a dictionary is not one of ours.
static unsigned char *unzstdExactly(const unsigned char *in, size_t n, uint32_t len) {
    if (ZSTD_getDictID_fromFrame(in, n) != 0) return NULL;
    unsigned long long declared = ZSTD_getFrameContentSize(in, n);
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != (unsigned long long)len) return NULL;
    // The thread's context: making one costs more than reading a short text back (the writer
    // reads every new text back for its words, issue 41).
    ZSTD_DCtx *z = threadDecompressor();
    if (!z) return NULL;
    ZSTD_DCtx_reset(z, ZSTD_reset_session_only);
    size_t capacity = (size_t)n * 8 + 4096;
    if (capacity > (size_t)len + 1) capacity = (size_t)len + 1;
    unsigned char *out = sqlite3_malloc64(capacity);
    if (!out) return NULL;
    ZSTD_inBuffer input = { in, n, 0 };
    size_t produced = 0, rc = 1;
    while (rc != 0) {
        if (produced == capacity) {
            if (capacity >= (size_t)len + 1) break;   // more than the header said: not ours
            size_t larger = capacity * 2;
            if (larger > (size_t)len + 1) larger = (size_t)len + 1;
            unsigned char *grown = sqlite3_realloc64(out, larger);
            if (!grown) { rc = 1; break; }
            out = grown;
            capacity = larger;
        }
        ZSTD_outBuffer output = { out, capacity, produced };
        rc = ZSTD_decompressStream(z, &output, &input);
        if (ZSTD_isError(rc)) break;
        produced = output.pos;
        if (rc != 0 && input.pos == input.size && output.pos < output.size) break;   // the input ended early
    }
    if (rc != 0 || produced != len || input.pos != n) { sqlite3_free(out); return NULL; }
    return out;
}

static void unzipFunction(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    sqlite3_value *v = argv[0];
    if (sqlite3_value_type(v) != SQLITE_BLOB) { sqlite3_result_value(ctx, v); return; }
    const unsigned char *blob = sqlite3_value_blob(v);
    int n = sqlite3_value_bytes(v);
    if (!blob || n < 4) { sqlite3_result_error(ctx, "fsindex_unzip: not a compressed text", -1); return; }
    uint32_t len = (uint32_t)blob[0] | ((uint32_t)blob[1] << 8) | ((uint32_t)blob[2] << 16) | ((uint32_t)blob[3] << 24);
    if (len > FSINDEX_TEXT_MAXIMUM || len < FSINDEX_ZIP_MINIMUM) {
        sqlite3_result_error(ctx, "fsindex_unzip: not a compressed text of fsindex (its length is out of bounds)", -1);
        return;
    }
    // A zstd frame starts with its magic number (28 B5 2F FD); a zlib stream (older indexes)
    // with 0x78 or another CMF byte, never 0x28.
    int zstd = n >= 8 && blob[4] == 0x28 && blob[5] == 0xB5 && blob[6] == 0x2F && blob[7] == 0xFD;
    unsigned char *out = zstd ? unzstdExactly(blob + 4, (size_t)(n - 4), len)
                              : inflateExactly(blob + 4, (size_t)(n - 4), len);
    if (!out) { sqlite3_result_error(ctx, "fsindex_unzip: not a compressed text", -1); return; }
    sqlite3_result_text(ctx, (const char *)out, (int)len, sqlite3_free);
}

int fsindex_text_zip_register(sqlite3 *db) {
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function(db, "fsindex_zip", 1, flags, 0, zipFunction, 0, 0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_create_function(db, "fsindex_unzip", 1, flags, 0, unzipFunction, 0, 0);
}
