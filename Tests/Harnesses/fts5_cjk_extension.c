// The fsindex_cjk tokenizer, the fsindex_snippet and fsindex_rank functions, and the
// fsindex_unzip/fsindex_zip functions (Sources/CLibraries/CFTS5CJK) as an
// SQLite loadable extension, for the sqlite3 command line: the index's full-text table cannot be
// read without its tokenizer, nor its stored text without fsindex_unzip.
// crash-consistency.sh builds it with the toolchain's C compiler and `.load`s it.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include "../../Sources/CLibraries/CFTS5CJK/fts5_cjk.c"
#include "../../Sources/CLibraries/CFTS5CJK/text_zip.c"
#include "../../Sources/CLibraries/CFTS5CJK/fts5_snippet.c"
#include "../../Sources/CLibraries/CFTS5CJK/fts5_rank.c"

int sqlite3_extension_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
    (void)error;
    SQLITE_EXTENSION_INIT2(api);
    int rc = fsindex_fts5_cjk_register(db);
    return rc == SQLITE_OK ? fsindex_text_zip_register(db) : rc;
}
