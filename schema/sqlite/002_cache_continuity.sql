-- The content cache and the per-workspace continuity record.
-- Times are integer microseconds since the Unix epoch, UTC.

-- One row per distinct content, keyed by the SHA-256 of the original bytes.
-- `size_bytes` counts the original AND the derived form: the byte ceiling is about what we
-- keep, not about one of its representations.
CREATE TABLE cache_entries (
    id             INTEGER PRIMARY KEY,
    hash           TEXT    NOT NULL UNIQUE CHECK (length(hash) = 64),
    kind           TEXT    NOT NULL CHECK (kind IN ('text', 'binary')),
    label          TEXT,
    original       BLOB    NOT NULL,
    derived        BLOB,
    original_bytes INTEGER NOT NULL,
    derived_bytes  INTEGER NOT NULL DEFAULT 0,
    size_bytes     INTEGER GENERATED ALWAYS AS (original_bytes + derived_bytes) STORED,
    line_count     INTEGER NOT NULL,
    searchable     INTEGER NOT NULL DEFAULT 0,
    index_note     TEXT,                 -- why the entry is not searchable, when it is not
    pinned         INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    accessed_at    INTEGER NOT NULL,     -- LRU order: store, repeat, expand and pin touch it
    sent_at        INTEGER               -- when the full content was last handed out
);
CREATE INDEX cache_entries_lru ON cache_entries (accessed_at) WHERE pinned = 0;
CREATE INDEX cache_entries_pinned ON cache_entries (pinned) WHERE pinned = 1;

-- Full-text index over searchable originals (the label, then the text); rowid =
-- cache_entries.id. One column: BM25 costs per column and per matching row.
CREATE VIRTUAL TABLE cache_search USING fts5 (
    body,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- Running totals kept by triggers so eviction never scans the whole table.
-- The row is absent when the cache is empty.
CREATE TABLE cache_totals (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    entries      INTEGER NOT NULL,
    bytes        INTEGER NOT NULL,
    pinned_bytes INTEGER NOT NULL
);

CREATE TRIGGER cache_entries_counted_in AFTER INSERT ON cache_entries
BEGIN
    INSERT INTO cache_totals (id, entries, bytes, pinned_bytes)
    VALUES (1, 1, NEW.size_bytes, CASE WHEN NEW.pinned THEN NEW.size_bytes ELSE 0 END)
    ON CONFLICT (id) DO UPDATE SET
        entries = entries + 1,
        bytes = bytes + NEW.size_bytes,
        pinned_bytes = pinned_bytes + CASE WHEN NEW.pinned THEN NEW.size_bytes ELSE 0 END;
END;

-- Deleting an entry removes its search row too: recall can never point at missing content.
CREATE TRIGGER cache_entries_counted_out AFTER DELETE ON cache_entries
BEGIN
    UPDATE cache_totals SET
        entries = entries - 1,
        bytes = bytes - OLD.size_bytes,
        pinned_bytes = pinned_bytes - CASE WHEN OLD.pinned THEN OLD.size_bytes ELSE 0 END
    WHERE id = 1;
    DELETE FROM cache_search WHERE rowid = OLD.id;
END;

CREATE TRIGGER cache_entries_recounted AFTER UPDATE OF original_bytes, derived_bytes, pinned
ON cache_entries
BEGIN
    UPDATE cache_totals SET
        bytes = bytes - OLD.size_bytes + NEW.size_bytes,
        pinned_bytes = pinned_bytes
            - CASE WHEN OLD.pinned THEN OLD.size_bytes ELSE 0 END
            + CASE WHEN NEW.pinned THEN NEW.size_bytes ELSE 0 END
    WHERE id = 1;
END;

-- Markers: `compacted_at` = the consumer compacted its context; references handed out
-- before it are no longer answered.
CREATE TABLE cache_markers (
    name  TEXT    PRIMARY KEY,
    value INTEGER NOT NULL
);

-- Counters (hits, misses, stores, evictions, ...). Reset scope `stats` clears only this.
CREATE TABLE cache_stats (
    name  TEXT    PRIMARY KEY,
    value INTEGER NOT NULL
);

-- The continuity record: one ring per workspace of user turns, delegate outcomes and
-- `[session summary]` entries. `session` is the calling session's identity, also for a
-- delegate outcome (`delegate` names who did the work). `seq` orders the ring.
CREATE TABLE continuity_entries (
    id         INTEGER PRIMARY KEY,
    workspace  TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('turn', 'outcome', 'summary')),
    session    TEXT    NOT NULL,
    delegate   TEXT,
    flagged    INTEGER NOT NULL DEFAULT 0,
    text       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (workspace, seq)
);

-- What compaction and the ring did to a workspace's record, so nothing leaves silently.
CREATE TABLE continuity_log (
    id        INTEGER PRIMARY KEY,
    workspace TEXT    NOT NULL,
    at        INTEGER NOT NULL,
    action    TEXT    NOT NULL CHECK (action IN ('compacted', 'ring_dropped')),
    entries   INTEGER NOT NULL,     -- how many entries were folded or dropped
    source    TEXT,                 -- which summary source wrote the summary
    note      TEXT                  -- failures of earlier sources, what was dropped
);
CREATE INDEX continuity_log_workspace ON continuity_log (workspace, at);
