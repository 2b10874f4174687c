import Attributes
import GRDB

/// The index schema, as named migrations applied in order.
///
/// `items` holds one row per item: the identifier as a BLOB (path bytes), the domain, the few
/// attributes queries filter on as columns, the change stamp the incremental crawl compares, and
/// the rest of the attribute set as JSON. `textContent` is not in the JSON: it lives only in the
/// full-text table, so it is stored once.
///
/// The full-text table `items_fts` is an external-content FTS5 table keyed by the item's rowid:
/// its columns are stored once, in `item_texts`, with the text compressed (zstd, zlib before issue 41, through
/// `fsindex_zip`), and read back through the view `items_fts_source` (`fsindex_unzip`).
/// Triggers on `item_texts` take a row's old words out when it is updated or deleted; a new row's
/// words are indexed by the writer itself, from the text it has (`IndexStore.upsert`, v13).
/// (Debian 12's SQLite 3.40 lacks `contentless_delete`, and a contentless table could not
/// give snippets.) `items_names` is a trigram index of names for substring search, as plocate offers.
package enum Schema {
    /// Bumped when a migration needs the items rebuilt from the files.
    static let migrator: DatabaseMigrator = {
        var m = DatabaseMigrator()
        m.registerMigration("v1-items") { db in
            try db.execute(sql: """
                CREATE TABLE items (
                    id INTEGER PRIMARY KEY,
                    path BLOB NOT NULL UNIQUE,
                    domain TEXT NOT NULL,
                    name TEXT NOT NULL,
                    content_type TEXT,
                    kind TEXT,
                    size INTEGER,
                    modified REAL,
                    created REAL,
                    mtime_ns INTEGER,
                    ctime_ns INTEGER,
                    inode INTEGER,
                    attributes TEXT NOT NULL,
                    expiration REAL,
                    extractor_version INTEGER NOT NULL DEFAULT 0,
                    indexed_at REAL NOT NULL
                );
                CREATE INDEX items_domain ON items(domain);
                CREATE INDEX items_expiration ON items(expiration) WHERE expiration IS NOT NULL;
                CREATE TABLE item_types (
                    type TEXT NOT NULL,
                    item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                    PRIMARY KEY (type, item_id)
                ) WITHOUT ROWID;
                CREATE INDEX item_types_item ON item_types(item_id);
                CREATE TABLE domains (
                    name TEXT PRIMARY KEY,
                    root BLOB NOT NULL,
                    last_crawl_started REAL,
                    last_crawl_finished REAL,
                    last_crawl_problems INTEGER
                );
                CREATE TABLE client_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    state BLOB NOT NULL,
                    updated REAL NOT NULL
                );
                """)
        }
        m.registerMigration("v1-fts") { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE items_fts USING fts5(
                    name, title, other, text,
                    tokenize = 'unicode61 remove_diacritics 2'
                );
                CREATE VIRTUAL TABLE items_names USING fts5(
                    name,
                    tokenize = 'trigram'
                );
                """)
        }
        m.registerMigration("v2-meta") { db in
            // Flags the index sets for itself. A later migration that changes what is stored
            // sets `rebuild_required`, and the next start reindexes everything from the files.
            try db.execute(sql: "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        }
        m.registerMigration("v3-extractors") { db in
            // Which content extractor wrote each item, so that raising one extractor's version
            // re-extracts only its files; and the extraction error as a column, so that
            // `fsindex failures` and `fsindex status` need no scan of the JSON.
            try db.execute(sql: """
                ALTER TABLE items ADD COLUMN extractor TEXT;
                ALTER TABLE items ADD COLUMN error TEXT;
                CREATE INDEX items_extractor ON items(extractor, extractor_version);
                CREATE INDEX items_error ON items(id) WHERE error IS NOT NULL;
                UPDATE items SET extractor_version = 0;
                """)
        }
        m.registerMigration("v4-used") { db in
            // When each file was last read (`lastUsedDate`) as a column, for fsfind's usage
            // boost: taking it out of the JSON cost more than ranking itself on common words.
            try db.execute(sql: """
                ALTER TABLE items ADD COLUMN used REAL;
                UPDATE items SET used = (julianday(json_extract(attributes, '$.lastUsedDate')) - 2440587.5) * 86400.0;
                """)
        }
        m.registerMigration("v5-query-indexes") { db in
            // Date and size filters (`modified:<7d`, `size:>10MB`) and the newest-first order of
            // queries without words read these instead of every row.
            try db.execute(sql: """
                CREATE INDEX items_modified ON items(modified);
                CREATE INDEX items_size ON items(size);
                """)
        }
        m.registerMigration("v6-summaries") { db in
            // Items whose `textContentSummary` is still to be made (text of 200 characters or
            // more, written since its last summary): the summary pass works through them after
            // extraction, at low priority. Existing items with such text are marked too, so an
            // older index gets its summaries without a rebuild.
            try db.execute(sql: """
                ALTER TABLE items ADD COLUMN summary_pending INTEGER;
                CREATE INDEX items_summary_pending ON items(id) WHERE summary_pending;
                UPDATE items SET summary_pending = 1
                WHERE id IN (SELECT rowid FROM items_fts WHERE length(text) >= \(IndexStore.summaryMinimumTextLength));
                """)
        }
        m.registerMigration("v7-usage") { db in
            // Uses recorded by `fsindex used` and fsindexd's recently-used list, in a table of
            // their own keyed by identifier: a crawl rewrites an item whenever its file changes,
            // and the uses must outlive that (and come back when a file not yet indexed is).
            // `upsert` and `recordUses` copy the latest use into `items.used` and the item's
            // `lastUsedDate`/`useCount`. `usage_feeds` holds what each outside list has given
            // already (per identifier: the latest visit and each application's count), so that a
            // restart never counts an old visit again.
            //
            // `used` held the file's access time until now; that is dropped (stale under
            // relatime and noatime, and moved by any backup): no recorded use, no usage boost.
            // (v6 is another branch's.)
            try db.execute(sql: """
                CREATE TABLE usage (
                    identifier BLOB PRIMARY KEY,
                    last_used REAL NOT NULL,
                    use_count INTEGER NOT NULL,
                    title TEXT
                ) WITHOUT ROWID;
                CREATE TABLE usage_feeds (
                    feed TEXT NOT NULL,
                    identifier BLOB NOT NULL,
                    visited REAL NOT NULL,
                    counts TEXT NOT NULL,
                    PRIMARY KEY (feed, identifier)
                ) WITHOUT ROWID;
                UPDATE items SET used = NULL, attributes = json_remove(attributes, '$.lastUsedDate')
                    WHERE used IS NOT NULL OR json_type(attributes, '$.lastUsedDate') IS NOT NULL;
                CREATE INDEX items_used ON items(used) WHERE used IS NOT NULL;
                """)
        }
        m.registerMigration("v9-donations") { db in
            // Apps' domains and the client state of each one's last batch (the crawl's own
            // state stays in `client_state`).
            // And what the index has asked of the apps' reindex commands (`[[provider]]`), until
            // each acknowledges: the identifiers (NULL: all), attempts, the last failure, and when
            // to try again.
            try db.execute(sql: """
                CREATE TABLE donated_domains (
                    name TEXT PRIMARY KEY,
                    client_state BLOB,
                    last_batch REAL
                );
                CREATE TABLE provider_requests (
                    domain TEXT PRIMARY KEY,
                    ids TEXT,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    last_attempt REAL,
                    next_attempt REAL NOT NULL
                );
                """)
        }
        m.registerMigration("v10-cjk") { db in
            // Every script searchable: the full-text table's tokenizer becomes `fsindex_cjk`
            // (CFTS5CJK: unicode61, with runs of Han, Kana and Hangul as overlapping bigrams).
            // The text is re-tokenized here, from the table itself, without reading any file.
            try db.execute(sql: """
                CREATE VIRTUAL TABLE items_fts_cjk USING fts5(
                    name, title, other, text,
                    tokenize = 'fsindex_cjk remove_diacritics 2'
                );
                INSERT INTO items_fts_cjk(rowid, name, title, other, text) SELECT rowid, name, title, other, text FROM items_fts;
                DROP TABLE items_fts;
                ALTER TABLE items_fts_cjk RENAME TO items_fts;
                """)
        }
        m.registerMigration("v11-compact") { db in
            // Half the index (issue 14): the full-text table's own copy of the text was 45% of
            // the bench corpus's index. The four columns now live in `item_texts`, the text
            // compressed by `fsindex_zip` (zlib, CFTS5CJK), and `items_fts` becomes an
            // external-content table over the view `items_fts_source`, which inflates it with
            // `fsindex_unzip` for snippets and highlights. The triggers keep the index in step
            // with `item_texts` (an external-content table must be given a row's old values to
            // take its words out: the delete trigger passes them). The words are indexed again
            // from the stored text, without reading any file.
            try db.execute(sql: """
                CREATE TABLE item_texts (
                    id INTEGER PRIMARY KEY,
                    name TEXT,
                    title TEXT,
                    other TEXT,
                    text
                );
                INSERT INTO item_texts(id, name, title, other, text)
                    SELECT rowid, name, title, other, fsindex_zip(text) FROM items_fts;
                DROP TABLE items_fts;
                """)
            try createTextTables(db)
            try db.execute(sql: "INSERT INTO items_fts(items_fts) VALUES('rebuild')")
        }
        m.registerMigration("v12-omitted") { db in
            // Half the index, continued: the `attributes` JSON leaves out what the row's columns
            // hold already (path, names, types, sizes, dates: a third of it); `omitted` has a bit
            // per attribute left out (see `StoredAttributes`). Rewritten here from the rows.
            try db.execute(sql: "ALTER TABLE items ADD COLUMN omitted INTEGER")
            var last: Int64 = -1
            while true {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT id, \(StoredAttributes.selection) FROM items WHERE id > ? ORDER BY id LIMIT 2000
                    """, arguments: [last])
                guard let end = rows.last else { break }
                last = end["id"]
                for row in rows {
                    // A JSON this build cannot read is left as it is (nothing omitted).
                    guard let attributes = try? IndexStore.attributes(json: row["attributes"]) else { continue }
                    let (json, omitted) = try StoredAttributes(row: row).encode(attributes)
                    guard omitted != nil else { continue }
                    try db.execute(sql: "UPDATE items SET attributes = ?, omitted = ? WHERE id = ?",
                                   arguments: [json, omitted, row["id"] as Int64])
                }
            }
        }
        m.registerMigration("v13-fts-direct") { db in
            // The writer indexes a new row's words from the text it has (issue 23): the insert
            // trigger inflated the text it had just compressed, a twentieth of a first index's
            // CPU with the compression. Deletes and updates still go through their triggers,
            // which must give the full-text table the old text.
            try db.execute(sql: "DROP TRIGGER item_texts_insert")
        }
        m.registerMigration("v14-newest-first") { db in
            // Queries without words list the newest first (`modified DESC`, then the path):
            // `kind:python` over a million items read and sorted every match for the 20 shown
            // (236 ms). With the order in an index, a query with a limit walks it from the
            // newest and stops at the page (`OrderedWalk` in Querying). (It could serve the date
            // filters too; `items_modified` stays, the smaller of the two.)
            try db.execute(sql: "CREATE INDEX items_newest ON items(modified DESC, path)")
        }
        m.registerMigration("v15-identifiers") { db in
            // Identifiers whole (issue 24): the tokenizer now also keeps `x86_64` and `snake_case`
            // as one term, beside their parts. The words are indexed again from the stored text,
            // without reading any file.
            try db.execute(sql: "INSERT INTO items_fts(items_fts) VALUES('rebuild')")
        }
        m.registerMigration("v16-term-docs") { db in
            // How many items hold each common word (issue 24), for the ranking's idf: FTS5 counts
            // a word's items by reading its whole list of matches, for every query: 2.5 ms each
            // for `in` and `core` in the bench corpus, most of a five-word query's time. Filled
            // by `refreshTermStatistics` after each large crawl (`optimize`); a word not listed
            // is counted as before.
            try db.execute(sql: "CREATE TABLE term_docs (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID")
            try IndexStore.countTerms(db)
        }
        m.registerMigration("v17-thumbnails") { db in
            // Donated items' pictures (issue 27: Core Spotlight's `thumbnailData`), kept out of
            // the attributes' JSON, which every query reads: up to 1 MiB each, read only by
            // `fsindex thumbnail DOMAIN:ID` and the desktop's search providers. They go with
            // their item (the cascade), and a donation without one removes the old one.
            try db.execute(sql: """
                CREATE TABLE item_thumbnails (
                    item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
                    data BLOB NOT NULL)
                """)
        }
        m.registerMigration("v18-suggest") { db in
            // Completions and suggestions (issue 27). `items_vocabulary` and
            // `items_vocabulary_columns` are FTS5's own vocabulary of `items_fts` (no storage of
            // their own: they read the full-text index), so that a reader opened read-only can
            // list the words that start with a prefix and count their items (`Completer`).
            // `use_times` keeps when each use happened, not only the last one, so that
            // suggestions can say "used at this hour before" (`Suggester`); it is bounded to the
            // latest `IndexStore.maximumUseTimes` uses.
            try db.execute(sql: """
                CREATE VIRTUAL TABLE items_vocabulary USING fts5vocab('items_fts', 'row');
                CREATE VIRTUAL TABLE items_vocabulary_columns USING fts5vocab('items_fts', 'col');
                CREATE TABLE use_times (identifier BLOB NOT NULL, used REAL NOT NULL);
                CREATE INDEX use_times_identifier ON use_times(identifier);
                CREATE INDEX use_times_used ON use_times(used);
                INSERT INTO use_times(identifier, used) SELECT identifier, last_used FROM usage;
                """)
        }
        m.registerMigration("v19-priority") { db in
            // Mail's `isPriority` (issue 27) is decided after indexing, from facts across items
            // (the mail "me" sent) and the time: `priority_pending` marks the messages to decide
            // (written since, or all of them when the evidence changed), `priority_recheck` the
            // time a decided message's answer may change (a mentioned date enters or leaves the
            // next days). Existing messages are marked; they are also read again (`mail` 2).
            try db.execute(sql: """
                ALTER TABLE items ADD COLUMN priority_pending INTEGER;
                ALTER TABLE items ADD COLUMN priority_recheck REAL;
                CREATE INDEX items_priority_pending ON items(id) WHERE priority_pending;
                CREATE INDEX items_priority_recheck ON items(priority_recheck) WHERE priority_recheck IS NOT NULL;
                UPDATE items SET priority_pending = 1 WHERE content_type = '\(IndexStore.mailMessageType)';
                """)
        }
        m.registerMigration("v20-ocr") { db in
            // OCR (issue 28) runs after all other extraction, at the lowest priority: the
            // writer marks its candidates (`ocr_pending`, see `IndexStore.wantsRecognition`) and
            // the OCR pass works through them. Existing pictures and PDFs without text are marked
            // too, so an older index gets their words without a rebuild. `ocr_confidence` is the
            // recognizer's mean confidence (0 to 100) of an item whose text came from OCR, as a
            // column so that the ranking weighs such text by it without reading the JSON.
            try db.execute(sql: """
                ALTER TABLE items ADD COLUMN ocr_pending INTEGER;
                ALTER TABLE items ADD COLUMN ocr_confidence REAL;
                CREATE INDEX items_ocr_pending ON items(id) WHERE ocr_pending;
                UPDATE items SET ocr_pending = 1
                WHERE (content_type != 'public.svg-image' AND id IN (SELECT item_id FROM item_types WHERE type = 'public.image')
                       AND coalesce(json_extract(attributes, '$.pixelWidth'), 1000) >= \(IndexStore.recognitionMinimumSide)
                       AND coalesce(json_extract(attributes, '$.pixelHeight'), 1000) >= \(IndexStore.recognitionMinimumSide))
                   OR (content_type = 'com.adobe.pdf' AND coalesce(json_extract(attributes, '$.pageCount'), 0) > 0
                       AND id NOT IN (SELECT rowid FROM items_fts WHERE length(text) >= \(IndexStore.recognitionTextPerPage)));
                """)
        }
        m.registerMigration("v21-url-scheme") { db in
            // The URL scheme an app declared as its own when it donated (issue 40): its items'
            // contentURLs may use it, besides file, http, https and mailto (`OpenableURL`).
            try db.execute(sql: "ALTER TABLE donated_domains ADD COLUMN url_scheme TEXT")
        }
        m.registerMigration("v22-type-trees") { db in
            // Types by tree, not by item (issue 41): `item_types` held a row per type an item
            // conforms to (660,699 rows and their index, 34 MB of the bench corpus's 655 MB
            // index, and six B-tree inserts per file), although a whole corpus holds a few
            // hundred distinct sets of types. Now each set is stored once in `type_trees` (its
            // types) and `type_tree_keys` (its types sorted and joined, to find it again), an
            // item names its set (`items.type_tree`), and `item_types` is a view that gives the
            // same rows as the table did, so queries read it as before. A set is never changed
            // nor removed: a few rows each, and an id stays valid for every item that names it.
            try db.execute(sql: """
                CREATE TABLE type_tree_keys (key TEXT PRIMARY KEY, tree INTEGER NOT NULL UNIQUE);
                CREATE TABLE type_trees (
                    tree INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    PRIMARY KEY (tree, type)
                ) WITHOUT ROWID;
                CREATE INDEX type_trees_type ON type_trees(type, tree);
                ALTER TABLE items ADD COLUMN type_tree INTEGER;
                """)
            let rows = try Row.fetchCursor(db, sql: """
                SELECT item_id, group_concat(type, char(10)) AS types FROM item_types GROUP BY item_id
                """)
            var named: [(Int64, Int64)] = []
            while let row = try rows.next() {
                let types = ((row["types"] as String?) ?? "").split(separator: "\n").map(String.init)
                if let tree = try IndexStore.typeTree(Set(types), db) { named.append((row["item_id"], tree)) }
            }
            for (id, tree) in named {
                try db.execute(sql: "UPDATE items SET type_tree = ? WHERE id = ?", arguments: [tree, id])
            }
            try db.execute(sql: """
                DROP TABLE item_types;
                CREATE INDEX items_type_tree ON items(type_tree) WHERE type_tree IS NOT NULL;
                CREATE VIEW item_types(type, item_id) AS
                    SELECT type_trees.type, items.id FROM type_trees JOIN items ON items.type_tree = type_trees.tree;
                """)
        }
        m.registerMigration("v23-vectors") { db in
            // What an item's words mean, as a vector (issue 43): the semantic pass stores one per
            // item it reads (`IndexStore.storeMeanings`; an empty blob for an item with nothing
            // to embed), and a question's second stage reorders its best candidates by closeness
            // to the question. `meaning_pending` lists the items the pass has yet to read, as
            // `ocr_pending`'s partial index does for OCR: the pass finds nothing to do in one
            // lookup, where a scan for items without a vector would cost every piece of the
            // daemon's work some 50 ms. The triggers keep both in step with the texts: written
            // (again), an item waits; deleted, its rows go. An older index gets every item pending.
            try db.execute(sql: """
                CREATE TABLE item_vectors (id INTEGER PRIMARY KEY, vector BLOB NOT NULL);
                CREATE TABLE meaning_pending (id INTEGER PRIMARY KEY);
                INSERT INTO meaning_pending SELECT id FROM item_texts;
                CREATE TRIGGER item_texts_meaning_insert AFTER INSERT ON item_texts BEGIN
                    INSERT OR IGNORE INTO meaning_pending(id) VALUES (new.id);
                END;
                CREATE TRIGGER item_texts_meaning_delete AFTER DELETE ON item_texts BEGIN
                    DELETE FROM item_vectors WHERE id = old.id;
                    DELETE FROM meaning_pending WHERE id = old.id;
                END;
                CREATE TRIGGER item_texts_meaning_update AFTER UPDATE OF name, title, other ON item_texts BEGIN
                    DELETE FROM item_vectors WHERE id = new.id;
                    INSERT OR IGNORE INTO meaning_pending(id) VALUES (new.id);
                END;
                """)
        }
        return m
    }()

    /// The full-text table over `item_texts` (through the inflating view) and its triggers.
    private static func createTextTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE VIEW items_fts_source AS
                SELECT id, name, title, other, fsindex_unzip(text) AS text FROM item_texts;
            CREATE VIRTUAL TABLE items_fts USING fts5(
                name, title, other, text,
                content = 'items_fts_source', content_rowid = 'id',
                tokenize = 'fsindex_cjk remove_diacritics 2'
            );
            CREATE TRIGGER item_texts_insert AFTER INSERT ON item_texts BEGIN
                INSERT INTO items_fts(rowid, name, title, other, text)
                    VALUES (new.id, new.name, new.title, new.other, fsindex_unzip(new.text));
            END;
            CREATE TRIGGER item_texts_delete AFTER DELETE ON item_texts BEGIN
                INSERT INTO items_fts(items_fts, rowid, name, title, other, text)
                    VALUES ('delete', old.id, old.name, old.title, old.other, fsindex_unzip(old.text));
            END;
            CREATE TRIGGER item_texts_update AFTER UPDATE ON item_texts BEGIN
                INSERT INTO items_fts(items_fts, rowid, name, title, other, text)
                    VALUES ('delete', old.id, old.name, old.title, old.other, fsindex_unzip(old.text));
                INSERT INTO items_fts(rowid, name, title, other, text)
                    VALUES (new.id, new.name, new.title, new.other, fsindex_unzip(new.text));
            END;
            """)
    }

    /// Column weights for bm25 over `items_fts(name, title, other, text)`: a name match counts
    /// ten times a body match, title five times, subject/authors/keywords three times.
    /// `Querying` ranks with these; they are written only here.
    package static let bm25Weights = "10.0, 5.0, 3.0, 1.0"

    // The names `Querying` builds its SQL with, written once beside the statements that create
    // them. The main table is `items` (its columns are named in `attributeColumns`).
    /// The full-text table: `name`, `title`, `other`, `text` (external content: `item_texts`).
    package static let ftsTable = "items_fts"
    /// The trigram table over names, for substrings and globs.
    package static let namesTable = "items_names"
    /// `contentTypeTree`, one row per type an item conforms to: `item_id`, `type` (a view since
    /// v22, of the item's set of types in `type_trees`).
    package static let typesTable = "item_types"
    /// Each distinct set of types once (`tree`, `type`), which `items.type_tree` names (v22).
    package static let typeTreesTable = "type_trees"

    /// The attributes stored in a column of `items` of their own (indexed, or read without
    /// decoding the JSON), by column name; every other attribute is in `items.attributes`.
    package static let attributeColumns: [AttributeKey: String] = [
        .name: "name", .fileSize: "size", .contentType: "content_type", .kind: "kind",
        .fsContentChangeDate: "modified", .fsCreationDate: "created", .domainIdentifier: "domain",
        .extractor: "extractor", .extractionError: "error", .lastUsedDate: "used",
    ]
}
