// The fsindex_cjk tokenizer (Sources/CFTS5CJK) as an SQLite loadable extension, for the
// sqlite3 command line: the index's full-text table cannot be read without its tokenizer.
// crash-consistency.sh builds it with the toolchain's C compiler and `.load`s it.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include "../../Sources/CFTS5CJK/fts5_cjk.c"

int sqlite3_extension_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
    (void)error;
    SQLITE_EXTENSION_INIT2(api);
    return fsindex_fts5_cjk_register(db);
}
