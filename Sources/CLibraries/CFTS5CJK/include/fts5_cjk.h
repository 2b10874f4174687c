#ifndef FSINDEX_FTS5_CJK_H
#define FSINDEX_FTS5_CJK_H

#include <sqlite3.h>
#include "text_zip.h"

/// Registers the FTS5 tokenizer `fsindex_cjk` on `db`: SQLite's `unicode61` (its arguments passed
/// on), except that runs of Han, Hiragana, Katakana and Hangul become overlapping bigrams (with
/// each character colocated), so that a word of a script written without spaces can be found.
/// Returns an SQLite result code.
int fsindex_fts5_cjk_register(sqlite3 *db);

/// Registers the FTS5 function `fsindex_snippet`, snippet() in time linear in a row's matches
/// (fts5_snippet.c); `fsindex_fts5_cjk_register` calls it.
int fsindex_fts5_snippet_register(fts5_api *api);

/// Registers the FTS5 function `fsindex_rank`, the relevance of a row: BM25F over the columns,
/// with bonuses for a column that equals the query or holds its words in order, and for the
/// words' proximity in the text (fts5_rank.c); `fsindex_fts5_cjk_register` calls it.
int fsindex_fts5_rank_register(fts5_api *api);

/// Cuts `text` into the tokens `items_fts` would hold (`query`: as a query's words), calling
/// `callback` for each; `colocated` marks a token at the same position as the one before.
/// Returns SQLITE_OK or the tokenizer's error.
int fsindex_tokenize(int query, const char *text, int length, void *ctx,
                     int (*callback)(void *ctx, int colocated, const char *token, int length));

/// Turns on SQLITE_DBCONFIG_DEFENSIVE and turns off SQLITE_DBCONFIG_TRUSTED_SCHEMA on `db`, for
/// a database that came from outside (a volume's portable index copy): its schema cannot make
/// SQL functions run or corrupt the file through writable_schema. Returns an SQLite result code.
int fsindex_sqlite_defensive(sqlite3 *db);

#endif
