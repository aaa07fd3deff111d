"""The continuity record: what happened earlier in the calling session, for a delegate.

One record per workspace, a ring of `context.background.ring_size` (60) entries: every user
turn (delegated or not: most turns are ordinary chat, and a delegate needs what led to its
instruction) and every delegate outcome. An outcome is recorded under the identity of the
calling session, not of the delegate, so a later delegate in the same workspace learns that
the change was made and does not undo it.

`Continuity.block(workspace, task)` selects what a delegate receives. Time is not relevance:
after five turns about CSS, a delegate fixing a Go defect must not get five turns about CSS.

- Entries are ranked by BM25 against the task (rare terms weigh more). At equal relevance a
  delegate outcome beats a summary, which beats an ordinary turn; then the newer wins.
- The `protected_tail` (2) most recent entries are always included, unscored.
- Ordinary turns that do not match the task, or score under `RELEVANCE_FLOOR` of the best
  match, are left out. Delegate outcomes and summaries stay eligible without a match: they
  describe changes already made.
- An entry longer than `max_entry_chars` loses its middle (start and end kept, cut marked).
- Entries are packed into `token_budget` and `max_entries`; an entry that does not fit is
  skipped and smaller, lower-ranked entries are still tried.

Above `compact_above` (40) entries, compaction runs on a background thread: the older
entries become one `[session summary]` entry (see `graphsvc.context.summary` for who writes
it), the last `keep_tail` entries stay as they are, and existing summaries are carried over
unchanged, never summarised again. When the ring overflows, the oldest entries leave it and
the record's log says how many.

The record lives in the SQLite store under `~/.graphsvc/` (`context.dir`), never in the
repository: it is bookkeeping, and a file in the project would show up in `git status`.
"""

from __future__ import annotations

import logging
import math
import os
import re
import shutil
import sqlite3
import tempfile
import threading
from collections import Counter, OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Callable, Iterator

from graphsvc.context import db
from graphsvc.context.db import Micros
from graphsvc.context.summary import SUMMARY_MARK, summarise
from graphsvc.context.tokens import get_counter, truncate_middle
from graphsvc.errors import InputError
from graphsvc.settings import Settings

log = logging.getLogger(__name__)

HEADING = "Earlier in the calling session"
RELEVANCE_FLOOR = 0.25
BM25_K1, BM25_B = 1.2, 0.75
# Which file each delegate reads by itself from its working directory.
VENDOR_FILES = {
    "cursor-agent": "AGENTS.md",
    "cursor": "AGENTS.md",
    "agy": "AGENTS.md",
    "codex": "AGENTS.md",
    "opencode": "AGENTS.md",
    "amp": "AGENTS.md",
}
OTHER_VENDOR_FILE = "graphsvc-context.md"
_KIND_ORDER = {"outcome": 0, "summary": 1, "turn": 2}
_KIND_TITLE = {"turn": "user turn", "outcome": "delegate outcome", "summary": "session summary"}
_WORDS = re.compile(r"\w+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOPWORDS = frozenset(
    """a an and are as at be but by can do does for from has have how i if in into is it its
    me my no not of on or our please so that the their then there these this to us was we
    what when where which while who why will with you your""".split()
)


@dataclass(frozen=True)
class Entry:
    id: int
    workspace: str
    seq: int
    kind: str  # "turn", "outcome" or "summary"
    session: str
    delegate: str | None
    flagged: bool
    text: str
    created_at: Micros

    @property
    def is_summary(self) -> bool:
        return self.kind == "summary" or self.text.lstrip().startswith(SUMMARY_MARK)

    @property
    def shown_kind(self) -> str:
        """The kind readers see: an entry that is a summary shows as one, whatever it was recorded as."""
        return "summary" if self.is_summary else self.kind


@dataclass
class BlockEntry:
    seq: int
    kind: str
    session: str
    delegate: str | None
    text: str
    score: float
    protected: bool
    truncated: bool
    tokens: int


@dataclass
class ContinuityBlock:
    workspace: str
    task: str
    text: str
    entries: list[BlockEntry]
    tokens: int
    token_method: str
    token_budget: int
    max_entries: int
    record_entries: int  # entries in the record when the block was built
    left_out: list[int] = field(default_factory=list)  # seqs ranked but not fitting


@dataclass
class DelegateFile:
    """The file a delegate reads from its working directory, and what goes in it."""

    file_name: str
    content: str
    tokens: int
    token_method: str


@dataclass
class CompactionResult:
    workspace: str
    folded: int
    source: str
    failures: list[str]
    summary_seq: int


@dataclass
class DelegateRun:
    directory: Path
    path: Path
    block: ContinuityBlock


def context_file_for(vendor: str) -> str:
    return VENDOR_FILES.get(vendor.strip().lower(), OTHER_VENDOR_FILE)


def terms(text: str) -> list[str]:
    """Lower-case words plus the parts of identifiers (`parseConfig` → parse, config)."""
    out = []
    for word in _WORDS.findall(text):
        lower = word.lower()
        if lower not in _STOPWORDS:
            out.append(lower)
        if "_" in word or (lower != word and not word.isupper() and not word.istitle()):
            parts = [p.lower() for chunk in word.split("_") for p in _CAMEL.findall(chunk)]
            if len(parts) > 1:
                out.extend(p for p in parts if p not in _STOPWORDS)
    return out


class Continuity(db.Connected):
    """Per-workspace continuity records over one SQLite connection (thread-safe)."""

    what = "the continuity record"

    def __init__(
        self,
        conn_or_path: sqlite3.Connection | str | Path | None = None,
        settings: Settings | None = None,
        *,
        clock: Callable[[], Micros] = db.now_us,
    ):
        super().__init__(conn_or_path, settings, clock=clock)
        self._executor: ThreadPoolExecutor | None = None
        self._pending: dict[str, Future] = {}
        self._pending_lock = threading.Lock()
        self._terms: OrderedDict[int, Counter] = OrderedDict()

    @property
    def _bg(self):
        return self.settings.context.background

    # -- recording ------------------------------------------------------------------------

    def record_turn(self, workspace: str, session: str, text: str, *, flagged: bool = False) -> Entry:
        """A user turn of the calling session; every turn, delegated (`flagged`) or not."""
        return self._append(workspace, "turn", session, None, text, flagged)

    def record_outcome(self, workspace: str, session: str, delegate: str, text: str) -> Entry:
        """What a delegate did, recorded under the identity of the session that sent the work."""
        if not delegate or not delegate.strip():
            raise InputError("a delegate outcome needs the delegate's name (e.g. cursor-agent)")
        return self._append(workspace, "outcome", session, delegate.strip(), text, True)

    def _append(self, workspace, kind, session, delegate, text, flagged) -> Entry:
        workspace = _required(workspace, "workspace")
        session = _required(session, "session")
        if not text or not text.strip():
            raise InputError("an empty entry tells a delegate nothing; give the turn's text")
        text, _ = truncate_middle(text, self.settings.context.max_payload_bytes)
        if text.lstrip().startswith(SUMMARY_MARK):
            kind = "summary"  # a host's own summary message: carried over, never re-summarised
        now = self._clock()
        with self._write() as conn:
            seq = conn.execute(
                "SELECT coalesce(max(seq), 0) + 1 FROM continuity_entries WHERE workspace = ?",
                (workspace,),
            ).fetchone()[0]
            cur = conn.execute(
                "INSERT INTO continuity_entries (workspace, seq, kind, session, delegate, flagged, "
                "text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (workspace, seq, kind, session, delegate, int(flagged), text, now),
            )
            entry_id = cur.lastrowid
            self._drop_overflow(conn, workspace, now)
        entry = Entry(entry_id, workspace, seq, kind, session, delegate, bool(flagged), text, now)
        if self._needs_compaction(self.entries(workspace)):
            self.compact(workspace)
        return entry

    def _drop_overflow(self, conn: sqlite3.Connection, workspace: str, now: int) -> None:
        count = conn.execute(
            "SELECT count(*) FROM continuity_entries WHERE workspace = ?", (workspace,)
        ).fetchone()[0]
        over = count - self._bg.ring_size
        if over <= 0:
            return
        rows = conn.execute(
            "SELECT id, kind FROM continuity_entries WHERE workspace = ? ORDER BY seq LIMIT ?",
            (workspace, over),
        ).fetchall()
        kinds = Counter(row["kind"] for row in rows)
        conn.executemany("DELETE FROM continuity_entries WHERE id = ?", [(r["id"],) for r in rows])
        note = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        conn.execute(
            "INSERT INTO continuity_log (workspace, at, action, entries, note) "
            "VALUES (?, ?, 'ring_dropped', ?, ?)",
            (workspace, now, len(rows), f"oldest entries left the ring of {self._bg.ring_size}: {note}"),
        )
        log.info("continuity %s: %d oldest entries left the ring (%s)", workspace, len(rows), note)

    # -- reading --------------------------------------------------------------------------

    def entries(self, workspace: str) -> list[Entry]:
        with self._read():
            rows = self.conn.execute(
                "SELECT * FROM continuity_entries WHERE workspace = ? ORDER BY seq", (workspace,)
            ).fetchall()
        return [_entry(row) for row in rows]

    def log(self, workspace: str) -> list[dict]:
        with self._read():
            rows = self.conn.execute(
                "SELECT at, action, entries, source, note FROM continuity_log "
                "WHERE workspace = ? ORDER BY at, id",
                (workspace,),
            ).fetchall()
        return [dict(row) for row in rows]

    def workspaces(self) -> list[str]:
        with self._read():
            rows = self.conn.execute(
                "SELECT DISTINCT workspace FROM continuity_entries ORDER BY workspace"
            ).fetchall()
        return [row[0] for row in rows]

    # -- the delegate's block -------------------------------------------------------------

    def block(self, workspace: str, task: str) -> ContinuityBlock:
        """The "Earlier in the calling session" block for a delegate about to do `task`."""
        bg = self._bg
        counter = get_counter(prefer_tokenizer=bg.tokenizer != "estimate")
        entries = self.entries(workspace)
        tail_n = max(0, bg.protected_tail)
        tail = entries[-tail_n:] if tail_n else []
        rest = entries[: len(entries) - len(tail)]
        scores = self._scores(task, entries)
        best = max((scores[e.id] for e in rest), default=0.0)
        floor = best * RELEVANCE_FLOOR

        def eligible(e: Entry) -> bool:
            if e.kind == "outcome" or e.is_summary:
                return True
            return scores[e.id] > 0 and scores[e.id] >= floor

        ranked = sorted(
            (e for e in rest if eligible(e)),
            key=lambda e: (-scores[e.id], _KIND_ORDER[e.shown_kind], -e.seq),
        )

        header = _header(workspace)
        budget = bg.token_budget - counter.count(header)
        chosen: list[BlockEntry] = []
        used = 0
        # The newest entries go in whatever their score: what the user says now is never noise.
        for entry in reversed(tail):
            item = self._block_entry(entry, scores[entry.id], True, counter)
            if used + item.tokens > budget:
                item = self._shrink(entry, scores[entry.id], max(budget - used, 0), counter)
            chosen.append(item)
            used += item.tokens
        left_out = []
        for entry in ranked:
            if len(chosen) >= bg.max_entries:
                left_out.append(entry.seq)
                continue
            item = self._block_entry(entry, scores[entry.id], False, counter)
            if used + item.tokens > budget:
                left_out.append(entry.seq)
                continue  # a smaller, lower-ranked entry may still fit
            chosen.append(item)
            used += item.tokens
        chosen.sort(key=lambda item: item.seq)
        text = header + "".join(_render(item) for item in chosen)
        return ContinuityBlock(
            workspace=workspace,
            task=task,
            text=text,
            entries=chosen,
            tokens=counter.count(text),
            token_method=counter.method,
            token_budget=bg.token_budget,
            max_entries=bg.max_entries,
            record_entries=len(entries),
            left_out=sorted(left_out),
        )

    def _scores(self, task: str, entries: list[Entry]) -> dict[int, float]:
        """BM25 of each entry against the task, IDF over this workspace's record."""
        docs = [self._entry_terms(e) for e in entries]
        n = len(docs)
        if not n:
            return {}
        avg_len = sum(sum(d.values()) for d in docs) / n or 1.0
        query = set(terms(task))
        df = {t: sum(1 for d in docs if t in d) for t in query}
        idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in query if df[t]}
        scores = {}
        for entry, doc in zip(entries, docs):
            length = sum(doc.values())
            score = 0.0
            for t, weight in idf.items():
                tf = doc.get(t, 0)
                if tf:
                    score += weight * tf * (BM25_K1 + 1) / (
                        tf + BM25_K1 * (1 - BM25_B + BM25_B * length / avg_len)
                    )
            scores[entry.id] = score
        return scores

    def _entry_terms(self, entry: Entry) -> Counter:
        # Entries never change, so their terms are computed once per process.
        found = self._terms.get(entry.id)
        if found is None:
            found = self._terms[entry.id] = Counter(terms(entry.text))
            if len(self._terms) > 4096:
                self._terms.popitem(last=False)
        return found

    def _block_entry(self, entry: Entry, score: float, protected: bool, counter) -> BlockEntry:
        text, cut = truncate_middle(entry.text, self._bg.max_entry_chars)
        return _block_item(entry, text, score, protected, cut, counter)

    def _shrink(self, entry: Entry, score: float, tokens: int, counter) -> BlockEntry:
        """A protected entry that would break the budget keeps its start and end, shorter."""
        chars = min(len(entry.text), self._bg.max_entry_chars)
        while True:
            chars = chars // 2
            text, _ = truncate_middle(entry.text, max(chars, 1))
            item = _block_item(entry, text, score, True, True, counter)
            if item.tokens <= tokens or chars <= 64:
                return item

    # -- compaction -----------------------------------------------------------------------

    def _needs_compaction(self, entries: list[Entry]) -> bool:
        return len(entries) > self._bg.compact_above and bool(self._foldable(entries))

    def _foldable(self, entries: list[Entry]) -> list[Entry]:
        older = entries[: max(0, len(entries) - self._bg.keep_tail)]
        return [e for e in older if not e.is_summary]

    def compact(self, workspace: str) -> Future:
        """Schedule compaction on the background thread; at most one per workspace at a time."""
        with self._pending_lock:
            pending = self._pending.get(workspace)
            if pending is not None and not pending.done():
                return pending
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="continuity")
            future = self._executor.submit(self._compact_job, workspace)
            self._pending[workspace] = future
            return future

    def _compact_job(self, workspace: str) -> CompactionResult | None:
        try:
            result = self.compact_now(workspace)
        except Exception:
            log.exception("continuity %s: compaction failed; the record is unchanged", workspace)
            raise
        return result

    def wait_idle(self, timeout: float | None = None) -> None:
        """Block until scheduled compactions have finished (tests, CLI exit)."""
        with self._pending_lock:
            futures = list(self._pending.values())
        for future in futures:
            future.exception(timeout=timeout)

    def compact_now(self, workspace: str, *, force: bool = False) -> CompactionResult | None:
        """Fold the older non-summary entries into one `[session summary]` entry, now.

        Without `force`, nothing happens until the record has more than `compact_above`
        entries. Existing summaries and the last `keep_tail` entries are never touched.
        """
        entries = self.entries(workspace)
        if not force and len(entries) <= self._bg.compact_above:
            return None
        fold = self._foldable(entries)
        if not fold:
            return None
        # The summariser may take seconds; no lock or transaction is held meanwhile.
        summary = summarise(workspace, fold, self._bg)
        first, last = fold[0].seq, fold[-1].seq
        header = (
            f"{SUMMARY_MARK} {len(fold)} entries (seq {first}–{last}) summarised by {summary.source}"
        )
        text = f"{header}\n{summary.text}"
        sessions = list(dict.fromkeys(e.session for e in fold))
        ids = [e.id for e in fold]
        now = self._clock()
        with self._write() as conn:
            marks = ",".join("?" * len(ids))
            still = conn.execute(
                f"SELECT count(*) FROM continuity_entries WHERE id IN ({marks})", ids
            ).fetchone()[0]
            if still != len(ids):
                # The ring moved on while we summarised; the next run starts from fresh data.
                return None
            conn.execute(f"DELETE FROM continuity_entries WHERE id IN ({marks})", ids)
            conn.execute(
                "INSERT INTO continuity_entries (workspace, seq, kind, session, delegate, flagged, "
                "text, created_at) VALUES (?, ?, 'summary', ?, NULL, 0, ?, ?)",
                (workspace, last, ",".join(sessions), text, now),
            )
            conn.execute(
                "INSERT INTO continuity_log (workspace, at, action, entries, source, note) "
                "VALUES (?, ?, 'compacted', ?, ?, ?)",
                (workspace, now, len(fold), summary.source, "; ".join(summary.failures) or None),
            )
        return CompactionResult(workspace, len(fold), summary.source, summary.failures, last)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    # -- delegate runs --------------------------------------------------------------------

    def delegate_file(self, workspace: str, task: str, vendor: str) -> DelegateFile:
        """The file `vendor` reads for `task`, for a caller that writes it into its own run directory."""
        block = self.block(workspace, task)
        return DelegateFile(
            file_name=context_file_for(vendor), content=block.text, tokens=block.tokens,
            token_method=block.token_method,
        )

    @contextmanager
    def write_delegate_context(
        self, workspace: str, task: str, vendor: str, *, parent: str | Path | None = None
    ) -> Iterator[DelegateRun]:
        """A private run directory (0700) holding the file `vendor` reads, removed afterwards.

        The delegate is started inside `run.directory`; the directory and the file go away
        when the `with` block ends, also when it ends with an exception.
        """
        block = self.block(workspace, task)
        directory = Path(tempfile.mkdtemp(prefix="graphsvc-run-", dir=parent))
        try:
            os.chmod(directory, 0o700)
            path = directory / context_file_for(vendor)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(block.text)
            yield DelegateRun(directory=directory, path=path, block=block)
        finally:
            shutil.rmtree(directory, ignore_errors=True)


def continuity(workspace: str, task: str, *, record: Continuity | None = None) -> ContinuityBlock:
    """The delegate block for `task` in `workspace` (opens the configured store if needed)."""
    if record is not None:
        return record.block(workspace, task)
    own = Continuity()
    try:
        return own.block(workspace, task)
    finally:
        own.conn.close()


@contextmanager
def write_delegate_context(
    workspace: str, task: str, vendor: str, *, record: Continuity | None = None
) -> Iterator[DelegateRun]:
    """See `Continuity.write_delegate_context` (opens the configured store if needed)."""
    own = None if record is not None else Continuity()
    try:
        with (record or own).write_delegate_context(workspace, task, vendor) as run:
            yield run
    finally:
        if own is not None:
            own.conn.close()


def _header(workspace: str) -> str:
    return (
        f"## {HEADING}\n\n"
        f"What the user and earlier delegates did in this workspace ({workspace}), selected for "
        "your task: the most relevant entries and the latest ones, oldest first. Long entries are "
        "cut in the middle.\n"
    )


def _render(item: BlockEntry) -> str:
    title = _KIND_TITLE[item.kind]
    if item.kind == "outcome":
        who = f"{item.delegate}, for session {item.session}"
    else:
        who = f"session {item.session}"
    return f"\n### {title} · {who} · #{item.seq}\n{item.text}\n"


def _block_item(entry: Entry, text: str, score: float, protected: bool, cut: bool, counter) -> BlockEntry:
    item = BlockEntry(
        seq=entry.seq,
        kind=entry.shown_kind,
        session=entry.session,
        delegate=entry.delegate,
        text=text,
        score=round(score, 4),
        protected=protected,
        truncated=cut,
        tokens=0,
    )
    item.tokens = counter.count(_render(item))
    return item


def _entry(row: sqlite3.Row) -> Entry:
    """An entry from its row: the columns are named as the fields are."""
    values = {f.name: row[f.name] for f in fields(Entry)}
    return Entry(**{**values, "flagged": bool(values["flagged"])})


def _required(value: str, name: str) -> str:
    if not value or not value.strip():
        raise InputError(f"{name} is required")
    return value.strip()
