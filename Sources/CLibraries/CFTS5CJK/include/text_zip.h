#ifndef FSINDEX_TEXT_ZIP_H
#define FSINDEX_TEXT_ZIP_H

#include <sqlite3.h>
#include <stddef.h>

/// Registers the SQL functions `fsindex_zip(text)` and `fsindex_unzip(value)` on `db`: the
/// full text is stored compressed (issue 14) and read back through `fsindex_unzip`, which the
/// full-text table's content view calls. Returns an SQLite result code.
///
/// - `fsindex_zip(x)`: NULL stays NULL; a text shorter than 128 bytes, or one that zstd cannot
///   shrink, stays the same text; any other text becomes a BLOB: its length in bytes (4 bytes,
///   little-endian) and then a zstd frame of its UTF-8 bytes (issue 41; indexes made before it
///   hold a zlib stream there, read as before: the two start with different bytes). A number is
///   returned unchanged; a BLOB is an error (so a BLOB in the column is always a compressed text).
/// - `fsindex_unzip(x)`: the inverse. A text or number is returned as it is; a BLOB is inflated
///   back to the text (an error if it is not one of ours).
int fsindex_text_zip_register(sqlite3 *db);

/// What `fsindex_zip` makes of `n` bytes of UTF-8 text, for a caller that compresses off the
/// writer's thread: a buffer from `malloc` (free it with `free`) of `*outLength` bytes, or NULL
/// when the text is stored as it is (shorter than FSINDEX_ZIP_MINIMUM, or zstd cannot shrink it).
unsigned char *fsindex_zip_bytes(const unsigned char *text, size_t n, size_t *outLength);

/// How many zstd contexts the threads hold now (each is freed when its thread ends): for the
/// test that a thread which packed or read texts leaves nothing behind.
long fsindex_zip_live_contexts(void);

/// The zstd level `fsindex_zip` uses. Measured on the bench corpus's 642 MB of text (issue 41):
/// zlib's level 6 (before) made 168.4 MB in 13.0 s of CPU; zstd makes 174.4 MB in 2.5 s at level
/// 3, 172.1 MB in 3.5 s at 4, 166.6 MB in 5.0 s at 5, 163.7 MB in 6.5 s at 6. Level 5 is smaller
/// than zlib and 2.6 times cheaper, and reads back several times faster (snippets, highlights,
/// the old words of an update). A dictionary trained on the first texts a crawl meets saved
/// only 4 % more (the first folder is not the corpus), and was left out.
#define FSINDEX_ZIP_LEVEL 5
/// Texts shorter than this are stored as they are.
#define FSINDEX_ZIP_MINIMUM 128
/// The longest text `fsindex_zip` compresses (a longer one is stored as it is), and so the most
/// `fsindex_unzip` ever inflates: the indexer's `[index] text_cap` stops below it. A BLOB whose
/// header claims more is no text of ours (an index copy from a hostile stick claimed 900 MB) and
/// is an error without a byte allocated for the claim; memory grows with what actually inflates.
#define FSINDEX_TEXT_MAXIMUM (64u << 20)

#endif
