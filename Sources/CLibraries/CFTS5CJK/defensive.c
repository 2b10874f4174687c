#include "fts5_cjk.h"

// sqlite3_db_config is variadic, which Swift cannot call: this fixes its arguments.
int fsindex_sqlite_defensive(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
}
