#ifndef FSINDEX_TEXT_ZIP_H
#define FSINDEX_TEXT_ZIP_H

#include <sqlite3.h>
#include <stddef.h>

/// Registers the SQL functions `fsindex_zip(text)` and `fsindex_unzip(value)` on `db`: the
/// full text is stored compressed (issue 14) and read back through `fsindex_unzip`, which the
/// full-text table's content view calls. Returns an SQLite result code.
///
/// - `fsindex_zip(x)`: NULL stays NULL; a text shorter than 128 bytes, or one that zlib cannot
///   shrink, stays the same text; any other text becomes a BLOB: its length in bytes (4 bytes,
///   little-endian) and then a zlib stream of its UTF-8 bytes. A number is returned unchanged; a
///   BLOB is an error (so a BLOB in the column is always a compressed text).
/// - `fsindex_unzip(x)`: the inverse. A text or number is returned as it is; a BLOB is inflated
///   back to the text (an error if it is not one of ours).
int fsindex_text_zip_register(sqlite3 *db);

/// What `fsindex_zip` makes of `n` bytes of UTF-8 text, for a caller that compresses off the
/// writer's thread: a buffer from `malloc` (free it with `free`) of `*outLength` bytes, or NULL
/// when the text is stored as it is (shorter than FSINDEX_ZIP_MINIMUM, or zlib cannot shrink it).
unsigned char *fsindex_zip_bytes(const unsigned char *text, size_t n, size_t *outLength);

/// The zlib level `fsindex_zip` uses (1 fastest ... 9 smallest).
#define FSINDEX_ZIP_LEVEL 6
/// Texts shorter than this are stored as they are.
#define FSINDEX_ZIP_MINIMUM 128
/// The longest text `fsindex_zip` compresses (a longer one is stored as it is), and so the most
/// `fsindex_unzip` ever inflates: the indexer's `[index] text_cap` stops below it. A BLOB whose
/// header claims more is no text of ours (an index copy from a hostile stick claimed 900 MB) and
/// is an error without a byte allocated for the claim; memory grows with what actually inflates.
#define FSINDEX_TEXT_MAXIMUM (64u << 20)

#endif
