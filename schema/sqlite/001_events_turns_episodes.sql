-- The event log, the turn index it projects to, and episodes.
--
-- `events` is append-only: rows are never updated, and the only rows that may be deleted are
-- those older than the retention watermark that `prune` raises in the same transaction.
-- `seq` is the commit order (AUTOINCREMENT: never reused, even after retention);
-- `id` is the event's portable identity, kept across export and import.
-- Times are integer microseconds since the Unix epoch, UTC.

CREATE TABLE events (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    id        TEXT    NOT NULL UNIQUE,
    ts        INTEGER NOT NULL,
    type      TEXT    NOT NULL,
    turn_id   TEXT,
    workspace TEXT,
    prov      TEXT    NOT NULL DEFAULT 'RUNTIME' CHECK (prov = 'RUNTIME'),
    payload   TEXT    NOT NULL CHECK (json_valid(payload))
);

-- Each index keeps (column, ts) so "newest first" filtered reads walk one index backwards.
CREATE INDEX events_ts ON events (ts);
CREATE INDEX events_type_ts ON events (type, ts);
CREATE INDEX events_turn_ts ON events (turn_id, ts) WHERE turn_id IS NOT NULL;
CREATE INDEX events_workspace_ts ON events (workspace, ts) WHERE workspace IS NOT NULL;

-- One row: events with ts < pruned_before may be deleted (and have been).
CREATE TABLE retention (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    pruned_before INTEGER NOT NULL
);
INSERT INTO retention (id, pruned_before) VALUES (1, 0);

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: events cannot be changed');
END;

CREATE TRIGGER events_delete_only_by_retention BEFORE DELETE ON events
WHEN OLD.ts >= (SELECT pruned_before FROM retention WHERE id = 1)
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: only retention may delete events');
END;

-- The turn index: a projection of TurnOpened / TurnKeysSet / TurnTouched / StickyBound
-- events, written in the same transaction as the event, so it survives event retention.
CREATE TABLE turns (
    id         TEXT    PRIMARY KEY,
    family_id  TEXT    NOT NULL,
    parent_id  TEXT    REFERENCES turns (id),
    workspace  TEXT    NOT NULL,
    session_id TEXT,
    opened_at  INTEGER NOT NULL,
    keys       TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(keys)),
    mirrored   INTEGER NOT NULL DEFAULT 0  -- 1 once the node and its IN_TURN edge are in Neo4j
);
CREATE INDEX turns_family ON turns (family_id, opened_at);
CREATE INDEX turns_session ON turns (session_id, opened_at) WHERE session_id IS NOT NULL;
CREATE INDEX turns_opened ON turns (opened_at);
CREATE INDEX turns_unmirrored ON turns (id) WHERE mirrored = 0;

CREATE TABLE touched (
    turn_id   TEXT    NOT NULL REFERENCES turns (id),
    entity_id TEXT    NOT NULL,
    at        INTEGER NOT NULL,
    mirrored  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (turn_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX touched_unmirrored ON touched (turn_id) WHERE mirrored = 0;

CREATE TABLE sticky (
    family_id TEXT    PRIMARY KEY,
    route     TEXT    NOT NULL,
    bound_at  INTEGER NOT NULL,
    event_id  TEXT    NOT NULL
);

CREATE TABLE episodes (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT    NOT NULL,
    workspace  TEXT,
    turn_id    TEXT,
    summary    TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX episodes_created ON episodes (created_at);
CREATE INDEX episodes_session ON episodes (session_id, created_at);
