// `fsindex_snippet(items_fts, col, start, end, ellipsis, tokens)`: FTS5's snippet() in linear time.
//
// Why: FTS5's own snippet() scores a window at every matched position by looking at every other
// matched position, which is quadratic in the matches of a row. A one-letter query (`a`, a
// prefix) matches thousands of words of a long text: `fsfind --snippet a` over /usr/share/doc ran
// for 9 s, nearly all of it in snippet(). Here one sliding window over the row's matches (sorted
// by position) finds the window of `tokens` tokens with the most distinct phrases, then the most
// matches; the text is tokenized only up to the end of that window.
//
// Same arguments and the same kind of answer as snippet(): the window's text, the matched tokens
// between `start` and `end`, `ellipsis` where text was left out before or after. `col` -1 picks the
// column with the best window (columns without a match score nothing; with no match anywhere, the
// start of the first column, or of `col`, is shown).
#include "fts5_cjk.h"
#include <stdlib.h>
#include <string.h>

typedef struct Match { int phrase, column, offset; } Match;

static int byOffset(const void *a, const void *b) {
    const Match *x = (const Match *)a, *y = (const Match *)b;
    if (x->column != y->column) return x->column < y->column ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/// Tokenizing the chosen column up to the window's end: the bytes the window covers, and where
/// its matched tokens are.
typedef struct Cutter {
    int first, count;          // the window: token positions [first, first + count)
    const unsigned char *hit;  // per window position: 1 when that token is part of a match
    int position;              // the position of the last token seen (-1 before any)
    int byteStart, byteEnd;    // the window's bytes
    int *hitStart, *hitEnd, hits;  // byte ranges of matched tokens, in order, overlaps merged
    int more;                  // a token after the window exists
} Cutter;

static int cut(void *p, int tflags, const char *token, int nToken, int iStart, int iEnd) {
    (void)token; (void)nToken;
    Cutter *c = (Cutter *)p;
    if (!(tflags & FTS5_TOKEN_COLOCATED) || c->position < 0) c->position++;
    int at = c->position - c->first;
    if (at < 0) return SQLITE_OK;
    if (at >= c->count) { c->more = 1; return SQLITE_DONE; }
    if (c->byteStart < 0 || iStart < c->byteStart) c->byteStart = iStart;
    if (iEnd > c->byteEnd) c->byteEnd = iEnd;
    if (c->hit[at]) {
        if (c->hits > 0 && iStart <= c->hitEnd[c->hits - 1]) {
            if (iEnd > c->hitEnd[c->hits - 1]) c->hitEnd[c->hits - 1] = iEnd;
        } else {
            c->hitStart[c->hits] = iStart;
            c->hitEnd[c->hits] = iEnd;
            c->hits++;
        }
    }
    return SQLITE_OK;
}

static void snippet(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal, sqlite3_value **values) {
    if (nVal != 5) {
        sqlite3_result_error(ctx, "fsindex_snippet takes 5 arguments: column, start, end, ellipsis, tokens", -1);
        return;
    }
    int wanted = sqlite3_value_int(values[0]);
    const char *open = (const char *)sqlite3_value_text(values[1]);
    const char *close = (const char *)sqlite3_value_text(values[2]);
    const char *ellipsis = (const char *)sqlite3_value_text(values[3]);
    int tokens = sqlite3_value_int(values[4]);
    if (!open) open = "";
    if (!close) close = "";
    if (!ellipsis) ellipsis = "";
    if (tokens < 1) tokens = 1;
    if (tokens > 64) tokens = 64;
    int columns = api->xColumnCount(fts), phrases = api->xPhraseCount(fts);

    int n = 0, rc = api->xInstCount(fts, &n);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
    Match *m = n > 0 ? (Match *)malloc(sizeof(Match) * (size_t)n) : 0;
    int *counts = (int *)calloc((size_t)(phrases > 0 ? phrases : 1), sizeof(int));
    if ((n > 0 && !m) || !counts) { free(m); free(counts); sqlite3_result_error_nomem(ctx); return; }
    int kept = 0;
    for (int i = 0; i < n && rc == SQLITE_OK; i++) {
        Match x;
        rc = api->xInst(fts, i, &x.phrase, &x.column, &x.offset);
        if (rc == SQLITE_OK && (wanted < 0 || x.column == wanted) && x.phrase >= 0 && x.phrase < phrases) m[kept++] = x;
    }
    if (rc != SQLITE_OK) { free(m); free(counts); sqlite3_result_error_code(ctx, rc); return; }
    qsort(m, (size_t)kept, sizeof(Match), byOffset);

    // The best window: most distinct phrases, then most matches (a sliding window per column).
    int bestColumn = wanted >= 0 && wanted < columns ? wanted : 0, bestScore = 0, bestFirst = 0, bestLast = 0;
    for (int lo = 0; lo < kept;) {
        int column = m[lo].column, hi = lo;
        while (hi < kept && m[hi].column == column) hi++;
        memset(counts, 0, sizeof(int) * (size_t)(phrases > 0 ? phrases : 1));
        int distinct = 0, left = lo;
        for (int right = lo; right < hi; right++) {
            if (counts[m[right].phrase]++ == 0) distinct++;
            while (m[right].offset - m[left].offset >= tokens) {
                if (--counts[m[left].phrase] == 0) distinct--;
                left++;
            }
            int score = distinct * 1000 + (right - left + 1);
            if (score > bestScore) {
                bestScore = score; bestColumn = column;
                bestFirst = m[left].offset;
                bestLast = m[right].offset + api->xPhraseSize(fts, m[right].phrase) - 1;
            }
        }
        lo = hi;
    }

    // Centre the matches in the window, within the column's tokens.
    int size = 0;
    if (api->xColumnSize(fts, bestColumn, &size) != SQLITE_OK) size = 0;
    int first = 0;
    if (bestScore > 0) {
        int span = bestLast - bestFirst + 1;
        first = bestFirst - (tokens - span) / 2;
        if (size > 0 && first + tokens > size) first = size - tokens;
        if (first < 0) first = 0;
    }
    unsigned char *hit = (unsigned char *)calloc((size_t)tokens, 1);
    int *ranges = (int *)malloc(sizeof(int) * 2 * (size_t)tokens);
    if (!hit || !ranges) { free(m); free(counts); free(hit); free(ranges); sqlite3_result_error_nomem(ctx); return; }
    for (int i = 0; i < kept && bestScore > 0; i++) {
        if (m[i].column != bestColumn || m[i].offset >= first + tokens) continue;
        int length = api->xPhraseSize(fts, m[i].phrase);
        for (int k = 0; k < length; k++) {
            int at = m[i].offset + k - first;
            if (at >= 0 && at < tokens) hit[at] = 1;
        }
    }

    const char *text = 0;
    int textLength = 0;
    rc = api->xColumnText(fts, bestColumn, &text, &textLength);
    Cutter c = { first, tokens, hit, -1, -1, 0, ranges, ranges + tokens, 0, 0 };
    if (rc == SQLITE_OK && text && textLength > 0) {
        rc = api->xTokenize(fts, text, textLength, &c, cut);
        if (rc == SQLITE_DONE) rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK) {
        free(m); free(counts); free(hit); free(ranges);
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    sqlite3_str *out = sqlite3_str_new(0);
    if (c.byteStart >= 0) {
        if (first > 0) sqlite3_str_appendall(out, ellipsis);
        int at = c.byteStart;
        for (int i = 0; i < c.hits; i++) {
            if (c.hitStart[i] > at) sqlite3_str_append(out, text + at, c.hitStart[i] - at);
            sqlite3_str_appendall(out, open);
            sqlite3_str_append(out, text + c.hitStart[i], c.hitEnd[i] - c.hitStart[i]);
            sqlite3_str_appendall(out, close);
            at = c.hitEnd[i];
        }
        if (c.byteEnd > at) sqlite3_str_append(out, text + at, c.byteEnd - at);
        if (c.more) sqlite3_str_appendall(out, ellipsis);
    }
    free(m); free(counts); free(hit); free(ranges);
    int length = sqlite3_str_length(out);
    char *result = sqlite3_str_finish(out);
    if (!result && length > 0) { sqlite3_result_error_nomem(ctx); return; }
    sqlite3_result_text(ctx, result ? result : "", length, result ? sqlite3_free : SQLITE_STATIC);
}

int fsindex_fts5_snippet_register(fts5_api *api) {
    return api->xCreateFunction(api, "fsindex_snippet", 0, snippet, 0);
}
