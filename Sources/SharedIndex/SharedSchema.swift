/// The shared index's tables, created and migrated by fsindex itself, in the order given; each
/// migration runs once, in a transaction, and is recorded in `fsindex_migrations`.
///
/// - `items`: one row per item of every host, keyed by host and path. `domain` is the root's
///   name (or an app's domain) on that host, so a domain is host plus root. The words are a
///   `tsvector` built from the very tokens `items_fts` holds locally (`WordVector`), with
///   weights A name, B title, C the other text attributes, D the text; `name` has a trigram
///   index for names and wildcards; `types` is the type tree, for `kind:`.
/// - `owner`, `grp`, `mode`, `access` (owner, group and mode of every folder above, from `/`)
///   and `acl` (the POSIX ACL entries of the item and of those folders, "v4-acl") decide who
///   may see a row: see `fsindex_readable` and the policy below.
/// - `domains`: each domain's watcher and client state; `hosts`: each host's last batch;
///   `failures`: the items and domains a watcher's last pass could not publish, and why.
/// - `accounts`: the users of each host (name, uid, groups), which the watchers publish; a
///   query made as a role sees the rows that the user of the same name could read on the
///   host that indexed them. The table owner (the watchers' role) sees every row.
package enum SharedSchema {
    package static let migrations: [(id: String, sql: String)] = [
        ("v1-items", """
            CREATE EXTENSION IF NOT EXISTS pg_trgm;
            CREATE TABLE hosts (
                host text PRIMARY KEY,
                first_seen double precision NOT NULL,
                last_batch double precision,
                last_batch_items integer,
                watchers integer NOT NULL DEFAULT 0
            );
            CREATE TABLE domains (
                host text NOT NULL REFERENCES hosts ON DELETE CASCADE,
                domain text NOT NULL,
                watcher text NOT NULL,
                client_state bytea,
                updated double precision,
                PRIMARY KEY (host, domain)
            );
            CREATE TABLE items (
                id bigserial PRIMARY KEY,
                host text NOT NULL,
                path bytea NOT NULL,
                domain text NOT NULL,
                name text NOT NULL,
                content_type text,
                kind text,
                extractor text,
                error text,
                size bigint,
                modified double precision,
                created double precision,
                used double precision,
                expiration double precision,
                attributes jsonb NOT NULL,
                types text[] NOT NULL DEFAULT '{}',
                title text,
                other text,
                body text,
                words tsvector NOT NULL,
                owner integer,
                grp integer,
                mode integer,
                access integer[] NOT NULL DEFAULT '{}',
                version text NOT NULL,
                UNIQUE (host, path)
            );
            CREATE INDEX items_words ON items USING gin (words);
            CREATE INDEX items_name_trgm ON items USING gin (name gin_trgm_ops);
            CREATE INDEX items_types ON items USING gin (types);
            CREATE INDEX items_domain ON items (host, domain);
            CREATE INDEX items_path ON items (path);
            CREATE INDEX items_modified ON items (modified);
            CREATE INDEX items_size ON items (size);
            CREATE INDEX items_kind ON items (kind);
            CREATE INDEX items_expiration ON items (expiration) WHERE expiration IS NOT NULL;
            CREATE TABLE accounts (
                host text NOT NULL REFERENCES hosts ON DELETE CASCADE,
                role text NOT NULL,
                uid integer NOT NULL,
                gids integer[] NOT NULL,
                PRIMARY KEY (host, role)
            );
            -- May `uid` (in `gids`) do `need` (4 read, 1 search) to a file of owner, group and mode?
            CREATE FUNCTION fsindex_allows(uid integer, gids integer[], owner integer, grp integer, mode integer, need integer)
            RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT CASE WHEN uid = 0 THEN true
                            WHEN owner IS NULL OR mode IS NULL THEN false
                            WHEN uid = owner THEN (mode >> 6) & need <> 0
                            WHEN grp = ANY (gids) THEN (mode >> 3) & need <> 0
                            ELSE mode & need <> 0 END
            $$;
            -- Could the user read the item on its host: read the item itself, and search every folder above it.
            CREATE FUNCTION fsindex_readable(uid integer, gids integer[], owner integer, grp integer, mode integer, access integer[])
            RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT uid = 0 OR (fsindex_allows(uid, gids, owner, grp, mode, 4) AND NOT EXISTS (
                    SELECT 1 FROM generate_series(1, coalesce(array_length(access, 1), 0), 3) AS i
                    WHERE NOT fsindex_allows(uid, gids, access[i], access[i + 1], access[i + 2], 1)))
            $$;
            ALTER TABLE items ENABLE ROW LEVEL SECURITY;
            CREATE POLICY items_readable ON items FOR SELECT USING (EXISTS (
                SELECT 1 FROM accounts a
                WHERE a.host = items.host AND a.role = current_user
                  AND fsindex_readable(a.uid, a.gids, items.owner, items.grp, items.mode, items.access)));
            -- The policy reads accounts as the querying role; like /etc/passwd, it is readable by all.
            GRANT SELECT ON items, hosts, domains, accounts, fsindex_migrations TO PUBLIC;
            """),
        // What a watcher could not publish (issue 22, F3): one refused item or domain no longer
        // stops the others, and `fsindex status` says what was left out. Everyone may read that
        // a domain has failures, and why; the paths only the watchers' role (they name files
        // other users may not see).
        ("v2-failures", """
            CREATE TABLE failures (
                host text NOT NULL REFERENCES hosts ON DELETE CASCADE,
                domain text NOT NULL,
                path bytea NOT NULL,
                error text NOT NULL,
                at double precision NOT NULL,
                PRIMARY KEY (host, domain, path)
            );
            GRANT SELECT (host, domain, error, at) ON failures TO PUBLIC;
            """),
        // The shared index at 10 M items (issue 29): indexes in the order queries list their
        // results, so a LIMIT stops after the first rows instead of sorting every match.
        // - `items_modified_path`: the newest first, then the path (queries without words, `kind:`,
        //   `--sort modified`), replacing the plain `modified` index (it serves ranges too).
        // - `items_name_length`: shorter names first, then the path (`--name`), with the name and
        //   id, so the names are tested in the index alone (an index-only scan). Only rows whose
        //   path and name are under 1 KiB each: an index entry holds at most 2,704 bytes, and a
        //   longer row must not be refused for it; `items_long_names` lists the others.
        // - `items_name_trgm_12`, `_16`, `_24`: the trigram index again, cut by the name's length
        //   (under 12, 12–15, 16–23 characters), so `--name PART` takes the shortest matches
        //   from the first bands without sorting every match (`SharedNamePage`).
        // - `items_used`: the latest use, for the word ranking's boost ceiling (few rows have one).
        // - `items_words_rum`: the RUM index, which returns word matches best first, when the
        //   server has the `rum` extension and this role may create it (a superuser, or it was
        //   created beforehand); it replaces the GIN index on words, which it also does the work of. Without it,
        //   the GIN index stays, and a ranked word query reads every match (`SharedWordRanking`).
        //   The block is on one line: the migration is cut into statements at `;` + newline.
        ("v3-scale", """
            DROP INDEX IF EXISTS items_modified;
            CREATE INDEX items_modified_path ON items (modified DESC NULLS LAST, path);
            CREATE INDEX items_name_length ON items (length(name), path) INCLUDE (name, id) WHERE octet_length(path) < 1024 AND octet_length(name) < 1024;
            CREATE INDEX items_long_names ON items (id) WHERE octet_length(path) >= 1024 OR octet_length(name) >= 1024;
            CREATE INDEX items_name_trgm_12 ON items USING gin (name gin_trgm_ops) WHERE length(name) < 12;
            CREATE INDEX items_name_trgm_16 ON items USING gin (name gin_trgm_ops) WHERE length(name) >= 12 AND length(name) < 16;
            CREATE INDEX items_name_trgm_24 ON items USING gin (name gin_trgm_ops) WHERE length(name) >= 16 AND length(name) < 24;
            CREATE INDEX items_used ON items (used) WHERE used IS NOT NULL;
            DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'rum') THEN BEGIN CREATE EXTENSION IF NOT EXISTS rum; EXCEPTION WHEN insufficient_privilege THEN RAISE NOTICE 'fsindex: the rum extension cannot be created by %: ranked word queries read every match', current_user; END; END IF; IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'rum') THEN EXECUTE 'CREATE INDEX items_words_rum ON items USING rum (words rum_tsvector_ops)'; EXECUTE 'DROP INDEX items_words'; END IF; END $$;
            ANALYZE items;
            """),
        // POSIX ACLs (issue 29): each row's `acl` holds the access ACL entries of its file and
        // of the folders above it as (depth, tag, perm, id) quads (`FolderAccess`), and the
        // policy checks them as the kernel does (acl(5)). Only things named here are added or
        // replaced, whatever an earlier migration made of `items`. A row published before this
        // has `acl` NULL and keeps the old check (its mode was narrowed by the ACL, never
        // wider); the publisher sends such rows again, and every domain is compared again at
        // the next pass (its client state is dropped).
        ("v4-acl", """
            ALTER TABLE items ADD COLUMN IF NOT EXISTS acl integer[];
            UPDATE domains SET client_state = NULL;
            -- May `uid` (in `gids`) do `need` (4 read, 1 search) to the file or folder at `depth` of a row,
            -- of owner, group and mode, with the row's ACL entries? acl(5): the owner's bits; else a named
            -- user's entry, masked; else the owning group's and named groups' entries that match, masked,
            -- any of which may grant; else other's bits. Without entries at `depth`, the mode alone.
            CREATE OR REPLACE FUNCTION fsindex_allows(uid integer, gids integer[], owner integer, grp integer, mode integer, need integer,
                                                      acl integer[], depth integer)
            RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                WITH e AS (SELECT acl[i + 1] AS tag, acl[i + 2] AS perm, acl[i + 3] AS id
                           FROM generate_series(1, coalesce(array_length(acl, 1), 0), 4) AS i WHERE acl[i] = depth),
                     m AS (SELECT coalesce((SELECT perm FROM e WHERE tag = 16 LIMIT 1), 7) AS mask)
                SELECT CASE WHEN uid = 0 THEN true
                            WHEN owner IS NULL OR mode IS NULL THEN false
                            WHEN uid = owner THEN (mode >> 6) & need <> 0
                            WHEN NOT EXISTS (SELECT 1 FROM e) THEN fsindex_allows(uid, gids, owner, grp, mode, need)
                            WHEN EXISTS (SELECT 1 FROM e WHERE tag = 2 AND id = uid)
                                THEN EXISTS (SELECT 1 FROM e, m WHERE tag = 2 AND id = uid AND perm & m.mask & need <> 0)
                            WHEN grp = ANY (gids) OR EXISTS (SELECT 1 FROM e WHERE tag = 8 AND id = ANY (gids))
                                THEN EXISTS (SELECT 1 FROM e, m WHERE ((tag = 4 AND grp = ANY (gids)) OR (tag = 8 AND id = ANY (gids)))
                                                                  AND perm & m.mask & need <> 0)
                            ELSE mode & need <> 0 END
            $$;
            -- Could the user read the item on its host: read the item itself, and search every folder above
            -- it, ACLs counted. A row without ACL entries takes the check without them.
            CREATE OR REPLACE FUNCTION fsindex_readable(uid integer, gids integer[], owner integer, grp integer, mode integer,
                                                        access integer[], acl integer[])
            RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT CASE WHEN acl IS NULL OR cardinality(acl) = 0 THEN fsindex_readable(uid, gids, owner, grp, mode, access)
                            ELSE uid = 0 OR (fsindex_allows(uid, gids, owner, grp, mode, 4, acl, coalesce(array_length(access, 1), 0) / 3)
                                 AND NOT EXISTS (SELECT 1 FROM generate_series(1, coalesce(array_length(access, 1), 0), 3) AS i
                                                 WHERE NOT fsindex_allows(uid, gids, access[i], access[i + 1], access[i + 2], 1, acl, (i - 1) / 3)))
                            END
            $$;
            -- `acl` without its quads of depths `first` to `last`, and `entries` added: a folder's new ACL
            -- in the rows below it.
            CREATE OR REPLACE FUNCTION fsindex_acl_replace(acl integer[], first integer, last integer, entries integer[])
            RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT coalesce((SELECT array_agg(acl[i + k] ORDER BY i, k)
                                 FROM generate_series(1, coalesce(array_length(acl, 1), 0), 4) AS i, generate_series(0, 3) AS k
                                 WHERE acl[i] < first OR acl[i] > last), '{}') || coalesce(entries, '{}')
            $$;
            DROP POLICY IF EXISTS items_readable ON items;
            -- Any other reading policy an earlier migration may have put on items goes too: policies are
            -- ORed, and one that reads the mode alone would show what an ACL entry denies.
            DO $$ DECLARE p record; BEGIN FOR p IN SELECT policyname FROM pg_policies WHERE schemaname = current_schema() AND tablename = 'items' AND cmd IN ('SELECT', 'ALL') AND permissive = 'PERMISSIVE' LOOP EXECUTE format('DROP POLICY %I ON items', p.policyname); END LOOP; END $$;
            CREATE POLICY items_readable ON items FOR SELECT USING (EXISTS (
                SELECT 1 FROM accounts a
                WHERE a.host = items.host AND a.role = current_user
                  AND fsindex_readable(a.uid, a.gids, items.owner, items.grp, items.mode, items.access, items.acl)))
            """),
    ]

    /// The index that gives word matches best first, when the server has it.
    package static let rankedWordsIndex = "items_words_rum"

    /// Creates or upgrades the schema. Several watchers may start at once: an advisory lock
    /// makes them take turns, and each sees what the one before did. `through`: stop after that
    /// migration (tests make the database an older fsindex left, to upgrade it).
    package static func migrate(_ link: PostgresLink, through last: String? = nil) throws(SharedIndexError) {
        try link.execute("SELECT pg_advisory_lock(7400115)")
        defer { try? link.execute("SELECT pg_advisory_unlock(7400115)") }
        try link.execute("CREATE TABLE IF NOT EXISTS fsindex_migrations (id text PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())")
        let applied = Set(try link.query("SELECT id FROM fsindex_migrations").compactMap { $0.value("id", as: String.self) })
        let known = Set(migrations.map(\.id))
        let unknown = applied.subtracting(known)
        if !unknown.isEmpty { throw .schemaTooNew(url: link.url.description, unknownMigrations: unknown.sorted()) }
        let upTo = last.flatMap { id in migrations.firstIndex { $0.id == id } } ?? migrations.count - 1
        for m in migrations[...upTo] where !applied.contains(m.id) {
            try link.transaction { () throws(SharedIndexError) in
                // One statement at a time: the extended protocol takes no more (no migration
                // has a `;` at the end of a line but between statements).
                for statement in m.sql.split(separator: ";\n") where !statement.allSatisfy(\.isWhitespace) {
                    try link.execute(String(statement))
                }
                try link.query("INSERT INTO fsindex_migrations(id) VALUES ($1)", [.text(m.id)])
            }
        }
    }

    /// Checks, for a reader, that the schema is there and not newer than this fsindex, and
    /// tells what it has, in the same round trip.
    @discardableResult
    package static func check(_ link: PostgresLink) throws(SharedIndexError) -> Features {
        let rows: [PostgresRowLike]
        do {
            rows = try link.query("SELECT id, to_regclass('\(rankedWordsIndex)') IS NOT NULL AS ranked FROM fsindex_migrations").map {
                PostgresRowLike(id: $0.value("id", as: String.self), ranked: $0.value("ranked", as: Bool.self) ?? false)
            }
        } catch {
            if case .server(_, "42P01", _) = error {
                throw .server(url: link.url.description, code: "42P01", message: "there is no index in this database yet; run `fsindex publish` or start fsindexd with this URL")
            }
            throw error
        }
        let unknown = Set(rows.compactMap(\.id)).subtracting(migrations.map(\.id))
        if !unknown.isEmpty { throw .schemaTooNew(url: link.url.description, unknownMigrations: unknown.sorted()) }
        return Features(rankedWords: rows.contains { $0.ranked })
    }

    /// What a reader may count on in the shared index it reads.
    package struct Features: Sendable, Hashable {
        /// The RUM index on words (`rankedWordsIndex`), which gives word matches best first.
        package var rankedWords: Bool
        package init(rankedWords: Bool) { self.rankedWords = rankedWords }
    }

    struct PostgresRowLike { var id: String?; var ranked: Bool }

    /// Whether migration `id` was applied (a reader may meet a database no watcher has upgraded yet).
    static func has(_ id: String, _ link: PostgresLink) -> Bool {
        ((try? link.query("SELECT 1 FROM fsindex_migrations WHERE id = $1", [.text(id)]))?.isEmpty == false)
    }
}
