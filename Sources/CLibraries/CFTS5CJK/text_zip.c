// Compressed storage of the full text (issue 14, "Half the index"): the text of each item is a
// zlib stream in `item_texts.text`, and the full-text table reads it back through
// `fsindex_unzip` in its content view (snippets, highlights, the 'delete' of old words).
// See text_zip.h for the stored format.
#include "text_zip.h"
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

unsigned char *fsindex_zip_bytes(const unsigned char *text, size_t n, size_t *outLength) {
    if (!text || n < FSINDEX_ZIP_MINIMUM || n > 0x7ffffff0u) return NULL;
    uLong bound = compressBound((uLong)n);
    unsigned char *out = malloc(4 + (size_t)bound);
    if (!out) return NULL;
    uLongf length = bound;
    int rc = compress2(out + 4, &length, text, (uLong)n, FSINDEX_ZIP_LEVEL);
    if (rc != Z_OK || 4 + length >= (uLongf)n) {   // not worth it: keep the text
        free(out);
        return NULL;
    }
    uint32_t len = (uint32_t)n;
    out[0] = (unsigned char)len; out[1] = (unsigned char)(len >> 8);
    out[2] = (unsigned char)(len >> 16); out[3] = (unsigned char)(len >> 24);
    *outLength = 4 + (size_t)length;
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

static void unzipFunction(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    sqlite3_value *v = argv[0];
    if (sqlite3_value_type(v) != SQLITE_BLOB) { sqlite3_result_value(ctx, v); return; }
    const unsigned char *blob = sqlite3_value_blob(v);
    int n = sqlite3_value_bytes(v);
    if (!blob || n < 4) { sqlite3_result_error(ctx, "fsindex_unzip: not a compressed text", -1); return; }
    uint32_t len = (uint32_t)blob[0] | ((uint32_t)blob[1] << 8) | ((uint32_t)blob[2] << 16) | ((uint32_t)blob[3] << 24);
    if (len > 0x7ffffff0u) { sqlite3_result_error_toobig(ctx); return; }
    unsigned char *out = sqlite3_malloc64((sqlite3_uint64)len + 1);
    if (!out) { sqlite3_result_error_nomem(ctx); return; }
    uLongf outLen = len;
    int rc = uncompress(out, &outLen, blob + 4, (uLong)(n - 4));
    if (rc != Z_OK || outLen != len) {
        sqlite3_free(out);
        sqlite3_result_error(ctx, "fsindex_unzip: not a compressed text", -1);
        return;
    }
    sqlite3_result_text(ctx, (const char *)out, (int)len, sqlite3_free);
}

int fsindex_text_zip_register(sqlite3 *db) {
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function(db, "fsindex_zip", 1, flags, 0, zipFunction, 0, 0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_create_function(db, "fsindex_unzip", 1, flags, 0, unzipFunction, 0, 0);
}
