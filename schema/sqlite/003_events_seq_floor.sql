-- `events.seq` without AUTOINCREMENT: keeping `sqlite_sequence` up to date wrote one more
-- page on every commit. The promise stays the same: a seq, once given, is never given again,
-- even after retention deleted the event that had it. Instead of `sqlite_sequence`,
-- `retention.seq_floor` keeps the highest seq ever deleted (or, after this migration, ever
-- given), and a new event's seq is max(seq_floor, max(seq)) + 1 (see `ContextStore`).

ALTER TABLE retention ADD COLUMN seq_floor INTEGER NOT NULL DEFAULT 0;

UPDATE retention
SET seq_floor = coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)
WHERE id = 1;

CREATE TABLE events_rebuilt (
    seq       INTEGER PRIMARY KEY,
    id        TEXT    NOT NULL UNIQUE,
    ts        INTEGER NOT NULL,
    type      TEXT    NOT NULL,
    turn_id   TEXT,
    workspace TEXT,
    prov      TEXT    NOT NULL DEFAULT 'RUNTIME' CHECK (prov = 'RUNTIME'),
    payload   TEXT    NOT NULL CHECK (json_valid(payload))
);

INSERT INTO events_rebuilt (seq, id, ts, type, turn_id, workspace, prov, payload)
SELECT seq, id, ts, type, turn_id, workspace, prov, payload FROM events ORDER BY seq;

-- Dropping a table fires no triggers; it takes its indexes, triggers and sqlite_sequence row.
DROP TABLE events;
ALTER TABLE events_rebuilt RENAME TO events;

-- Each index keeps (column, ts) so "newest first" filtered reads walk one index backwards.
CREATE INDEX events_ts ON events (ts);
CREATE INDEX events_type_ts ON events (type, ts);
CREATE INDEX events_turn_ts ON events (turn_id, ts) WHERE turn_id IS NOT NULL;
CREATE INDEX events_workspace_ts ON events (workspace, ts) WHERE workspace IS NOT NULL;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: events cannot be changed');
END;

CREATE TRIGGER events_delete_only_by_retention BEFORE DELETE ON events
WHEN OLD.ts >= (SELECT pruned_before FROM retention WHERE id = 1)
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: only retention may delete events');
END;

-- A deleted event's seq stays used.
CREATE TRIGGER events_deleted_seq_stays_used AFTER DELETE ON events
WHEN OLD.seq > (SELECT seq_floor FROM retention WHERE id = 1)
BEGIN
    UPDATE retention SET seq_floor = OLD.seq WHERE id = 1;
END;

-- Every insert names its seq, above the floor (an omitted seq reads as -1 here).
CREATE TRIGGER events_seq_never_reused BEFORE INSERT ON events
WHEN NEW.seq <= (SELECT seq_floor FROM retention WHERE id = 1)
BEGIN
    SELECT RAISE(ABORT, 'events.seq must be above retention.seq_floor: a seq is never given twice');
END;
