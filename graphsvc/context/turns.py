"""The turn index: turns, their families and keys, what they touched, sticky routes, and
`resolve`, which says which family a new message belongs to.

The index is a projection of the log's turn events (`TurnOpened`, `TurnKeysSet`,
`TurnTouched`, `StickyBound`). Each is validated and written to the ``turns`` / ``touched`` /
``sticky`` tables in the same transaction as its event, so the tables always agree with the
log and keep the turns when old events are pruned. At open the in-memory index is rebuilt from
those tables; afterwards it follows the log (see `ContextStore`), and `resolve` answers from
memory alone.

A family is the chain of turns that belong to one piece of work: a turn opened with a parent
joins the parent's family; a turn without one starts a family named after itself (or after an
explicit ``family_id``).
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from graphsvc.context.events import (
    Event,
    EventType,
    PendingEvent,
    canonical_json,
    check_limit,
    check_turn_id,
    check_workspace,
    iso,
    new_event_id,
    now_us,
    to_datetime,
    to_us,
)
from graphsvc.context.routing import EVIDENCE_THRESHOLD, Evidence, Message, Resolution, entity_terms, weigh_evidence
from graphsvc.errors import GraphsvcError, InputError, NotFoundError

if TYPE_CHECKING:
    from graphsvc.context.store import ContextStore

log = logging.getLogger(__name__)

KEY_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
WELL_KNOWN_KEYS = ("clone_path", "goal", "plan", "file-tree")
MAX_ROUTE_CHARS = 200
MAX_TOUCHED_PER_CALL = 10_000


@dataclass(frozen=True)
class Turn:
    id: str
    family_id: str
    parent_id: str | None
    workspace: str
    session_id: str | None
    opened_at: datetime
    keys: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["opened_at"] = iso(to_us(self.opened_at))
        return d


@dataclass(frozen=True)
class StickyBinding:
    family_id: str
    route: str
    bound_at: datetime
    event_id: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "family_id": self.family_id,
            "route": self.route,
            "bound_at": iso(to_us(self.bound_at)),
            "event_id": self.event_id,
        }


class TurnSink(Protocol):
    """Where turns are mirrored: `graphsvc.graph.runtime.TurnMirror` writes them into Neo4j
    (the store sits beside the graph and does not import it)."""

    def turns(self, turns: list[Turn]) -> None: ...

    def touched(self, turn: Turn, entity_ids: list[str]) -> list[str]:
        """Record what the turn touched; returns the ids that exist there (the rest wait)."""
        ...


@dataclass
class MirrorReport:
    turns: int = 0
    touched: int = 0
    not_in_graph: int = 0
    pending_turns: int = 0
    pending_touched: int = 0
    error: str | None = None


@dataclass
class _Family:
    id: str
    workspace: str
    turn_ids: list[str] = field(default_factory=list)
    sticky: StickyBinding | None = None
    working_set: set[str] = field(default_factory=set)


def check_keys(keys: Any, allow_null: bool = False) -> dict[str, str | None]:
    if keys is None:
        return {}
    if not isinstance(keys, dict):
        raise InputError(f"keys: must be an object of key -> text, got {type(keys).__name__}")
    for k, v in keys.items():
        if not isinstance(k, str) or not KEY_RE.match(k):
            raise InputError(
                f"keys: {k!r} is not a valid key name (letters, digits, _ . -; e.g. goal, file-tree)"
            )
        if not (isinstance(v, str) or (allow_null and v is None)):
            raise InputError(f"keys.{k}: must be text, got {type(v).__name__}")
    return dict(keys)


def _check_entity_ids(entity_ids: Any) -> list[str]:
    if isinstance(entity_ids, str) or not isinstance(entity_ids, (list, tuple, set, frozenset)):
        raise InputError("entity_ids: must be a list of entity ids")
    ids = list(dict.fromkeys(entity_ids))
    if len(ids) > MAX_TOUCHED_PER_CALL:
        raise InputError(f"entity_ids: at most {MAX_TOUCHED_PER_CALL} per call, got {len(ids)}")
    for eid in ids:
        if not isinstance(eid, str) or not eid or len(eid) > 4096 or "\x00" in eid:
            raise InputError(f"entity_ids: {eid!r} is not an entity id")
    return ids


class TurnIndex:
    """`store.turns`."""

    def __init__(self, store: ContextStore):
        self._store = store
        self._turns: dict[str, Turn] = {}
        self._families: dict[str, _Family] = {}
        self._sessions: dict[str, str] = {}  # session id -> family of its latest turn
        self._terms: dict[str, dict[str, float]] = {}  # term -> family id -> weight
        self._sink: TurnSink | None = None
        self._mirror_lock = threading.Lock()
        self.mirror_error: str | None = None

    # -- the projection, inside the write transaction ---------------------------------------

    def project(self, conn: sqlite3.Connection, row: PendingEvent, strict: bool) -> PendingEvent:
        """Validate a turn event against the index and write its projection (or raise InputError).

        Not strict (import): an event that does not fit the index is stored but not projected.
        """
        try:
            payload = json.loads(row.payload_json)
            if row.type == EventType.TURN_OPENED:
                self._project_opened(conn, row, payload)
            elif row.type == EventType.TURN_KEYS_SET:
                self._project_keys(conn, row, payload)
            elif row.type == EventType.TURN_TOUCHED:
                self._project_touched(conn, row, payload)
            elif row.type == EventType.STICKY_BOUND:
                self._project_sticky(conn, row, payload)
        except InputError:
            if strict:
                raise
        return row

    def _turn_row(self, conn: sqlite3.Connection, turn_id: str) -> sqlite3.Row | None:
        return conn.execute(
            "SELECT id, family_id, workspace, keys FROM turns WHERE id = ?", (turn_id,)
        ).fetchone()

    def _known_turn(self, conn: sqlite3.Connection, turn_id: str | None, what: str = "turn_id") -> sqlite3.Row:
        if turn_id is None:
            raise InputError(f"{what}: required")
        found = self._turn_row(conn, turn_id)
        if found is None:
            raise NotFoundError(f"{what}: unknown turn {turn_id!r}; open it first (openTurn)")
        return found

    def _same_workspace(self, row: PendingEvent, workspace: str) -> None:
        if row.workspace is None:
            row.workspace = workspace
        elif row.workspace != workspace:
            raise InputError(
                f"workspace: {row.workspace!r} does not match the turn's workspace {workspace!r}"
            )

    def _project_opened(self, conn: sqlite3.Connection, row: PendingEvent, payload: dict) -> None:
        unknown = set(payload) - {"family_id", "parent_id", "session_id", "keys"}
        if unknown:
            raise InputError(f"payload: unknown field(s) {sorted(unknown)} for TurnOpened")
        if row.turn_id is None:
            raise InputError("turn_id: required to open a turn")
        if row.workspace is None:
            raise InputError("workspace: required to open a turn")
        if self._turn_row(conn, row.turn_id) is not None:
            raise InputError(f"turn_id: turn {row.turn_id!r} already exists")
        parent_id = check_turn_id(payload.get("parent_id"), "parent_id")
        family_id = check_turn_id(payload.get("family_id"), "family_id")
        session_id = payload.get("session_id")
        if session_id is not None and (not isinstance(session_id, str) or not session_id or len(session_id) > 256):
            raise InputError(f"session_id: {session_id!r} must be text of 1-256 characters")
        keys = check_keys(payload.get("keys"))
        if parent_id is not None:
            parent = self._known_turn(conn, parent_id, "parent_id")
            if parent["workspace"] != row.workspace:
                raise InputError(
                    f"parent_id: turn {parent_id!r} is in workspace {parent['workspace']!r}, "
                    f"not {row.workspace!r}"
                )
            if family_id is not None and family_id != parent["family_id"]:
                raise InputError(
                    f"family_id: {family_id!r} conflicts with parent {parent_id!r}, which is in "
                    f"family {parent['family_id']!r}"
                )
            family_id = parent["family_id"]
        elif family_id is not None:
            other = conn.execute(
                "SELECT workspace FROM turns WHERE family_id = ? LIMIT 1", (family_id,)
            ).fetchone()
            if other is not None and other["workspace"] != row.workspace:
                raise InputError(f"family_id: family {family_id!r} is in workspace {other['workspace']!r}")
        family_id = family_id or row.turn_id
        full = {"family_id": family_id, "parent_id": parent_id, "session_id": session_id, "keys": keys}
        row.payload_json = canonical_json(full)
        conn.execute(
            "INSERT INTO turns (id, family_id, parent_id, workspace, session_id, opened_at, keys) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row.turn_id, family_id, parent_id, row.workspace, session_id, row.ts, canonical_json(keys)),
        )

    def _project_keys(self, conn: sqlite3.Connection, row: PendingEvent, payload: dict) -> None:
        turn = self._known_turn(conn, row.turn_id)
        self._same_workspace(row, turn["workspace"])
        if set(payload) != {"keys"}:
            raise InputError('payload: TurnKeysSet takes {"keys": {...}}')
        changes = check_keys(payload["keys"], allow_null=True)
        keys = json.loads(turn["keys"])
        for k, v in changes.items():
            if v is None:
                keys.pop(k, None)
            else:
                keys[k] = v
        conn.execute("UPDATE turns SET keys = ?, mirrored = 0 WHERE id = ?", (canonical_json(keys), row.turn_id))

    def _project_touched(self, conn: sqlite3.Connection, row: PendingEvent, payload: dict) -> None:
        turn = self._known_turn(conn, row.turn_id)
        self._same_workspace(row, turn["workspace"])
        if set(payload) != {"entity_ids"}:
            raise InputError('payload: TurnTouched takes {"entity_ids": [...]}')
        ids = _check_entity_ids(payload["entity_ids"])
        conn.executemany(
            "INSERT OR IGNORE INTO touched (turn_id, entity_id, at) VALUES (?, ?, ?)",
            [(row.turn_id, eid, row.ts) for eid in ids],
        )

    def _project_sticky(self, conn: sqlite3.Connection, row: PendingEvent, payload: dict) -> None:
        if set(payload) != {"family_id", "route"}:
            raise InputError('payload: StickyBound takes {"family_id": ..., "route": ...}')
        family_id = check_turn_id(payload["family_id"], "family_id")
        route = payload["route"]
        if not isinstance(route, str) or not route.strip() or len(route) > MAX_ROUTE_CHARS:
            raise InputError(f"route: must be non-empty text of at most {MAX_ROUTE_CHARS} characters")
        family = conn.execute(
            "SELECT workspace FROM turns WHERE family_id = ? LIMIT 1", (family_id,)
        ).fetchone()
        if family is None:
            raise NotFoundError(f"family_id: unknown turn family {family_id!r}")
        self._same_workspace(row, family["workspace"])
        if row.turn_id is not None:
            turn = self._known_turn(conn, row.turn_id)
            if turn["family_id"] != family_id:
                raise InputError(f"turn_id: turn {row.turn_id!r} is not in family {family_id!r}")
        conn.execute(
            "INSERT OR REPLACE INTO sticky (family_id, route, bound_at, event_id) VALUES (?, ?, ?, ?)",
            (family_id, route, row.ts, row.id),
        )

    def check_event_turn(self, conn: sqlite3.Connection, turn_id: str, workspace: str | None) -> str:
        """The workspace for an ordinary event naming a turn; the turn must exist."""
        with self._store.mem_lock:
            turn = self._turns.get(turn_id)
        known = turn.workspace if turn is not None else None
        if known is None:
            known = self._known_turn(conn, turn_id)["workspace"]
        if workspace is not None and workspace != known:
            raise InputError(f"workspace: {workspace!r} does not match turn {turn_id!r}'s workspace {known!r}")
        return known

    # -- memory ----------------------------------------------------------------------------

    def load(self, conn: sqlite3.Connection) -> None:
        with self._store.mem_lock:
            self._turns.clear()
            self._families.clear()
            self._sessions.clear()
            self._terms.clear()
            for r in conn.execute(
                "SELECT id, family_id, parent_id, workspace, session_id, opened_at, keys FROM turns "
                "ORDER BY opened_at, rowid"
            ):
                self._add_turn(
                    Turn(r[0], r[1], r[2], r[3], r[4], to_datetime(r[5]), json.loads(r[6]))
                )
            for turn_id, entity_id in conn.execute("SELECT turn_id, entity_id FROM touched"):
                self._add_touched(turn_id, [entity_id])
            for family_id, route, bound_at, event_id in conn.execute(
                "SELECT family_id, route, bound_at, event_id FROM sticky"
            ):
                family = self._families.get(family_id)
                if family is not None:
                    family.sticky = StickyBinding(family_id, route, to_datetime(bound_at), event_id)

    def apply(self, ev: Event) -> None:
        """Update memory from a committed turn event (called in commit order, under mem_lock)."""
        payload = ev.payload
        if ev.type == EventType.TURN_OPENED:
            if ev.turn_id in self._turns or ev.turn_id is None or ev.workspace is None:
                return
            self._add_turn(
                Turn(
                    ev.turn_id,
                    payload.get("family_id") or ev.turn_id,
                    payload.get("parent_id"),
                    ev.workspace,
                    payload.get("session_id"),
                    to_datetime(ev.ts),
                    dict(payload.get("keys") or {}),
                )
            )
        elif ev.type == EventType.TURN_KEYS_SET:
            turn = self._turns.get(ev.turn_id or "")
            if turn is not None and isinstance(payload.get("keys"), dict):
                keys = dict(turn.keys)
                for k, v in payload["keys"].items():
                    if v is None:
                        keys.pop(k, None)
                    else:
                        keys[k] = v
                self._turns[turn.id] = replace(turn, keys=keys)
        elif ev.type == EventType.TURN_TOUCHED:
            if ev.turn_id in self._turns and isinstance(payload.get("entity_ids"), list):
                self._add_touched(ev.turn_id, payload["entity_ids"])
        elif ev.type == EventType.STICKY_BOUND:
            family = self._families.get(payload.get("family_id") or "")
            if family is not None and isinstance(payload.get("route"), str):
                family.sticky = StickyBinding(family.id, payload["route"], to_datetime(ev.ts), ev.id)

    def _add_turn(self, turn: Turn) -> None:
        self._turns[turn.id] = turn
        family = self._families.get(turn.family_id)
        if family is None:
            family = self._families[turn.family_id] = _Family(turn.family_id, turn.workspace)
        family.turn_ids.append(turn.id)
        if turn.session_id:
            self._sessions[turn.session_id] = turn.family_id

    def _add_touched(self, turn_id: str, entity_ids: list[str]) -> None:
        turn = self._turns.get(turn_id)
        if turn is None:
            return
        family = self._families[turn.family_id]
        for eid in entity_ids:
            if eid in family.working_set:
                continue
            family.working_set.add(eid)
            for term, weight in entity_terms(eid).items():
                holders = self._terms.setdefault(term, {})
                holders[family.id] = max(holders.get(family.id, 0.0), weight)

    # -- the public API --------------------------------------------------------------------

    def open_turn(
        self,
        workspace: str,
        turn_id: str | None = None,
        *,
        family_id: str | None = None,
        parent_id: str | None = None,
        session_id: str | None = None,
        keys: dict[str, str] | None = None,
        at: datetime | int | str | None = None,
    ) -> Turn:
        """Open a turn (records `TurnOpened`). With a parent it joins the parent's family."""
        check_workspace(workspace)
        if workspace is None:
            raise InputError("workspace: required to open a turn")
        if turn_id is None:
            turn_id = "t-" + new_event_id(now_us(), self._store.random_bytes())[-12:]
        payload = {"family_id": family_id, "parent_id": parent_id, "session_id": session_id, "keys": keys or {}}
        self._store.events.append(EventType.TURN_OPENED, turn_id, workspace, payload, at=at)
        turn = self.get(turn_id)
        assert turn is not None
        return turn

    def get(self, turn_id: str) -> Turn | None:
        self._store.sync()
        with self._store.mem_lock:
            return self._turns.get(turn_id)

    def require(self, turn_id: str) -> Turn:
        turn = self.get(turn_id)
        if turn is None:
            shown = turn_id if len(turn_id) <= 200 else turn_id[:200] + f"… ({len(turn_id)} characters)"
            raise NotFoundError(f"turn {shown!r} is not known to the context store")
        return turn

    def list(
        self,
        limit: int = 50,
        workspace: str | None = None,
        family_id: str | None = None,
        session_id: str | None = None,
    ) -> list[Turn]:
        """Turns newest first, optionally of one workspace, family or session."""
        check_limit(limit)
        self._store.sync()
        with self._store.mem_lock:
            if family_id is not None:
                family = self._families.get(family_id)
                candidates = [self._turns[t] for t in family.turn_ids] if family else []
            else:
                candidates = list(self._turns.values())
        out = []
        for turn in reversed(candidates):  # turns are kept in the order they were opened
            if workspace is not None and turn.workspace != workspace:
                continue
            if session_id is not None and turn.session_id != session_id:
                continue
            out.append(turn)
            if len(out) == limit:
                break
        return out

    def count(self) -> int:
        with self._store.mem_lock:
            return len(self._turns)

    def set_keys(self, turn_id: str, keys: dict[str, str | None]) -> Turn:
        """Set (or with None, remove) keys of a turn; records `TurnKeysSet`."""
        check_keys(keys, allow_null=True)
        self._store.events.append(EventType.TURN_KEYS_SET, turn_id, None, {"keys": keys})
        return self.require(turn_id)

    def touched(self, turn_id: str, entity_ids: list[str]) -> Turn:
        """Record that a turn touched these entities (ids as in the graph); records `TurnTouched`."""
        ids = _check_entity_ids(entity_ids)
        self._store.events.append(EventType.TURN_TOUCHED, turn_id, None, {"entity_ids": ids})
        return self.require(turn_id)

    def working_set(self, turn_id: str) -> list[str]:
        rows = self._store.query(
            "SELECT entity_id FROM touched WHERE turn_id = ? ORDER BY at, entity_id", (turn_id,)
        )
        return [r[0] for r in rows]

    def bind_sticky(self, family_id: str, route: str, turn_id: str | None = None) -> StickyBinding:
        """Bind a family to a route (records `StickyBound`); later messages of it stay there."""
        ev = self._store.events.append(
            EventType.STICKY_BOUND, turn_id, None, {"family_id": family_id, "route": route}
        )
        return StickyBinding(family_id, route, to_datetime(ev.ts), ev.id)

    def sticky(self, family_id: str) -> StickyBinding | None:
        self._store.sync()
        with self._store.mem_lock:
            family = self._families.get(family_id)
            return family.sticky if family else None

    def family(self, family_id: str) -> list[Turn]:
        self._store.sync()
        with self._store.mem_lock:
            family = self._families.get(family_id)
            return [self._turns[t] for t in family.turn_ids] if family else []

    # -- resolution ------------------------------------------------------------------------

    def resolve(self, message: Message | dict[str, Any], record: bool = False) -> Resolution:
        """Say which family `message` belongs to and why; optionally record `RouteDecided`.

        Order of evidence: explicit ids (turn, parent, family; disagreeing ids are reported as
        conflicts and the turn id wins, then the parent); a summary/compaction or sub-agent
        message continues its session's family; files and symbols of a family's working set
        named in the text (confidence from how many and how specific); otherwise a new family.
        """
        if isinstance(message, dict):
            try:
                message = Message(**message)
            except TypeError as exc:
                raise InputError(f"message: {exc}") from exc
        for what in ("turn_id", "parent_id", "family_id"):
            check_turn_id(getattr(message, what), what)
        if not isinstance(message.text, str):
            raise InputError("text: must be text")
        if not isinstance(message.metadata or {}, dict):
            raise InputError("metadata: must be an object")
        self._store.sync()
        with self._store.mem_lock:
            resolution = self._resolve(message)
        if record:
            ev = self._store.events.append(
                EventType.ROUTE_DECIDED,
                resolution.turn_id,
                self._workspace_of(resolution.family_id),
                {
                    "message": {
                        "session_id": message.session_id,
                        "turn_id": message.turn_id,
                        "parent_id": message.parent_id,
                        "family_id": message.family_id,
                        "kind": resolution.kind,
                        "chars": len(message.text),
                        "preview": message.text[:200],
                    },
                    "resolution": {k: v for k, v in resolution.to_dict().items() if k != "event_id"},
                },
            )
            resolution.event_id = ev.id
        return resolution

    def _workspace_of(self, family_id: str | None) -> str | None:
        with self._store.mem_lock:
            family = self._families.get(family_id or "")
            return family.workspace if family else None

    def _resolve(self, m: Message) -> Resolution:
        kind = m.kind()
        claims: list[tuple[str, str, str]] = []  # (field, id, family)
        unknown: list[str] = []
        for what, ident in (("turn_id", m.turn_id), ("parent_id", m.parent_id)):
            if ident is None:
                continue
            turn = self._turns.get(ident)
            if turn is None:
                unknown.append(f"{what} {ident!r} is not a known turn")
            else:
                claims.append((what, ident, turn.family_id))
        if m.family_id is not None:
            if m.family_id in self._families:
                claims.append(("family_id", m.family_id, m.family_id))
            else:
                unknown.append(f"family_id {m.family_id!r} is not a known family")
        notes = "; ".join(unknown)

        families = list(dict.fromkeys(c[2] for c in claims))
        if families:
            chosen = claims[0]  # turn_id, then parent_id, then family_id
            conflicts = []
            if len(families) > 1:
                conflicts = [
                    f"{what} {ident!r} is in family {fam!r}" for what, ident, fam in claims
                ]
                detail = f"the ids disagree; {chosen[0]} wins: " + "; ".join(conflicts)
                return self._answer(
                    chosen[2], m, kind, 0.5, "conflicting-ids", detail, conflicts=conflicts,
                    turn_id=chosen[1] if chosen[0] != "family_id" else None,
                )
            reason = {"turn_id": "explicit-turn", "parent_id": "parent", "family_id": "explicit-family"}[chosen[0]]
            if chosen[0] == "parent_id" and kind == "subagent":
                reason = "subagent-of-parent"
            elif kind == "summary" and chosen[0] != "turn_id":
                reason = "summary-continues-family"
            detail = f"{chosen[0]} {chosen[1]!r} belongs to family {chosen[2]!r}"
            if kind != "prompt":
                detail = f"{kind} message: {detail}"
            if notes:
                detail += f" ({notes})"
            return self._answer(
                chosen[2], m, kind, 1.0, reason, detail,
                turn_id=chosen[1] if chosen[0] != "family_id" else None,
            )

        evidence, scores = weigh_evidence(m.text, self._terms)
        session_family = self._sessions.get(m.session_id) if m.session_id else None
        best = max(scores, key=scores.get) if scores else None
        best_conf = scores.get(best, 0.0) if best else 0.0
        if session_family is not None and kind in ("summary", "subagent"):
            detail = (
                f"{kind} message in session {m.session_id!r}, whose current family is "
                f"{session_family!r}: a continuation, not a new prompt"
            )
            return self._answer(
                session_family, m, kind, 0.95, f"{kind}-continues-session", detail,
                evidence=[e for e in evidence if e.family_id == session_family],
            )
        if best is not None and best_conf >= EVIDENCE_THRESHOLD:
            named = ", ".join(sorted({e.term for e in evidence if e.family_id == best})[:5])
            detail = f"the text names {named} from family {best!r}'s working set"
            if kind != "prompt":
                detail = f"{kind} message with no known session or parent; {detail}"
            return self._answer(
                best, m, kind, best_conf, "working-set", detail,
                evidence=[e for e in evidence if e.family_id == best],
            )
        detail = "no explicit ids of a known turn, no continuation marker for a known session, "
        detail += "and no reference to a family's working set" if best is None else (
            f"and only weak evidence for family {best!r} ({best_conf:.2f} < {EVIDENCE_THRESHOLD})"
        )
        if kind != "prompt":
            detail = f"{kind} message, but " + detail
        if notes:
            detail += f" ({notes})"
        return Resolution(
            family_id=None, turn_id=None, new_family=True, sticky=False, route=None,
            confidence=round(1.0 - best_conf, 3), reason="new-prompt", detail=detail, kind=kind,
            evidence=evidence[:10],
        )

    def _answer(
        self,
        family_id: str,
        m: Message,
        kind: str,
        confidence: float,
        reason: str,
        detail: str,
        *,
        turn_id: str | None = None,
        evidence: list[Evidence] | None = None,
        conflicts: list[str] | None = None,
    ) -> Resolution:
        family = self._families[family_id]
        sticky = family.sticky
        return Resolution(
            family_id=family_id,
            turn_id=turn_id or (family.turn_ids[-1] if family.turn_ids else None),
            new_family=False,
            sticky=sticky is not None,
            route=sticky.route if sticky else None,
            confidence=round(confidence, 3),
            reason=reason,
            detail=detail,
            kind=kind,
            evidence=(evidence or [])[:10],
            conflicts=conflicts or [],
        )

    # -- the Neo4j mirror --------------------------------------------------------------------

    def attach_mirror(self, sink: TurnSink | None) -> None:
        """Mirror turns into this sink as they are opened and touched (None: stop)."""
        self._sink = sink

    def after_commit(self, events: list[Event]) -> None:
        sink = self._sink
        if sink is None or not any(
            e.type in (EventType.TURN_OPENED, EventType.TURN_KEYS_SET, EventType.TURN_TOUCHED) for e in events
        ):
            return
        report = self.mirror(sink)
        if report.error:
            # The events are committed; the rows stay pending for `graphsvc turns mirror`.
            log.warning("turn mirror deferred: %s", report.error)

    def mirror(self, sink: TurnSink) -> MirrorReport:
        """Push turns and touched entities not yet mirrored; safe to repeat (MERGE)."""
        report = MirrorReport()
        with self._mirror_lock:
            try:
                pending = [
                    r[0] for r in self._store.query("SELECT id FROM turns WHERE mirrored = 0 ORDER BY opened_at")
                ]
                with self._store.mem_lock:
                    turns = [self._turns[t] for t in pending if t in self._turns]
                for i in range(0, len(turns), 500):
                    chunk = turns[i : i + 500]
                    sink.turns(chunk)
                    self._store.write(
                        [("UPDATE turns SET mirrored = 1 WHERE id = ?", (t.id,)) for t in chunk]
                    )
                    report.turns += len(chunk)
                rows = self._store.query(
                    "SELECT turn_id, entity_id FROM touched WHERE mirrored = 0 ORDER BY turn_id"
                )
                by_turn: dict[str, list[str]] = {}
                for turn_id, entity_id in rows:
                    by_turn.setdefault(turn_id, []).append(entity_id)
                for turn_id, ids in by_turn.items():
                    turn = self.get(turn_id)
                    if turn is None:
                        continue
                    linked = sink.touched(turn, ids)
                    self._store.write(
                        [
                            ("UPDATE touched SET mirrored = 1 WHERE turn_id = ? AND entity_id = ?", (turn_id, e))
                            for e in linked
                        ]
                    )
                    report.touched += len(linked)
                    report.not_in_graph += len(ids) - len(linked)
                self.mirror_error = None
            except GraphsvcError as exc:
                report.error = self.mirror_error = str(exc)
            report.pending_turns = self._store.query("SELECT count(*) FROM turns WHERE mirrored = 0")[0][0]
            report.pending_touched = self._store.query(
                "SELECT count(*) FROM touched WHERE mirrored = 0"
            )[0][0]
        return report
