"""The content cache: originals and derived forms keyed by SHA-256, references, recall, pins.

A caller hands content to `ContentCache.store()`. The first time (and whenever the consumer
may no longer hold it) the answer carries the content itself; a repeat inside the freshness
window carries only a `§ref:HASH§` reference. A reference is a promise that the consumer
saw the body recently, nothing more, so it expires: after `cache.freshness_s` seconds, and
for every reference handed out before a compaction marker (`mark_compaction()`), the full
content is sent again. Pins keep an entry from eviction; they do not extend freshness.

Recovery is explicit: `expand()` returns the original bytes by hash prefix (optionally a
line range); `recall()` searches stored text with FTS5 BM25 and returns snippets with refs.

Eviction is least-recently-used down to `cache.max_bytes`, counting originals AND derived
forms, and never touches a pinned entry. Text that cannot be indexed (binary, NUL bytes,
empty, larger than `cache.index_cap_bytes`) is stored and expandable, and the answer says it
is not searchable and why; a failing index write is reported the same way.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from graphsvc.context import db
from graphsvc.context.db import Int64, Micros
from graphsvc.errors import AmbiguousError, InputError, NotFoundError
from graphsvc.lazy import Lazy

log = logging.getLogger(__name__)

REF_CHARS = 16
MIN_PREFIX = 4
RECALL_MIN, RECALL_MAX = 1, 50
SNIPPET_TOKENS = 24
_REF = re.compile(r"^(?:§ref:)?([0-9a-fA-F]+)§?$")
_WORD = re.compile(r"\w+", re.UNICODE)
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
RECALL_SCAN = 1500  # rows one recall ranks with BM25 at most (a few ms)

# What each reset scope clears: exactly these tables, nothing else. `everything` is every
# table of the cache and the continuity record; the event log, turns and episodes belong to
# another part of the store and no cache reset touches them.
RESET_SCOPES: dict[str, tuple[str, ...]] = {
    "cache": ("cache_entries", "cache_search", "cache_totals", "cache_markers"),
    "stats": ("cache_stats",),
    "everything": (
        "cache_entries",
        "cache_search",
        "cache_totals",
        "cache_markers",
        "cache_stats",
        "continuity_entries",
        "continuity_log",
    ),
}

# What the cache counts (rows of `cache_stats`) and the type of each count.
COUNTERS: dict[str, Any] = {
    "stores": int,
    "hits": int,
    "misses": int,
    "expands": int,
    "recalls": int,
    "evictions": int,
    "evicted_bytes": Int64,
    "index_failures": int,
}


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_ref(hash_: str) -> str:
    return f"§ref:{hash_[:REF_CHARS]}§"


@dataclass
class StoreResult:
    hash: str
    ref: str
    sent: Literal["full", "ref"]  # "full": `payload` is the content; "ref": `payload` is the reference
    payload: str | bytes
    kind: str
    original_bytes: int
    derived_bytes: int
    searchable: bool
    index_note: str | None
    pinned: bool
    evicted: int = 0


@dataclass
class Expanded:
    hash: str
    ref: str
    kind: str
    label: str | None
    form: str  # "original" or "derived"
    content: bytes
    first_line: int
    last_line: int
    total_lines: int

    @property
    def text(self) -> str | None:
        try:
            return self.content.decode("utf-8")
        except UnicodeDecodeError:
            return None


@dataclass
class RecallHit:
    hash: str
    ref: str
    label: str | None
    snippet: str
    score: float


class RecallHits(list):
    """Recall hits, best first; `exhaustive` is False when ranking was bounded (see `recall`)."""

    exhaustive: bool = True
    note: str | None = None

    def text(self) -> str:
        lines = [f"{h.ref}  {h.label or '-'}  {h.snippet}" for h in self] or ["no matches"]
        return "\n".join(lines + ([self.note] if self.note else []))


@dataclass
class EntryInfo:
    hash: str
    ref: str
    kind: str
    label: str | None
    size_bytes: int
    original_bytes: int
    derived_bytes: int
    searchable: bool
    index_note: str | None
    pinned: bool
    created_at: Micros
    accessed_at: Micros


@dataclass
class CacheStats:
    entries: int
    bytes: Int64
    max_bytes: Int64
    pinned_entries: int
    pinned_bytes: Int64
    searchable_entries: int
    counters: dict[str, int] = field(default_factory=dict)  # every one of COUNTERS

    @property
    def hits(self) -> int:
        return self.counters.get("hits", 0)

    @property
    def evictions(self) -> int:
        return self.counters.get("evictions", 0)

    def as_dict(self) -> dict:
        return asdict(self)


def parse_line_range(spec: str | tuple[int, int] | None) -> tuple[int, int] | None:
    """`"10-20"`, `"10:20"`, `"10-"`, `"7"` or `(10, 20)`: 1-based, inclusive."""
    if spec is None or spec == "":
        return None
    if isinstance(spec, tuple):
        start, end = spec
    else:
        match = re.fullmatch(r"\s*(\d+)\s*(?:([-:])\s*(\d*)\s*)?", spec)
        if not match:
            raise InputError(f"line range {spec!r}: expected START-END, START- or LINE (1-based)")
        start = int(match.group(1))
        if match.group(2) is None:
            end = start
        else:
            end = int(match.group(3)) if match.group(3) else 0  # 0: to the last line
    if start < 1 or (end and end < start):
        raise InputError(f"line range {spec!r}: lines start at 1 and END must not precede START")
    return start, end


def fts_phrases(text: str) -> list[str]:
    """Each word of free text as a quoted FTS5 string: `AND`, `NEAR`, `*`, `"`, `:` are data."""
    words = dict.fromkeys(_WORD.findall(text))
    return ['"' + word.replace('"', '""') + '"' for word in words]


def fts_query(text: str) -> str:
    """Free text as an FTS5 query that can never be a syntax error: its words joined by OR.

    BM25 then ranks entries matching more and rarer words first.
    """
    return " OR ".join(fts_phrases(text))


def snippet(text: str, wanted: set[str], width: int = SNIPPET_TOKENS) -> str:
    """About `width` tokens around the first token in `wanted`, hits in [brackets]."""
    before: list[re.Match] = []
    lead = width // 4
    window: list[re.Match] = []
    found = False
    for match in _TOKEN.finditer(text):
        if not found:
            if _fold(match.group()) in wanted:
                found = True
                window = before[-lead:] + [match]
            else:
                before.append(match)
                if len(before) > lead:
                    del before[0]
            continue
        window.append(match)
        if len(window) >= width:
            break
    if not found:
        return text[:200]
    start, end = window[0].start(), window[-1].end()
    out, pos = [], start
    for match in window:
        out.append(text[pos : match.start()])
        word = match.group()
        out.append(f"[{word}]" if _fold(word) in wanted else word)
        pos = match.end()
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text.rstrip()) else ""
    return prefix + "".join(out) + suffix


def _fold(word: str) -> str:
    if word.isascii():
        return word.lower()
    folded = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in folded if not unicodedata.combining(ch))


def _index_tokens(word: str) -> list[str]:
    """The index's tokens for a word (unicode61, remove_diacritics 2: folded, no accents)."""
    return _TOKEN.findall(_fold(word.replace('""', '"')))


class ContentCache(db.Connected):
    """The content cache over one SQLite connection (thread-safe)."""

    what = "the content cache"
    _vocab_ready = False  # set once the FTS vocabulary table exists

    # -- plumbing -------------------------------------------------------------------------

    def _bump(self, conn: sqlite3.Connection, name: str, by: int = 1) -> None:
        conn.execute(
            "INSERT INTO cache_stats (name, value) VALUES (?, ?) "
            "ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
            (name, by),
        )

    def _marker(self, conn: sqlite3.Connection, name: str) -> int:
        row = conn.execute("SELECT value FROM cache_markers WHERE name = ?", (name,)).fetchone()
        return row[0] if row else 0

    def _resolve(self, conn: sqlite3.Connection, prefix: str) -> sqlite3.Row:
        match = _REF.match(prefix.strip())
        if not match:
            raise InputError(
                f"{prefix!r} is not a hash prefix: give hex digits or a §ref:HASH§ reference"
            )
        hex_prefix = match.group(1).lower()
        if len(hex_prefix) < MIN_PREFIX:
            raise InputError(f"hash prefix {hex_prefix!r} is too short: give at least {MIN_PREFIX} hex digits")
        rows = conn.execute(
            "SELECT * FROM cache_entries WHERE hash >= ? AND hash < ? ORDER BY hash LIMIT 11",
            (hex_prefix, hex_prefix + "g"),
        ).fetchall()
        if not rows:
            raise NotFoundError(f"no cached content has a hash starting with {hex_prefix}")
        if len(rows) > 1:
            candidates = [f"{r['hash']} {r['label'] or ''}".rstrip() for r in rows[:10]]
            count = "more than 10" if len(rows) > 10 else str(len(rows))
            raise AmbiguousError(
                f"hash prefix {hex_prefix} matches {count} entries; give more digits", candidates
            )
        return rows[0]

    # -- store ----------------------------------------------------------------------------

    def store(
        self,
        content: str | bytes,
        *,
        derived: str | bytes | None = None,
        label: str | None = None,
        pin: bool = False,
    ) -> StoreResult:
        """Keep `content` (and its derived form); answer with the content or a reference."""
        original = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        derived_b = derived.encode("utf-8") if isinstance(derived, str) else derived
        derived_b = bytes(derived_b) if derived_b is not None else None
        size = len(original) + len(derived_b or b"")
        ceiling = self.settings.cache.max_bytes
        if size > ceiling:
            raise InputError(
                f"content of {size} bytes (original and derived form) exceeds the cache ceiling "
                f"cache.max_bytes={ceiling}; raise the ceiling or store less"
            )
        hash_ = content_hash(original)
        text = _decode_text(original)
        kind = "text" if text is not None else "binary"
        now = self._clock()
        freshness_us = int(self.settings.cache.freshness_s * 1_000_000)
        with self._write() as conn:
            row = conn.execute(
                "SELECT id, sent_at, pinned, searchable, index_note, derived_bytes, derived "
                "FROM cache_entries WHERE hash = ?",
                (hash_,),
            ).fetchone()
            self._bump(conn, "stores")
            if row is not None:
                return self._repeat(conn, row, hash_, kind, original, derived_b, label, pin, now, freshness_us)
            cur = conn.execute(
                "INSERT INTO cache_entries (hash, kind, label, original, derived, original_bytes, "
                "derived_bytes, line_count, pinned, created_at, accessed_at, sent_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    hash_,
                    kind,
                    label,
                    original,
                    derived_b,
                    len(original),
                    len(derived_b or b""),
                    _line_count(original),
                    int(pin),
                    now,
                    now,
                    now,
                ),
            )
            entry_id = cur.lastrowid
            searchable, note = self._index(conn, entry_id, text, original, label)
            self._bump(conn, "misses")
            evicted = self._evict(conn, keep_id=entry_id)
        return StoreResult(
            hash=hash_,
            ref=make_ref(hash_),
            sent="full",
            payload=_payload(derived_b, original, text),
            kind=kind,
            original_bytes=len(original),
            derived_bytes=len(derived_b or b""),
            searchable=searchable,
            index_note=note,
            pinned=pin,
            evicted=evicted,
        )

    def _repeat(self, conn, row, hash_, kind, original, derived_b, label, pin, now, freshness_us):
        compacted_at = self._marker(conn, "compacted_at")
        sent_at = row["sent_at"]
        fresh = sent_at is not None and sent_at > compacted_at and now - sent_at < freshness_us
        updates = {"accessed_at": now}
        if derived_b is not None and derived_b != row["derived"]:
            updates["derived"] = derived_b
            updates["derived_bytes"] = len(derived_b)
        if label:
            updates["label"] = label
        if pin:
            updates["pinned"] = 1
        if not fresh:
            updates["sent_at"] = now
        sets = ", ".join(f"{name} = ?" for name in updates)
        conn.execute(f"UPDATE cache_entries SET {sets} WHERE id = ?", (*updates.values(), row["id"]))
        self._bump(conn, "hits" if fresh else "misses")
        evicted = self._evict(conn, keep_id=row["id"]) if "derived" in updates else 0
        current_derived = updates.get("derived", row["derived"])
        return StoreResult(
            hash=hash_,
            ref=make_ref(hash_),
            sent="ref" if fresh else "full",
            payload=make_ref(hash_) if fresh else _payload(current_derived, original, _decode_text(original)),
            kind=kind,
            original_bytes=len(original),
            derived_bytes=len(current_derived or b""),
            searchable=bool(row["searchable"]),
            index_note=row["index_note"],
            pinned=bool(pin or row["pinned"]),
            evicted=evicted,
        )

    def _index(self, conn, entry_id: int, text: str | None, original: bytes, label: str | None):
        note = _unsearchable_reason(text, original, self.settings.cache.index_cap_bytes)
        if note is None:
            try:
                conn.execute("SAVEPOINT cache_index")
                conn.execute(
                    "INSERT INTO cache_search (rowid, body) VALUES (?, ?)",
                    (entry_id, f"{label}\n{text}" if label else text),
                )
                conn.execute("RELEASE cache_index")
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK TO cache_index")
                conn.execute("RELEASE cache_index")
                note = f"indexing failed: {exc}"
                self._bump(conn, "index_failures")
                log.warning("content cache: entry %s stored but not searchable: %s", entry_id, note)
        conn.execute(
            "UPDATE cache_entries SET searchable = ?, index_note = ? WHERE id = ?",
            (int(note is None), note, entry_id),
        )
        return note is None, note

    def _evict(self, conn: sqlite3.Connection, keep_id: int) -> int:
        """Drop least-recently-used unpinned entries until the ceiling holds."""
        ceiling = self.settings.cache.max_bytes
        total = conn.execute("SELECT bytes FROM cache_totals WHERE id = 1").fetchone()
        excess = (total[0] if total else 0) - ceiling
        evicted = freed = 0
        while excess > 0:
            victims = conn.execute(
                "SELECT id, size_bytes FROM cache_entries WHERE pinned = 0 AND id != ? "
                "ORDER BY accessed_at LIMIT 64",
                (keep_id,),
            ).fetchall()
            if not victims:
                log.warning(
                    "content cache is %d bytes over cache.max_bytes and everything left is pinned "
                    "or just stored; unpin entries to make room",
                    excess,
                )
                break
            for victim in victims:
                conn.execute("DELETE FROM cache_entries WHERE id = ?", (victim["id"],))
                evicted += 1
                freed += victim["size_bytes"]
                excess -= victim["size_bytes"]
                if excess <= 0:
                    break
        if evicted:
            self._bump(conn, "evictions", evicted)
            self._bump(conn, "evicted_bytes", freed)
        return evicted

    # -- recovery -------------------------------------------------------------------------

    def expand(
        self,
        prefix: str,
        line_range: str | tuple[int, int] | None = None,
        *,
        derived: bool = False,
    ) -> Expanded:
        """The original bytes (or the derived form) of the entry whose hash starts with `prefix`."""
        lines = parse_line_range(line_range)
        with self._write() as conn:
            row = self._resolve(conn, prefix)
            conn.execute(
                "UPDATE cache_entries SET accessed_at = ? WHERE id = ?", (self._clock(), row["id"])
            )
            self._bump(conn, "expands")
        if derived:
            if row["derived"] is None:
                raise NotFoundError(f"{make_ref(row['hash'])} has no derived form; expand the original")
            content, form = bytes(row["derived"]), "derived"
        else:
            content, form = bytes(row["original"]), "original"
        all_lines = content.splitlines(keepends=True)
        total = len(all_lines)
        first, last = 1, total
        if lines is not None:
            start, end = lines
            if start > max(total, 1):
                raise InputError(
                    f"line range starts at {start} but {make_ref(row['hash'])} has {total} lines"
                )
            first, last = start, min(end or total, total)
            content = b"".join(all_lines[first - 1 : last])
        return Expanded(
            hash=row["hash"],
            ref=make_ref(row["hash"]),
            kind=row["kind"],
            label=row["label"],
            content=content,
            form=form,
            first_line=first if total else 0,
            last_line=last,
            total_lines=total,
        )

    def recall(self, query: str, limit: int = 10) -> RecallHits:
        """Stored text ranked by FTS5 BM25 against `query`, with snippets and refs.

        BM25 costs a few microseconds per matching row, so one query scores at most
        `RECALL_SCAN` rows. Query words are taken rarest first until that many rows are
        covered; the more common words left out carry the least weight (IDF) anyway. When even
        the rarest word matches more rows, the newest `RECALL_SCAN` of them are ranked. In both
        cases the result's `exhaustive` is False and `note` says what was left out.
        """
        limit = max(RECALL_MIN, min(RECALL_MAX, int(limit)))
        phrases = fts_phrases(query)
        if not phrases:
            raise InputError(f"recall query {query!r} has no words to search for")
        hits = RecallHits()
        with self._read():
            try:
                match, bound = self._plan_recall(phrases, hits)
                if match is None:
                    return hits
                top = self.conn.execute(
                    "SELECT rowid, bm25(cache_search) AS score FROM cache_search "
                    "WHERE cache_search MATCH ? AND rowid >= ? ORDER BY score LIMIT ?",
                    (match, bound, limit),
                ).fetchall()
                # Snippets for the winners only, cut from the stored text around the first hit;
                # FTS5's snippet() costs a query per row.
                marks = ",".join("?" * len(top))
                stored = {
                    row["id"]: row
                    for row in self.conn.execute(
                        f"SELECT id, hash, label, original FROM cache_entries WHERE id IN ({marks})",
                        [rowid for rowid, _ in top],
                    )
                }
                wanted = {t for phrase in match.split(" OR ") for t in _index_tokens(phrase[1:-1])}
                for rowid, score in top:
                    row = stored.get(rowid)
                    if row is not None:
                        hits.append(
                            RecallHit(
                                hash=row["hash"],
                                ref=make_ref(row["hash"]),
                                label=row["label"],
                                snippet=snippet(bytes(row["original"]).decode("utf-8"), wanted),
                                score=-score,  # FTS5 bm25: lower is better; we report higher
                            )
                        )
            except sqlite3.OperationalError as exc:
                # The query is quoted data, so this is the store failing, not the user's syntax.
                raise db.store_error(db.path_of(self.conn), "recall failed in the search index", exc) from exc
            with self._write() as conn:
                self._bump(conn, "recalls")
        return hits

    def _plan_recall(self, phrases: list[str], hits: RecallHits) -> tuple[str | None, int]:
        """Choose the words to rank by and the lowest rowid to scan (see `recall`)."""
        self._ensure_vocab()
        rows = {}
        for phrase in phrases:
            tokens = _index_tokens(phrase[1:-1].replace('""', '"'))
            counts = [
                (r[0] if r else 0)
                for r in (
                    self.conn.execute("SELECT doc FROM temp.cache_terms WHERE term = ?", (t,)).fetchone()
                    for t in tokens
                )
            ]
            rows[phrase] = min(counts) if counts else 0  # a phrase is no commoner than its rarest word
        usable = sorted((p for p in phrases if rows[p]), key=lambda p: rows[p])
        if not usable:
            return None, 0
        chosen, covered = [], 0
        for phrase in usable:
            if chosen and covered + rows[phrase] > RECALL_SCAN:
                break
            chosen.append(phrase)
            covered += rows[phrase]
        dropped = usable[len(chosen) :]
        notes = []
        if dropped:
            notes.append(f"ranked without the common words {', '.join(dropped)}")
        match = " OR ".join(chosen)
        bound = 0
        if covered > RECALL_SCAN:
            row = self.conn.execute(
                "SELECT rowid FROM cache_search WHERE cache_search MATCH ? "
                "ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                (match, RECALL_SCAN - 1),
            ).fetchone()
            bound = row[0] if row else 0
            notes.append(f"{match} matches about {covered} entries; ranked the newest {RECALL_SCAN}")
        if notes:
            hits.exhaustive = False
            hits.note = "; ".join(notes)
        return match, bound

    def _ensure_vocab(self) -> None:
        # Per connection and temporary: a read-only view of the index's per-term row counts.
        if self._vocab_ready:
            return
        self.conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.cache_terms USING fts5vocab(main, cache_search, row)"
        )
        self._vocab_ready = True

    # -- pins, markers --------------------------------------------------------------------

    def pin(self, prefix: str) -> EntryInfo:
        return self._set_pin(prefix, True)

    def unpin(self, prefix: str) -> EntryInfo:
        return self._set_pin(prefix, False)

    def _set_pin(self, prefix: str, pinned: bool) -> EntryInfo:
        with self._write() as conn:
            row = self._resolve(conn, prefix)
            conn.execute(
                "UPDATE cache_entries SET pinned = ?, accessed_at = ? WHERE id = ?",
                (int(pinned), self._clock(), row["id"]),
            )
            if not pinned:
                self._evict(conn, keep_id=-1)
            row = conn.execute(
                "SELECT * FROM cache_entries WHERE id = ?", (row["id"],)
            ).fetchone()
        return _info(row)

    def pins(self) -> list[EntryInfo]:
        with self._read():
            rows = self.conn.execute(
                "SELECT * FROM cache_entries WHERE pinned = 1 ORDER BY accessed_at DESC"
            ).fetchall()
        return [_info(row) for row in rows]

    def info(self, prefix: str) -> EntryInfo:
        with self._read():
            return _info(self._resolve(self.conn, prefix))

    def mark_compaction(self) -> int:
        """The consumer compacted its context: references handed out until now are stale."""
        at = self._clock()
        with self._write() as conn:
            conn.execute(
                "INSERT INTO cache_markers (name, value) VALUES ('compacted_at', ?) "
                "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (at,),
            )
        return at

    # -- stats, reset ---------------------------------------------------------------------

    def stats(self) -> CacheStats:
        with self._read():
            totals = self.conn.execute(
                "SELECT entries, bytes, pinned_bytes FROM cache_totals WHERE id = 1"
            ).fetchone()
            pinned = self.conn.execute(
                "SELECT count(*) FROM cache_entries WHERE pinned = 1"
            ).fetchone()[0]
            searchable = self.conn.execute(
                "SELECT count(*) FROM cache_entries WHERE searchable = 1"
            ).fetchone()[0]
            counters = dict.fromkeys(COUNTERS, 0)
            counters.update(
                {r["name"]: r["value"] for r in self.conn.execute("SELECT name, value FROM cache_stats")}
            )
        return CacheStats(
            entries=totals["entries"] if totals else 0,
            bytes=totals["bytes"] if totals else 0,
            pinned_bytes=totals["pinned_bytes"] if totals else 0,
            max_bytes=self.settings.cache.max_bytes,
            pinned_entries=pinned,
            searchable_entries=searchable,
            counters=counters,
        )

    def reset(self, scope: str) -> dict[str, int]:
        """Clear exactly the tables of `scope` (see RESET_SCOPES); returns rows removed per table."""
        if scope not in RESET_SCOPES:
            raise InputError(f"reset scope {scope!r}: choose one of {', '.join(RESET_SCOPES)}")
        tables = RESET_SCOPES[scope]
        with self._write() as conn:
            # Count first: deleting entries also empties the search index through a trigger.
            removed = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
            for table in tables:
                conn.execute(f"DELETE FROM {table}")
        return removed


_cache: Lazy[ContentCache] = Lazy(ContentCache, lambda c: c.conn.close())


def get_cache() -> ContentCache:
    """The process-wide content cache, opened on first use from the settings."""
    return _cache.get()


def reset_cache() -> None:
    """Close the process-wide content cache; the next `get_cache()` opens it again."""
    _cache.reset()


def _decode_text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _line_count(data: bytes) -> int:
    return len(data.splitlines())


def _payload(derived: bytes | None, original: bytes, text: str | None) -> str | bytes:
    """What goes to the consumer on a full send: the derived form when there is one."""
    if derived is not None:
        return _decode_text(derived) or derived
    return text if text is not None else original


def _unsearchable_reason(text: str | None, original: bytes, cap: int) -> str | None:
    if text is None:
        return "binary content (not UTF-8): expandable, not searchable"
    if "\x00" in text:
        return "contains NUL bytes: expandable, not searchable"
    if not text.strip():
        return "empty or whitespace only: nothing to search"
    if len(original) > cap:
        return (
            f"{len(original)} bytes exceeds cache.index_cap_bytes={cap}: expandable, not searchable"
        )
    return None


def _info(row: sqlite3.Row) -> EntryInfo:
    return EntryInfo(
        hash=row["hash"],
        ref=make_ref(row["hash"]),
        kind=row["kind"],
        label=row["label"],
        size_bytes=row["size_bytes"],
        original_bytes=row["original_bytes"],
        derived_bytes=row["derived_bytes"],
        searchable=bool(row["searchable"]),
        index_note=row["index_note"],
        pinned=bool(row["pinned"]),
        created_at=row["created_at"],
        accessed_at=row["accessed_at"],
    )
