"""Code run in child processes by the event log tests (importable by name for `spawn`)."""

from __future__ import annotations

import sys
from pathlib import Path

from graphsvc.context.store import ContextStore
from graphsvc.settings import Settings


def open_store(context_dir: str) -> ContextStore:
    s = Settings(home=Path(context_dir).parent / "home")
    s.context.dir = Path(context_dir)
    return ContextStore(settings=s)


def append_burst(context_dir: str, tag: str, n: int) -> list[tuple[str, int]]:
    """Append n events one by one; return (id, seq) of each, in the order they were acknowledged."""
    store = open_store(context_dir)
    try:
        out = []
        for i in range(n):
            ev = store.events.append("FulfilledLocal", None, "/ws", {"tag": tag, "i": i})
            out.append((ev.id, ev.seq))
        return out
    finally:
        store.close()


def open_turn(context_dir: str, turn_id: str, parent: str | None) -> None:
    store = open_store(context_dir)
    try:
        store.turns.open_turn("/ws", turn_id, parent_id=parent, session_id="other-process")
        store.turns.touched(turn_id, ["src/other.py"])
    finally:
        store.close()


def burst_until_killed(context_dir: str) -> None:
    """Append forever, printing each event id once its commit is acknowledged."""
    store = open_store(context_dir)
    i = 0
    while True:
        if i % 2:
            events = store.events.append_many(
                [{"type": "RouteDecided", "workspace": "/ws", "payload": {"i": i, "j": j}} for j in range(10)]
            )
        else:
            events = [store.events.append("OriginPassthrough", None, "/ws", {"i": i, "pad": "x" * 500})]
        sys.stdout.write("".join(ev.id + "\n" for ev in events))
        sys.stdout.flush()
        i += 1


if __name__ == "__main__":
    burst_until_killed(sys.argv[1])
