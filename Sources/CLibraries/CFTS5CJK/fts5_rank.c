// `fsindex_rank(items_fts, wName, wTitle, wOther, wText, layout)`: the relevance of a row, as
// bm25() gives it (the best most negative), for known-item search (issue 24).
//
// Why not FTS5's bm25(): it normalises by the length of the whole row, all columns summed, so a
// page whose title is exactly the query lost to shorter siblings whose text mentioned every word
// ("Repeat in std iter Rust" ranked its page 17th), and it knows nothing of word order. Here:
// 1. BM25F: each phrase's frequency is weighted and length-normalised per column (by that
//    column's length against its average), summed, and saturated once:
//      tf~ = Σc w_c · tf_c / (1 − b + b · len_c / avg_c),  score = Σ idf · tf~ (k1 + 1) / (tf~ + k1)
//    so a short exact title is not drowned by a long body.
// 2. Field bonuses, in units of the query's summed idf: a column that *equals* the query (its
//    tokens are the query's words in order, nothing else) or *contains it in order* (the words
//    consecutive): title, then name, then the other text attributes (descriptions, subjects).
// 3. Proximity: the smallest window of the text that holds every word of the query.
//
// `layout` says which phrases of the expression belong to which query word (a word with an
// identifier is two phrases, the whole and its parts, and a group `a OR b` several), and how
// many positions each covers in a document (an identifier's whole token sits at its first
// part's position and covers all its parts): "group:span group:span …", one per phrase in the
// order of the FTS5 expression. Without it (or when it does not fit the expression) every phrase
// is a word of its own, covering its own tokens.
//
// A layout that starts with "coord " is an any-word query's (issue 43: a question's words, any
// of them, each with its forms): a word and its forms count as one term, and the score is
// multiplied by the square root of the share of the query's words the row holds (Lucene's
// coordination factor), since BM25 alone lets one rare word said often outweigh most of the
// question. Measured with question-bench.sh's dev set: the share squared ranked long files
// holding many common words of a question above the file about it (46.9 % hits@10); the
// exponents 0.25 to 0.75 lie within two points of each other (56.2-56.9 %); none, 51 %.
//
// "coord top M …": only the M best rows need a score (`TopKRanking`'s candidates of a
// question's second stage). A question of common words matches most of an index, most of those
// matches hold one or two of its words, and scoring a row (its positions, its columns'
// lengths) is most of a question's time. So a row whose ceiling (from the words it holds alone,
// then from its frequencies and the bonuses its columns could still give) is below the M-th
// best score seen so far is given 1.0, after every real score (≤ 0), which the caller drops:
// the M best are the same rows with the same scores. "read text file line" (36,255 matches
// in the bench corpus): 79 % of the rows left out on the words they hold, 50 → 33 ms. A sixth
// argument, the row's boost (recency, usage, OCR confidence), makes the M best those of the
// score times the boost, as the full ranking orders them (`ResultQuery`).
#include "fts5_cjk.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RANK_K1 1.2
#define RANK_B 0.75
#define MAX_COLUMNS 8
#define MAX_GROUPS 32
// Beyond these, a row gets no order bonus or proximity (only BM25F): a query of 32 words, or a
// text with 20,000 matches, is not a known-item search, and the search would cost more.
#define MAX_ORDER_INSTANCES 20000

// Bonuses, times the query's summed idf.
static const double equalBonus[4] = { 2.0, 3.0, 1.5, 0.0 };     // name, title, other, text
static const double inOrderBonus[4] = { 0.8, 1.0, 0.6, 0.0 };
#define PROXIMITY_BONUS 0.3

typedef struct RankData {
    int nPhrase;
    int nColumn;
    double *idf;          // per phrase
    int *group;           // per phrase: the query word it belongs to
    int *span;            // per phrase: the document positions it covers
    int nGroup;
    double sumIdf;        // Σ over words of the largest idf of the word's phrases
    int longestChain;     // Σ over words of the widest span of the word's phrases
    int coordinate;       // the layout began with "coord ": an any-word query
    // "top M" after "coord ": only the M best rows need their score (see `pruned`).
    int top;
    // "skip P" after "coord [top M]": the expression's first P phrases only narrow the rows
    // (a question's rarer words, `SearchPattern.requiredGroups`) and repeat phrases scored
    // later; they belong to no word (group -1) and are never read.
    int skip;
    double *heap;         // the M best scores so far, a min-heap
    int heapCount;
    sqlite3_int64 lastRowid; // the row last scored, and its result (a row asked twice)
    double lastResult;
    int hasLast;
    double groupIdf[MAX_GROUPS]; // per word: the smallest idf of its phrases (its commonest form)
    double avg[MAX_COLUMNS];
} RankData;

typedef struct Hit { int column, offset, phrase; } Hit;

static int countRow(const Fts5ExtensionApi *api, Fts5Context *fts, void *p) {
    (void)api; (void)fts;
    (*(sqlite3_int64 *)p)++;
    return SQLITE_OK;
}

static void freeRankData(void *p) {
    RankData *d = (RankData *)p;
    if (!d) return;
    free(d->idf);
    free(d->group);
    free(d->span);
    free(d->heap);
    free(d);
}

// Reads "g:s[:n] g:s[:n] …" into group/span/docs (-1 where no count is given); 0 when it does
// not describe exactly nPhrase phrases.
static int readLayout(const char *text, int nPhrase, int *group, int *span, sqlite3_int64 *docs) {
    if (!text) return 0;
    const char *p = text;
    for (int i = 0; i < nPhrase; i++) {
        while (*p == ' ') p++;
        char *end;
        long g = strtol(p, &end, 10);
        if (end == p || *end != ':' || g < 0 || g >= nPhrase) return 0;
        p = end + 1;
        long s = strtol(p, &end, 10);
        if (end == p || s < 1 || s > 1024) return 0;
        p = end;
        docs[i] = -1;
        if (*p == ':') {
            long long n = strtoll(p + 1, &end, 10);
            if (end == p + 1 || n < 0) return 0;
            docs[i] = n;
            p = end;
        }
        group[i] = (int)g;
        span[i] = (int)s;
    }
    while (*p == ' ') p++;
    return *p == 0;
}

// The idf of every phrase (as bm25() computes it, from the rows that match it) and the columns'
// average lengths, once per statement.
static RankData *rankData(const Fts5ExtensionApi *api, Fts5Context *fts, const char *layout, int *rc) {
    RankData *d = (RankData *)api->xGetAuxdata(fts, 0);
    if (d) return d;
    d = calloc(1, sizeof(RankData));
    if (!d) { *rc = SQLITE_NOMEM; return 0; }
    int n = api->xPhraseCount(fts);
    d->nPhrase = n;
    d->nColumn = api->xColumnCount(fts);
    if (d->nColumn > MAX_COLUMNS) d->nColumn = MAX_COLUMNS;
    d->idf = calloc(n > 0 ? n : 1, sizeof(double));
    d->group = calloc(n > 0 ? n : 1, sizeof(int));
    d->span = calloc(n > 0 ? n : 1, sizeof(int));
    if (!d->idf || !d->group || !d->span) { freeRankData(d); *rc = SQLITE_NOMEM; return 0; }
    sqlite3_int64 rows = 0;
    *rc = api->xRowCount(fts, &rows);
    if (rows < 1) rows = 1;
    for (int c = 0; *rc == SQLITE_OK && c < d->nColumn; c++) {
        sqlite3_int64 total = 0;
        *rc = api->xColumnTotalSize(fts, c, &total);
        d->avg[c] = total > 0 ? (double)total / (double)rows : 1.0;
    }
    sqlite3_int64 *docs = calloc(n > 0 ? n : 1, sizeof(sqlite3_int64));
    if (!docs) { freeRankData(d); *rc = SQLITE_NOMEM; return 0; }
    if (layout && strncmp(layout, "coord ", 6) == 0) {
        d->coordinate = 1;
        layout += 6;
        if (strncmp(layout, "top ", 4) == 0) {
            char *end;
            long m = strtol(layout + 4, &end, 10);
            if (end > layout + 4 && m > 0 && m <= 1 << 20) {
                d->heap = malloc((size_t)m * sizeof(double));
                if (!d->heap) { free(docs); freeRankData(d); *rc = SQLITE_NOMEM; return 0; }
                d->top = (int)m;
                layout = end;
                while (*layout == ' ') layout++;
            }
        }
        if (strncmp(layout, "skip ", 5) == 0) {
            char *end;
            long k = strtol(layout + 5, &end, 10);
            if (end > layout + 5 && k > 0 && k < n) {
                d->skip = (int)k;
                layout = end;
                while (*layout == ' ') layout++;
            }
        }
    }
    for (int i = 0; i < d->skip; i++) { d->group[i] = -1; d->span[i] = 1; docs[i] = 0; }
    if (!readLayout(layout, n - d->skip, d->group + d->skip, d->span + d->skip, docs + d->skip)) {
        d->skip = 0;
        for (int i = 0; i < n; i++) {
            d->group[i] = i;
            d->span[i] = api->xPhraseSize(fts, i);
            if (d->span[i] < 1) d->span[i] = 1;
            docs[i] = -1;
        }
    }
    // A phrase's items, as the layout gives them (stored counts of common words), or counted
    // here by reading its matches, as bm25() does.
    for (int i = d->skip; *rc == SQLITE_OK && i < n; i++) {
        sqlite3_int64 hits = docs[i];
        if (hits < 0) { hits = 0; *rc = api->xQueryPhrase(fts, i, &hits, countRow); }
        double idf = log((rows - hits + 0.5) / (hits + 0.5));
        d->idf[i] = idf <= 1e-6 ? 1e-6 : idf;
    }
    free(docs);
    if (*rc != SQLITE_OK) { freeRankData(d); return 0; }
    double best[MAX_GROUPS] = { 0 };
    d->nGroup = 0;
    for (int i = 0; i < n; i++) {
        int g = d->group[i];
        if (g + 1 > d->nGroup) d->nGroup = g + 1;
        if (g < 0 || g >= MAX_GROUPS) continue;
        if (d->idf[i] > best[g]) best[g] = d->idf[i];
        if (d->groupIdf[g] == 0 || d->idf[i] < d->groupIdf[g]) d->groupIdf[g] = d->idf[i];
    }
    for (int g = 0; g < d->nGroup && g < MAX_GROUPS; g++) d->sumIdf += best[g];
    for (int g = 0; g < d->nGroup; g++) {
        int widest = 0;
        for (int i = 0; i < n; i++) if (d->group[i] == g && d->span[i] > widest) widest = d->span[i];
        d->longestChain += widest;
    }
    *rc = api->xSetAuxdata(fts, d, freeRankData);
    return *rc == SQLITE_OK ? d : 0;
}

// Whether the words from `g` on follow one another in `column` from `offset`; `*end` is where
// the last ends. The hits of the column are hits[0..n), sorted by offset.
static int chain(const RankData *d, const Hit *hits, int n, int g, int offset, int *end) {
    if (g == d->nGroup) { *end = offset; return 1; }
    // The hits at `offset` (few: the alternatives of one word, colocated tokens).
    int lo = 0, hi = n;
    while (lo < hi) { int mid = (lo + hi) / 2; if (hits[mid].offset < offset) lo = mid + 1; else hi = mid; }
    for (int i = lo; i < n && hits[i].offset == offset; i++) {
        int p = hits[i].phrase;
        if (d->group[p] == g && chain(d, hits, n, g + 1, offset + d->span[p], end)) return 1;
    }
    return 0;
}

static int byPosition(const void *a, const void *b) {
    const Hit *x = (const Hit *)a, *y = (const Hit *)b;
    if (x->column != y->column) return x->column < y->column ? -1 : 1;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->phrase - y->phrase;
}

// The order bonus of one column: equal, in order, or none.
static double orderBonus(const RankData *d, const Hit *hits, int n, int column, int length) {
    if (n == 0 || d->nGroup > MAX_GROUPS) return 0;
    int inOrder = 0;
    for (int i = 0; i < n; i++) {
        int p = hits[i].phrase, end = 0;
        if (d->group[p] != 0) continue;
        if (i > 0 && hits[i - 1].offset == hits[i].offset && d->group[hits[i - 1].phrase] == 0) continue;
        if (!chain(d, hits, n, 0, hits[i].offset, &end)) continue;
        if (hits[i].offset == 0 && end == length) return equalBonus[column];
        inOrder = 1;
    }
    return inOrder && d->nGroup >= 2 ? inOrderBonus[column] : 0;
}

// The proximity bonus of the text: PROXIMITY_BONUS × words / the smallest window holding them all.
static double proximity(const RankData *d, const Hit *hits, int n) {
    if (d->nGroup < 2 || d->nGroup > MAX_GROUPS || n < d->nGroup) return 0;
    int count[MAX_GROUPS] = { 0 }, distinct = 0, best = 0, lo = 0;
    for (int hi = 0; hi < n; hi++) {
        int g = d->group[hits[hi].phrase];
        if (count[g]++ == 0) distinct++;
        while (distinct == d->nGroup) {
            int first = hits[lo].offset, last = hits[hi].offset + d->span[hits[hi].phrase];
            int width = last - first;
            if (best == 0 || width < best) best = width;
            int gl = d->group[hits[lo].phrase];
            if (--count[gl] == 0) distinct--;
            lo++;
        }
    }
    if (best == 0) return 0;
    // Words of several tokens make a window wider than the number of words.
    int words = 0;
    for (int g = 0; g < d->nGroup; g++) {
        int span = 0;
        for (int i = 0; i < d->nPhrase; i++) if (d->group[i] == g && (span == 0 || d->span[i] < span)) span = d->span[i];
        words += span;
    }
    double closeness = (double)words / (double)best;
    return PROXIMITY_BONUS * (closeness > 1 ? 1 : closeness);
}

// The most a row can score that holds these of the query's words, whatever their frequencies,
// the columns' lengths and the positions: each word at most idf × (k1 + 1) (BM25 saturates
// below it), times the coordination; and the largest bonuses (equal in name, title and other,
// and the proximity), which need every word, times the summed idf.
static double ceilingOf(const RankData *d, const unsigned char *held, int matched) {
    if (matched == 0 || d->nGroup == 0) return 0;
    double sum = 0;
    for (int g = 0; g < d->nGroup && g < MAX_GROUPS; g++) if (held[g]) sum += d->groupIdf[g];
    int words = d->nGroup < MAX_GROUPS ? d->nGroup : MAX_GROUPS;
    double ceiling = sum * (RANK_K1 + 1) * sqrt((double)matched / (double)words);
    if (matched == d->nGroup) ceiling += (equalBonus[0] + equalBonus[1] + equalBonus[2] + PROXIMITY_BONUS) * d->sumIdf;
    return ceiling;
}

// Keeps the `top` best scores seen (a min-heap: heap[0] is the M-th best once full).
static void keepScore(RankData *d, double score) {
    double *h = d->heap;
    int i;
    if (d->heapCount < d->top) {
        i = d->heapCount++;
        while (i > 0 && h[(i - 1) / 2] > score) { h[i] = h[(i - 1) / 2]; i = (i - 1) / 2; }
        h[i] = score;
        return;
    }
    if (score <= h[0]) return;
    i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = l;
        if (l >= d->heapCount) break;
        if (r < d->heapCount && h[r] < h[l]) m = r;
        if (h[m] >= score) break;
        h[i] = h[m];
        i = m;
    }
    h[i] = score;
}

// With "top M" (an any-word query's candidates, issue 43): whether this row cannot be among
// the M best, known from which words it holds alone, before its positions and its columns'
// lengths are read (most of a row's cost). A question of common words matches most of an
// index, and most matches hold one or two of its words. The M best are exact: a row is left
// out only when even its ceiling is below the M-th best score seen so far, which the M-th
// best of all can only raise. Its result is 1.0, after every real one (≤ 0).
static int cannotReachTop(const Fts5ExtensionApi *api, Fts5Context *fts, RankData *d, double boost, int *rc) {
    if (!d->top || d->heapCount < d->top || d->nGroup > MAX_GROUPS) return 0;
    unsigned char held[MAX_GROUPS] = { 0 };
    int matched = 0;
    for (int p = d->skip; p < d->nPhrase && *rc == SQLITE_OK; p++) {
        int g = d->group[p];
        if (g < 0 || g >= MAX_GROUPS || held[g]) continue;
        Fts5PhraseIter it;
        int c = -1, o = -1;
        *rc = api->xPhraseFirst(fts, p, &it, &c, &o);
        if (c >= 0) { held[g] = 1; matched++; }
    }
    if (*rc != SQLITE_OK) return 0;
    // A margin far above the rounding of the sums, so that a tie is always scored.
    return ceilingOf(d, held, matched) * boost * (1 + 1e-9) < d->heap[0];
}

static void rank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal, sqlite3_value **values) {
    int rc = SQLITE_OK;
    const char *layout = nVal >= 5 ? (const char *)sqlite3_value_text(values[4]) : 0;
    RankData *d = rankData(api, fts, layout, &rc);
    if (!d) { sqlite3_result_error_code(ctx, rc == SQLITE_OK ? SQLITE_ERROR : rc); return; }
    double weight[MAX_COLUMNS];
    for (int c = 0; c < MAX_COLUMNS; c++) weight[c] = c < nVal && c < 4 ? sqlite3_value_double(values[c]) : 1.0;
    // A seventh argument, the largest boost any row can have, asks only whether this row can
    // reach the page: 1.0 when it cannot (its ceiling times that boost is below the page's
    // last so far), else 0.0, reading no positions nor lengths and keeping nothing. The full
    // ranking puts this test in its WHERE, where SQLite runs it before it reads the row's
    // item, its boost and its filters; the score (with the sixth argument) then fills the page.
    if (nVal >= 7 && d->top) {
        double largest = sqlite3_value_double(values[6]);
        int out = largest > 0 && isfinite(largest) && cannotReachTop(api, fts, d, largest, &rc);
        if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
        sqlite3_result_double(ctx, out ? 1.0 : 0.0);
        return;
    }
    // The row's boost, where the caller ranks by the score times it (the sixth argument: the
    // full ranking's recency, usage and OCR factor): the M best are then the best by the
    // product. A boost that is not above zero turns the order over; such a row is scored and
    // never left out.
    double boost = nVal >= 6 ? sqlite3_value_double(values[5]) : 1.0;
    int prunable = d->top && boost > 0 && isfinite(boost);
    sqlite3_int64 rowid = d->top ? api->xRowid(fts) : 0;
    if (d->top) {
        if (d->hasLast && d->lastRowid == rowid) { sqlite3_result_double(ctx, d->lastResult); return; }
        if (prunable && cannotReachTop(api, fts, d, boost, &rc)) {
            d->hasLast = 1; d->lastRowid = rowid; d->lastResult = 1.0;
            sqlite3_result_double(ctx, 1.0);
            return;
        }
        if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
    }

    int lengths[MAX_COLUMNS] = { 0 };
    for (int c = 0; c < d->nColumn && rc == SQLITE_OK; c++) rc = api->xColumnSize(fts, c, &lengths[c]);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }

    // Frequencies, phrase by phrase (xPhraseFirst), rather than through xInstCount: that
    // merges every phrase's positions into one sorted list, a cost that grows with the phrases
    // times the instances, for every match of a question of twenty forms, when only the order
    // bonus and the proximity need positions in order.
    double tfStack[64 * MAX_COLUMNS];
    size_t tfCells = (size_t)d->nPhrase * MAX_COLUMNS + 1;
    double *tf = tfCells <= 64 * MAX_COLUMNS ? tfStack : calloc(tfCells, sizeof(double));
    if (!tf) { sqlite3_result_error_nomem(ctx); return; }
    if (tf == tfStack) memset(tfStack, 0, tfCells * sizeof(double));
    int nInst = 0;
    for (int p = d->skip; p < d->nPhrase && rc == SQLITE_OK; p++) {
        Fts5PhraseIter it;
        int c = -1, o = -1;
        rc = api->xPhraseFirst(fts, p, &it, &c, &o);
        for (; rc == SQLITE_OK && c >= 0; api->xPhraseNext(fts, &it, &c, &o)) {
            if (c < d->nColumn) tf[p * MAX_COLUMNS + c] += 1;
            nInst++;
        }
    }
    if (rc != SQLITE_OK) { if (tf != tfStack) free(tf); sqlite3_result_error_code(ctx, rc); return; }
    // The query's words the row holds (any of a word's phrases in any column).
    int matched = 0;
    {
        unsigned char held[MAX_GROUPS] = { 0 };
        for (int p = 0; p < d->nPhrase; p++) {
            int g = d->group[p];
            if (g < 0 || g >= MAX_GROUPS || held[g]) continue;
            for (int c = 0; c < d->nColumn; c++) if (tf[p * MAX_COLUMNS + c] > 0) { held[g] = 1; matched++; break; }
        }
    }

    // 1. BM25F.
    double score = 0;
    if (d->coordinate) {
        // An any-word query's word and its forms are one term (Lucene's SynonymQuery): their
        // frequencies add up, weighed by the commonest one's idf. Scored one phrase at a time,
        // a word the index holds in eight forms weighed eight times one it holds in one, and
        // a rare form outweighed the word itself (question-bench, dev: 46.9 % → 56.9 % hits@10
        // with the square root below).
        // One pass over the phrases sums each word's frequencies (this runs for every match).
        double groupTf[MAX_GROUPS * MAX_COLUMNS] = { 0 };
        for (int p = 0; p < d->nPhrase; p++) {
            int g = d->group[p];
            if (g < 0 || g >= MAX_GROUPS) continue;
            for (int c = 0; c < d->nColumn; c++) groupTf[g * MAX_COLUMNS + c] += tf[p * MAX_COLUMNS + c];
        }
        for (int g = 0; g < d->nGroup && g < MAX_GROUPS; g++) {
            double f = 0;
            for (int c = 0; c < d->nColumn; c++) {
                double n = groupTf[g * MAX_COLUMNS + c];
                if (n == 0) continue;
                f += weight[c] * n / (1 - RANK_B + RANK_B * (double)lengths[c] / d->avg[c]);
            }
            if (f > 0) score += d->groupIdf[g] * f * (RANK_K1 + 1) / (f + RANK_K1);
        }
    } else {
        for (int p = 0; p < d->nPhrase; p++) {
            double f = 0;
            for (int c = 0; c < d->nColumn; c++) {
                double n = tf[p * MAX_COLUMNS + c];
                if (n == 0) continue;
                f += weight[c] * n / (1 - RANK_B + RANK_B * (double)lengths[c] / d->avg[c]);
            }
            if (f > 0) score += d->idf[p] * f * (RANK_K1 + 1) / (f + RANK_K1);
        }
    }
    // Coordination, for an any-word query: the share of its words the row holds.
    if (d->coordinate && d->nGroup > 0) {
        int words = d->nGroup < MAX_GROUPS ? d->nGroup : MAX_GROUPS;
        score *= sqrt((double)matched / (double)words);
    }
    // 2 and 3. Order and proximity, per column (name, title, other; then the text). Both need
    // every word of the query in the row (`chain` from the first word to the last; a window
    // holding them all), so an any-word query's row without one of them gets neither, and its
    // positions are not read.
    int allWords = !d->coordinate || matched == d->nGroup;
    if (allWords && prunable && d->heapCount == d->top && d->nGroup <= MAX_GROUPS) {
        // The bonuses this row could still get, from the columns that hold every word: one
        // equal to the words only if no longer than their longest chain, else in order; the
        // proximity only in the text. When even they cannot lift it to the M best, its
        // positions are not read.
        double most = 0;
        for (int c = 0; c < d->nColumn && c < 4; c++) {
            unsigned char held[MAX_GROUPS] = { 0 };
            int n = 0;
            for (int p = 0; p < d->nPhrase; p++) {
                int g = d->group[p];
                if (g >= 0 && g < MAX_GROUPS && !held[g] && tf[p * MAX_COLUMNS + c] > 0) { held[g] = 1; n++; }
            }
            if (n < d->nGroup) continue;
            if (c == 3) most += d->nGroup >= 2 ? PROXIMITY_BONUS : 0;
            else most += lengths[c] <= d->longestChain ? equalBonus[c] : (d->nGroup >= 2 ? inOrderBonus[c] : 0);
        }
        if ((score + most * d->sumIdf) * boost * (1 + 1e-9) < d->heap[0]) {
            if (tf != tfStack) free(tf);
            d->hasLast = 1; d->lastRowid = rowid; d->lastResult = 1.0;
            sqlite3_result_double(ctx, 1.0);
            return;
        }
    }
    Hit *hits = allWords && nInst > 0 && nInst <= MAX_ORDER_INSTANCES ? malloc(((size_t)nInst + 1) * sizeof(Hit)) : 0;
    int nHits = 0;
    if (hits) {
        for (int p = d->skip; p < d->nPhrase && rc == SQLITE_OK; p++) {
            Fts5PhraseIter it;
            int c = -1, o = -1;
            rc = api->xPhraseFirst(fts, p, &it, &c, &o);
            for (; rc == SQLITE_OK && c >= 0 && nHits < nInst; api->xPhraseNext(fts, &it, &c, &o)) {
                if (c < d->nColumn) hits[nHits++] = (Hit){ c, o, p };
            }
        }
    }
    if (rc != SQLITE_OK) { if (tf != tfStack) free(tf); free(hits); sqlite3_result_error_code(ctx, rc); return; }
    if (hits && nHits > 0) {
        qsort(hits, (size_t)nHits, sizeof(Hit), byPosition);
        double bonus = 0;
        int start = 0;
        while (start < nHits) {
            int c = hits[start].column, end = start;
            while (end < nHits && hits[end].column == c) end++;
            if (c < 3) bonus += orderBonus(d, hits + start, end - start, c, lengths[c]);
            else if (c == 3) bonus += proximity(d, hits + start, end - start);
            start = end;
        }
        score += bonus * d->sumIdf;
    }
    if (tf != tfStack) free(tf);
    free(hits);
    if (d->top) {
        if (prunable) keepScore(d, score * boost);
        d->hasLast = 1; d->lastRowid = rowid; d->lastResult = -score;
    }
    sqlite3_result_double(ctx, -score);
}

int fsindex_fts5_rank_register(fts5_api *api) {
    return api->xCreateFunction(api, "fsindex_rank", 0, rank, 0);
}
