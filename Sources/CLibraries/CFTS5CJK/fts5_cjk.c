// An FTS5 tokenizer for text in every script: SQLite's unicode61 makes one token of a whole run
// of Han or Kana ("東京都は日本の首都です" is one word), so no word inside it can be found.
// This wraps unicode61 and splits such runs (and Hangul, whose words carry particles) into
// overlapping bigrams, as Lucene's CJK analyzer and Recoll do:
//   document: 東京 京都 都は ... at consecutive positions, each character colocated with the
//             bigram it starts (the last with the last bigram), so one character is found too;
//   query:    bigrams only ("首都" is one token, "東京都" the phrase 東京 京都), or the character
//             alone for a one-character term.
// Other text passes through unchanged, so Latin, Cyrillic, Greek and Arabic keep unicode61's
// behaviour exactly. Offsets always point into the original text, so snippets and highlights
// cover the matched characters.
#include "fts5_cjk.h"
#include <string.h>

typedef struct CjkTokenizer {
    fts5_tokenizer inner;
    Fts5Tokenizer *innerInstance;
} CjkTokenizer;

// Identifiers (issue 24): unicode61 cuts `x86_64` into `x86` and `64`, so a query for the
// x86 page found its x86_64 twin just as well. A run of tokens joined only by underscores in the
// source (`x86_64`, `_mm_subs_epi8`, `snake_case`) is kept whole too:
//   document: the parts at consecutive positions, as before, and the whole (`x86_64`, the folded
//             parts joined by one `_`) colocated with the first part, so a phrase of the parts
//             still matches and the whole is one more term;
//   query:    the whole only: a query string with underscores asks for the identifier itself
//             (SearchPattern writes the parts, space-separated, as the other alternative).
// A run is held back until it ends, since the whole must follow its first part.
#define MAX_PARTS 16
#define MAX_WHOLE 256

typedef struct Part { int offset, length, start, end, tflags; } Part;

typedef struct CjkContext {
    void *ctx;
    int (*xToken)(void *, int, const char *, int, int, int);
    int flags;
    const char *text;          // the source, to see what lies between two tokens
    int nText;
    Part parts[MAX_PARTS];     // the run held back: each part's bytes in `joined`
    int nParts;
    char joined[MAX_WHOLE];    // the parts joined by '_'
    int nJoined;
} CjkContext;

// Emits the run held back: its parts, with the whole colocated after the first (document), or
// the whole alone (query).
static int flushRun(CjkContext *c) {
    int n = c->nParts, rc = SQLITE_OK;
    c->nParts = 0;
    if (n == 0) return SQLITE_OK;
    Part *p = c->parts;
    if (n == 1) return c->xToken(c->ctx, p[0].tflags, c->joined + p[0].offset, p[0].length, p[0].start, p[0].end);
    if (c->flags & FTS5_TOKENIZE_QUERY) {
        return c->xToken(c->ctx, p[0].tflags, c->joined, c->nJoined, p[0].start, p[n - 1].end);
    }
    rc = c->xToken(c->ctx, p[0].tflags, c->joined + p[0].offset, p[0].length, p[0].start, p[0].end);
    if (rc == SQLITE_OK) rc = c->xToken(c->ctx, FTS5_TOKEN_COLOCATED, c->joined, c->nJoined, p[0].start, p[n - 1].end);
    for (int i = 1; i < n && rc == SQLITE_OK; i++) {
        rc = c->xToken(c->ctx, p[i].tflags, c->joined + p[i].offset, p[i].length, p[i].start, p[i].end);
    }
    return rc;
}

// One token that is not CJK: it joins the run held back when only underscores separate the two
// in the source; otherwise the run is emitted and this token starts the next.
static int plainToken(CjkContext *c, int tflags, const char *token, int n, int start, int end) {
    int rc = SQLITE_OK;
    if (c->nParts > 0) {
        int gap = start - c->parts[c->nParts - 1].end, joins = gap > 0 && start <= c->nText;
        for (int i = c->parts[c->nParts - 1].end; joins && i < start; i++) if (c->text[i] != '_') joins = 0;
        if (joins && (c->nParts == MAX_PARTS || c->nJoined + 1 + n > MAX_WHOLE)) joins = 0;
        if (!joins) rc = flushRun(c);
        else c->joined[c->nJoined++] = '_';
    }
    if (rc != SQLITE_OK) return rc;
    if (n > MAX_WHOLE) return c->xToken(c->ctx, tflags, token, n, start, end);   // too long to hold
    if (c->nParts == 0) c->nJoined = 0;
    c->parts[c->nParts++] = (Part){ c->nJoined, n, start, end, tflags };
    memcpy(c->joined + c->nJoined, token, n);
    c->nJoined += n;
    return SQLITE_OK;
}

// A CJK token: the run held back goes first.
static int cjkToken(CjkContext *c, int tflags, const char *token, int n, int start, int end) {
    int rc = flushRun(c);
    return rc == SQLITE_OK ? c->xToken(c->ctx, tflags, token, n, start, end) : rc;
}

static int isCJK(unsigned int c) {
    return (c >= 0x3040 && c <= 0x30FF)      // Hiragana, Katakana
        || (c >= 0x3400 && c <= 0x4DBF)      // CJK Extension A
        || (c >= 0x4E00 && c <= 0x9FFF)      // CJK Unified Ideographs
        || (c >= 0xF900 && c <= 0xFAFF)      // Compatibility Ideographs
        || (c >= 0xAC00 && c <= 0xD7AF)      // Hangul syllables
        || (c >= 0x1100 && c <= 0x11FF)      // Hangul Jamo
        || (c >= 0x3130 && c <= 0x318F)      // Hangul compatibility Jamo
        || (c >= 0x31F0 && c <= 0x31FF)      // Katakana phonetic extensions
        || (c >= 0xFF66 && c <= 0xFF9F)      // half-width Katakana
        || (c >= 0x20000 && c <= 0x3134F);   // Extensions B-G
}

// The code point at p (n bytes left) and its length; invalid bytes count as one non-CJK byte.
static unsigned int decode(const unsigned char *p, int n, int *len) {
    unsigned int c = p[0];
    if (c < 0x80 || n < 2) { *len = 1; return c; }
    if ((c & 0xE0) == 0xC0) { *len = 2; return ((c & 0x1F) << 6) | (p[1] & 0x3F); }
    if ((c & 0xF0) == 0xE0 && n >= 3) { *len = 3; return ((c & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F); }
    if ((c & 0xF8) == 0xF0 && n >= 4) {
        *len = 4;
        return ((c & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
    }
    *len = 1;
    return c;
}

#define MAX_RUN 512

static int emitRun(CjkContext *c, const char *tok, const int *starts, const int *lens, int n, int base, int end, int same) {
    int rc = SQLITE_OK;
    int query = (c->flags & FTS5_TOKENIZE_QUERY) != 0;
    // Source offsets: exact when unicode61 kept the token's bytes (always so for these scripts,
    // which have no case), else the whole token's span.
    #define S(i) (same ? base + starts[i] : base)
    #define E(i) (same ? base + starts[i] + lens[i] : end)
    if (n == 1) return cjkToken(c, 0, tok + starts[0], lens[0], S(0), E(0));
    for (int i = 0; i + 1 < n && rc == SQLITE_OK; i++) {
        rc = cjkToken(c, 0, tok + starts[i], lens[i] + lens[i + 1], S(i), E(i + 1));
        if (rc == SQLITE_OK && !query) rc = cjkToken(c, FTS5_TOKEN_COLOCATED, tok + starts[i], lens[i], S(i), E(i));
    }
    if (rc == SQLITE_OK && !query) rc = cjkToken(c, FTS5_TOKEN_COLOCATED, tok + starts[n - 1], lens[n - 1], S(n - 1), E(n - 1));
    #undef S
    #undef E
    return rc;
}

static int onToken(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd) {
    CjkContext *c = (CjkContext *)pCtx;
    const unsigned char *p = (const unsigned char *)pToken;
    int any = 0;
    for (int i = 0; i < nToken; i++) if (p[i] >= 0xE1) { any = 1; break; }
    if (!any) return plainToken(c, tflags, pToken, nToken, iStart, iEnd);
    // Whether the token's bytes are the source's (offsets map one to one).
    int same = (iEnd - iStart) == nToken;
    int starts[MAX_RUN], lens[MAX_RUN];
    int n = 0, rc = SQLITE_OK, first = 1;
    int plainStart = -1;
    for (int i = 0; i < nToken && rc == SQLITE_OK;) {
        int len;
        unsigned int cp = decode(p + i, nToken - i, &len);
        if (isCJK(cp)) {
            if (plainStart >= 0) {
                rc = plainToken(c, first ? tflags : 0, pToken + plainStart, i - plainStart,
                                same ? iStart + plainStart : iStart, same ? iStart + i : iEnd);
                first = 0;
                plainStart = -1;
            }
            if (n == MAX_RUN) {   // a very long run: in pieces, each overlapping the last by one
                rc = emitRun(c, pToken, starts, lens, n, iStart, iEnd, same);
                starts[0] = starts[n - 1]; lens[0] = lens[n - 1]; n = 1;
            }
            starts[n] = i; lens[n] = len; n++;
        } else {
            if (n > 0) {
                rc = emitRun(c, pToken, starts, lens, n, iStart, iEnd, same);
                first = 0;
                n = 0;
            }
            if (plainStart < 0) plainStart = i;
        }
        i += len;
    }
    if (rc == SQLITE_OK && n > 0) rc = emitRun(c, pToken, starts, lens, n, iStart, iEnd, same);
    if (rc == SQLITE_OK && plainStart >= 0) {
        rc = plainToken(c, first ? tflags : 0, pToken + plainStart, nToken - plainStart,
                        same ? iStart + plainStart : iStart, iEnd);
    }
    return rc;
}

static int cjkCreate(void *pCtx, const char **azArg, int nArg, Fts5Tokenizer **ppOut) {
    fts5_api *api = (fts5_api *)pCtx;
    void *ud = 0;
    CjkTokenizer *t = sqlite3_malloc(sizeof(CjkTokenizer));
    if (!t) return SQLITE_NOMEM;
    memset(t, 0, sizeof(*t));
    int rc = api->xFindTokenizer(api, "unicode61", &ud, &t->inner);
    if (rc == SQLITE_OK) rc = t->inner.xCreate(ud, azArg, nArg, &t->innerInstance);
    if (rc != SQLITE_OK) { sqlite3_free(t); return rc; }
    *ppOut = (Fts5Tokenizer *)t;
    return SQLITE_OK;
}

static void cjkDelete(Fts5Tokenizer *p) {
    CjkTokenizer *t = (CjkTokenizer *)p;
    if (!t) return;
    if (t->innerInstance) t->inner.xDelete(t->innerInstance);
    sqlite3_free(t);
}

static int cjkTokenize(Fts5Tokenizer *p, void *pCtx, int flags, const char *pText, int nText,
                       int (*xToken)(void *, int, const char *, int, int, int)) {
    CjkTokenizer *t = (CjkTokenizer *)p;
    CjkContext c = { pCtx, xToken, flags, pText, nText };
    c.nParts = 0;
    int rc = t->inner.xTokenize(t->innerInstance, &c, flags, pText, nText, onToken);
    return rc == SQLITE_OK ? flushRun(&c) : rc;
}

static fts5_api *fts5ApiOf(sqlite3 *db) {
    fts5_api *api = 0;
    sqlite3_stmt *stmt = 0;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0) != SQLITE_OK) return 0;
    sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    return api;
}

int fsindex_fts5_cjk_register(sqlite3 *db) {
    fts5_api *api = fts5ApiOf(db);
    if (!api) return SQLITE_ERROR;
    static fts5_tokenizer tokenizer = { cjkCreate, cjkDelete, cjkTokenize };
    int rc = api->xCreateTokenizer(api, "fsindex_cjk", (void *)api, &tokenizer, 0);
    if (rc == SQLITE_OK) rc = fsindex_fts5_snippet_register(api);
    return rc == SQLITE_OK ? fsindex_fts5_rank_register(api) : rc;
}

// Tokenizing outside any table, for the PostgreSQL backend's tsvector and tsquery (issue 15): the
// very tokenizer items_fts uses, so both backends see the same words. One in-memory connection
// per thread holds the registered tokenizers.
typedef struct ForwardContext {
    void *ctx;
    int (*callback)(void *, int, const char *, int);
} ForwardContext;

static int forward(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd) {
    (void)iStart; (void)iEnd;
    ForwardContext *f = (ForwardContext *)pCtx;
    return f->callback(f->ctx, (tflags & FTS5_TOKEN_COLOCATED) != 0, pToken, nToken);
}

int fsindex_tokenize(int query, const char *text, int length, void *ctx,
                     int (*callback)(void *ctx, int colocated, const char *token, int length)) {
    static __thread sqlite3 *db = 0;
    static __thread Fts5Tokenizer *instance = 0;
    static __thread fts5_tokenizer methods;
    if (!instance) {
        if (!db) {
            if (sqlite3_open(":memory:", &db) != SQLITE_OK) return SQLITE_ERROR;
            int rc = fsindex_fts5_cjk_register(db);
            if (rc != SQLITE_OK) return rc;
        }
        fts5_api *api = fts5ApiOf(db);
        if (!api) return SQLITE_ERROR;
        void *ud = 0;
        int rc = api->xFindTokenizer(api, "fsindex_cjk", &ud, &methods);
        if (rc != SQLITE_OK) return rc;
        const char *args[] = { "remove_diacritics", "2" };
        rc = methods.xCreate(ud, args, 2, &instance);
        if (rc != SQLITE_OK) { instance = 0; return rc; }
    }
    ForwardContext f = { ctx, callback };
    return methods.xTokenize(instance, &f, query ? FTS5_TOKENIZE_QUERY : FTS5_TOKENIZE_DOCUMENT, text, length, forward);
}
