"""Episodes (short summaries of a session) and the local context pack built from them.

The pack is what a local model receives instead of a transcript: the latest user turn plus at
most ``transform.local_episode_count`` episodes, newest first, all within
``transform.local_context`` characters. The user turn always comes first; if it alone is too
long it is cut in the middle (its start states the request, its end the latest detail).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphsvc.context.events import check_limit, check_turn_id, check_workspace, iso, now_us, to_datetime, to_us
from graphsvc.errors import InputError

if TYPE_CHECKING:
    from graphsvc.context.store import ContextStore

MAX_SUMMARY_CHARS = 4000
MAX_LIST = 1000
_CUT = "\n[…]\n"


@dataclass(frozen=True)
class Episode:
    id: int
    session_id: str
    summary: str
    workspace: str | None
    turn_id: str | None
    created_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "created_at": iso(to_us(self.created_at))}


@dataclass
class ContextPack:
    user_turn: str
    episodes: list[Episode] = field(default_factory=list)
    text: str = ""
    chars: int = 0
    max_chars: int = 0
    user_turn_truncated: bool = False
    episodes_left_out: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_turn": self.user_turn,
            "episodes": [e.to_dict() for e in self.episodes],
            "text": self.text,
            "chars": self.chars,
            "max_chars": self.max_chars,
            "user_turn_truncated": self.user_turn_truncated,
            "episodes_left_out": self.episodes_left_out,
        }


def cut_middle(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    if limit <= len(_CUT):
        return text[:limit]
    keep = limit - len(_CUT)
    head = (keep + 1) // 2
    return text[:head] + _CUT + text[len(text) - (keep - head) :]


def _check_session(session_id: Any) -> str:
    if not isinstance(session_id, str) or not session_id.strip() or len(session_id) > 256:
        raise InputError(f"session_id: {session_id!r} must be text of 1-256 characters")
    return session_id


class Episodes:
    """`store.episodes`."""

    def __init__(self, store: ContextStore):
        self._store = store

    def add(
        self,
        session_id: str,
        summary: str,
        workspace: str | None = None,
        turn_id: str | None = None,
        *,
        at: datetime | int | str | None = None,
    ) -> Episode:
        _check_session(session_id)
        check_workspace(workspace)
        check_turn_id(turn_id)
        if not isinstance(summary, str) or not summary.strip():
            raise InputError("summary: must be non-empty text")
        if len(summary) > MAX_SUMMARY_CHARS:
            raise InputError(
                f"summary: {len(summary)} characters is over the {MAX_SUMMARY_CHARS}-character limit "
                "for an episode; summarise further"
            )
        if turn_id is not None:
            turn = self._store.turns.require(turn_id)
            if workspace is None:
                workspace = turn.workspace
            elif workspace != turn.workspace:
                raise InputError(f"workspace: {workspace!r} does not match turn {turn_id!r}'s workspace")
        ts = now_us() if at is None else to_us(at)
        seq = self._store.insert(
            "INSERT INTO episodes (session_id, workspace, turn_id, summary, created_at) VALUES (?, ?, ?, ?, ?)",
            (session_id, workspace, turn_id, summary, ts),
        )
        return Episode(seq, session_id, summary, workspace, turn_id, to_datetime(ts))

    def list(
        self, limit: int = 20, session_id: str | None = None, workspace: str | None = None
    ) -> list[Episode]:
        """Newest first."""
        limit = check_limit(limit, MAX_LIST)
        where, params = [], []
        if session_id is not None:
            where.append("session_id = ?")
            params.append(session_id)
        if workspace is not None:
            where.append("workspace = ?")
            params.append(workspace)
        sql = "SELECT seq, session_id, summary, workspace, turn_id, created_at FROM episodes"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY created_at DESC, seq DESC LIMIT ?"
        params.append(limit)
        return [
            Episode(r[0], r[1], r[2], r[3], r[4], to_datetime(r[5]))
            for r in self._store.query(sql, tuple(params))
        ]

    def context_pack(
        self,
        user_turn: str | None = None,
        session_id: str | None = None,
        workspace: str | None = None,
        *,
        max_chars: int | None = None,
        max_episodes: int | None = None,
    ) -> ContextPack:
        """The latest user turn plus recent episodes, bounded by the transform settings.

        Without `user_turn`, the latest turn's ``prompt`` (or ``goal``) key of the session (or
        workspace) stands for it.
        """
        settings = self._store.settings.transform
        max_chars = settings.local_context if max_chars is None else max_chars
        max_episodes = settings.local_episode_count if max_episodes is None else max_episodes
        if max_chars < 1 or max_episodes < 0:
            raise InputError("max_chars must be positive and max_episodes not negative")
        if user_turn is None:
            turns = self._store.turns.list(limit=1, workspace=workspace, session_id=session_id)
            user_turn = (turns[0].keys.get("prompt") or turns[0].keys.get("goal") or "") if turns else ""
        head = "Latest user turn:\n"
        body = cut_middle(user_turn, max(0, max_chars - len(head)))
        text = head + body
        pack = ContextPack(
            user_turn=body, max_chars=max_chars, user_turn_truncated=len(body) < len(user_turn)
        )
        candidates = self.list(limit=max(max_episodes, 1), session_id=session_id, workspace=workspace)
        candidates = candidates[:max_episodes]
        section = "\n\nEarlier in this session:"
        for n, episode in enumerate(candidates):
            line = f"\n- [{iso(to_us(episode.created_at))[:19]}Z] {episode.summary}"
            addition = (section if not pack.episodes else "") + line
            if len(text) + len(addition) > max_chars:
                pack.episodes_left_out = len(candidates) - n
                break
            text += addition
            pack.episodes.append(episode)
        pack.text = text
        pack.chars = len(text)
        return pack
