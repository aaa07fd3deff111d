"""The embedded store under faults: the server SIGKILLed mid-burst, a second process holding the lock."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import httpx
import pytest

from graphsvc.context import db
from graphsvc.context.cache import ContentCache
from graphsvc.context.store import ContextStore
from graphsvc.errors import StoreError
from graphsvc.settings import get_settings

from tests.reliability.conftest import ServeProcess, store_env, stored_writes

pytestmark = pytest.mark.timeout(300)

_RECORD = 'mutation($p: JSON) { recordEvent(type: "FulfilledLocal", payload: $p, workspace: "burst") { id seq } }'


def test_acknowledged_writes_survive_sigkill_of_serve(tmp_path):
    home = tmp_path / "home"
    server = ServeProcess(store_env(home), tmp_path / "serve.log")
    events: list[str] = []
    hashes: list[str] = []
    errors: list[str] = []
    stop = threading.Event()

    def append_events(client_no: int) -> None:
        with httpx.Client(timeout=30) as client:
            n = 0
            while not stop.is_set():
                try:
                    r = client.post(f"{server.url}/graphql",
                                    json={"query": _RECORD, "variables": {"p": {"client": client_no, "n": n}}})
                    events.append(r.json()["data"]["recordEvent"]["id"])
                except (httpx.TransportError, ValueError):
                    return  # the server is gone: what was acknowledged before counts
                except Exception as exc:
                    errors.append(repr(exc))
                    return
                n += 1

    def store_content(client_no: int) -> None:
        with httpx.Client(timeout=30) as client:
            n = 0
            while not stop.is_set():
                text = f"client {client_no} document {n}\n" + "line of cached tool output\n" * 40
                try:
                    r = client.post(f"{server.url}/api/cache/store", json={"content": text, "label": f"c{client_no}-{n}"})
                    hashes.append(r.json()["hash"])
                except (httpx.TransportError, ValueError):
                    return
                except Exception as exc:
                    errors.append(repr(exc))
                    return
                n += 1

    threads = [threading.Thread(target=f, args=(i,), daemon=True)
               for i, f in enumerate((append_events, append_events, store_content, store_content))]
    try:
        server.wait_ready()
        for t in threads:
            t.start()
        deadline = time.monotonic() + 120
        while (len(events) < 150 or len(hashes) < 50) and time.monotonic() < deadline and not errors:
            time.sleep(0.05)
        server.kill()  # mid-burst: the clients are still sending
    finally:
        stop.set()
        for t in threads:
            t.join(60)
        server.stop()
    assert not errors, errors[:3]
    assert len(events) >= 150 and len(hashes) >= 50, (len(events), len(hashes))

    path = home / "context" / db.DB_NAME
    stored_events, stored_hashes = stored_writes(path)
    assert set(events) <= stored_events, f"{len(set(events) - stored_events)} acknowledged events lost"
    assert set(hashes) <= stored_hashes, f"{len(set(hashes) - stored_hashes)} acknowledged cache entries lost"
    # And graphsvc opens the store again as it is.
    store = ContextStore(path)
    try:
        assert store.integrity_check() == "ok" and store.events.count() == len(stored_events)
    finally:
        store.close()


_HOLD_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_a_write_lock_held_by_another_process_gives_a_bounded_wait_then_a_clear_error(tmp_path):
    path = tmp_path / "context" / db.DB_NAME
    store = ContextStore(path)
    cache = ContentCache(store.conn, get_settings())
    store.events.append("FulfilledLocal", workspace="w", payload={"before": True})
    cache.store("content stored before the lock")
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(path), "120"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        for attempt in (
            lambda: store.events.append("FulfilledLocal", workspace="w", payload={"during": 1}),
            lambda: store.events.append_many(
                [{"type": "FulfilledLocal", "workspace": "w", "payload": {"during": i}} for i in range(3)]
            ),
            lambda: cache.store("content stored while locked"),
        ):
            started = time.monotonic()
            with pytest.raises(StoreError) as err:
                attempt()
            waited = time.monotonic() - started
            # It waited for the lock (busy_timeout), then gave up within a bound.
            assert db.BUSY_TIMEOUT_MS / 1000 * 0.8 <= waited < 60, waited
            message = str(err.value)
            assert "locked" in message or "busy" in message, message
            assert "Traceback" not in message
    finally:
        holder.kill()
        holder.wait()
    # Nothing of the failed writes is there; the store works again once the lock is gone.
    payloads = [r[0] for r in store.query("SELECT payload FROM events ORDER BY seq")]
    assert payloads == ['{"before":true}']
    assert store.query("SELECT count(*) FROM cache_entries")[0][0] == 1
    store.events.append("FulfilledLocal", workspace="w", payload={"after": True})
    assert cache.store("content stored after the lock").sent == "full"
    assert store.events.count() == 2 and store.integrity_check() == "ok"
    store.close()


def test_a_locked_store_is_a_503_through_the_api_and_one_log_line(tmp_path):
    """REST answers 503 STORE_BUSY with Retry-After, GraphQL an error coded STORE_BUSY, each
    after the bounded wait for the lock; the server logs one line per failure, no traceback."""
    home = tmp_path / "home"
    server = ServeProcess(store_env(home), tmp_path / "serve.log")
    holder = None
    try:
        server.wait_ready()
        with httpx.Client(timeout=60) as client:
            before = client.post(f"{server.url}/api/cache/store", json={"content": "before the lock\n" * 5})
            assert before.status_code == 200, before.text
            holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(home / "context" / db.DB_NAME), "120"],
                                      stdout=subprocess.PIPE, text=True)
            assert holder.stdout.readline().strip() == "locked"

            started = time.monotonic()
            rest = client.post(f"{server.url}/api/cache/store", json={"content": "while locked\n" * 5})
            waited = time.monotonic() - started
            assert rest.status_code == 503, rest.text
            assert rest.json()["code"] == "STORE_BUSY" and "lock" in rest.json()["error"], rest.text
            assert int(rest.headers["Retry-After"]) > 0
            assert db.BUSY_TIMEOUT_MS / 1000 * 0.8 <= waited < 60, waited

            gql = client.post(f"{server.url}/graphql", json={"query": _RECORD, "variables": {"p": {"locked": True}}})
            assert gql.status_code == 200, gql.text
            error = gql.json()["errors"][0]
            assert error["extensions"]["code"] == "STORE_BUSY" and "lock" in error["message"], error

            holder.kill()
            holder.wait()
            after = client.post(f"{server.url}/graphql", json={"query": _RECORD, "variables": {"p": {"after": True}}})
            assert "errors" not in after.json() and after.json()["data"]["recordEvent"]["id"], after.text
            assert client.post(f"{server.url}/api/cache/store", json={"content": "after\n" * 5}).status_code == 200
    finally:
        if holder is not None and holder.poll() is None:
            holder.kill()
            holder.wait()
        server.stop()
    log = server.log()
    assert "Traceback" not in log, log[-3000:]
    busy_lines = [line for line in log.splitlines() if "STORE_BUSY" in line]
    assert len(busy_lines) == 2, log[-3000:]
