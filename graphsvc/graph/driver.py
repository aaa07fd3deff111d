"""The one connection to Neo4j.

`connect()` uses ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD`` when set and otherwise the
managed server (installed and started on first use). Driver errors become
`Neo4jUnavailable` with a message that says what to do.

Nothing waits for Neo4j without a bound: connecting and taking a connection from the pool
have driver timeouts, every query has a transaction timeout that Neo4j enforces, and every
call gives up `STALL_GRACE_S` after that, for when Neo4j cannot enforce it (it cannot write,
e.g. on a full disk, or it stopped answering) and the driver would wait on the socket forever.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
from neo4j import GraphDatabase, Query
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConnectionAcquisitionTimeoutError,
    DatabaseUnavailable,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graphsvc.errors import InputError, Neo4jUnavailable
from graphsvc.graph.schema import apply_schema
from graphsvc.lazy import Lazy
from graphsvc.neo4j import ensure_running
from graphsvc.settings import Settings, get_settings

_OUTAGE = (ServiceUnavailable, SessionExpired, DatabaseUnavailable, ConnectionError, OSError)
# How long past a query's transaction timeout we still wait for Neo4j's answer (Neo4j checks
# timeouts every few seconds, later on a busy machine).
STALL_GRACE_S = 60.0
# verify_connectivity has no transaction: its bound before the grace.
PING_TIMEOUT_S = 10.0
_STUCK_HINT = (
    "check that the disk holding its data directory has free space and look at its log "
    "(`graphsvc neo4j logs` for the managed server), then run again"
)

T = TypeVar("T")


class _Job:
    """One call for a `_Callers` thread, and what it gave."""

    __slots__ = ("call", "done", "value", "error")

    def __init__(self, call: Callable[[], Any]):
        self.call = call
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.call()
        except BaseException as exc:  # handed to the waiting caller
            self.error = exc
        self.done.set()


class _Callers:
    """The daemon threads `Graph._bounded` runs its calls in, kept between calls: starting a
    thread for each read cost more than a short read's own Python work. A call given up leaves
    its thread blocked on the socket; the others carry on, and a thread is started whenever no
    idle one is left. Threads idle for `IDLE_S` end, so a burst leaves none behind."""

    IDLE_S = 60.0

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # threads waiting for a job, less the jobs already promised to them

    def submit(self, job: _Job) -> None:
        with self._lock:
            self._jobs.put(job)
            if self._idle:
                self._idle -= 1
                return
        threading.Thread(target=self._serve, name="neo4j-call", daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=self.IDLE_S)
            except queue.Empty:
                with self._lock:
                    # A job put since the timeout was promised to an idle thread: stay for it.
                    if self._idle and self._jobs.empty():
                        self._idle -= 1
                        return
                continue
            job.run()
            with self._lock:
                self._idle += 1


_CALLERS = _Callers()


class Graph:
    """A Neo4j driver plus the database name and the transaction timeout we always use."""

    def __init__(self, driver: neo4j.Driver, database: str, uri: str, timeout_s: float):
        self.driver = driver
        self.database = database
        self.uri = uri
        self.timeout_s = timeout_s

    def close(self) -> None:
        self.driver.close()

    def _timeout(self, timeout_s: float | None) -> float:
        return timeout_s if timeout_s is not None else self.timeout_s

    def read(self, cypher: str, timeout_s: float | None = None, **params: Any) -> list[dict]:
        """Run a read query; returns the records as dicts.

        One statement in an implicit transaction: one round trip (run and pull pipelined)
        where an explicit read transaction takes two (begin and run, then commit).
        """
        timeout = self._timeout(timeout_s)

        def run() -> list[dict]:
            with self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as s:
                return s.run(Query(cypher, timeout=timeout), params).data()

        return self._bounded("a read", timeout, run)

    def write(self, cypher: str, timeout_s: float | None = None, **params: Any) -> list[dict]:
        """Run a write query in its own transaction (retried by the driver on transient errors)."""
        timeout = self._timeout(timeout_s)
        records, _, _ = self._bounded(
            "a write",
            timeout,
            lambda: self.driver.execute_query(Query(cypher, timeout=timeout), params, database_=self.database),
        )
        return [r.data() for r in records]

    def write_transaction(self, work: Callable[[neo4j.ManagedTransaction], T], timeout_s: float | None = None) -> T:
        """Run `work(tx)` as one write transaction: it commits whole or not at all (the driver
        runs it again on a transient error such as a deadlock, so `work` reads what it needs)."""
        timeout = self._timeout(timeout_s)

        @neo4j.unit_of_work(timeout=timeout)
        def unit(tx: neo4j.ManagedTransaction) -> T:
            return work(tx)

        def run() -> T:
            with self.driver.session(database=self.database) as s:
                return s.execute_write(unit)

        return self._bounded("a write", timeout, run)

    def autocommit(self, cypher: str, timeout_s: float | None = None, **params: Any) -> None:
        """Run a statement in an implicit transaction (needed by ``CALL {…} IN TRANSACTIONS``)."""
        timeout = self._timeout(timeout_s)

        def run() -> None:
            with self.driver.session(database=self.database) as s:
                s.run(Query(cypher, timeout=timeout), params).consume()

        self._bounded("a write", timeout, run)

    @contextmanager
    def session(self) -> Iterator[neo4j.Session]:
        with self._errors(), self.driver.session(database=self.database) as s:
            yield s

    def ping(self) -> None:
        self._bounded("a connectivity check", PING_TIMEOUT_S, self.driver.verify_connectivity)

    def _bounded(self, what: str, timeout_s: float, call: Callable[[], T]) -> T:
        """`call()` with its driver errors mapped, given up `STALL_GRACE_S` after `timeout_s`.

        The call runs in a daemon thread because a blocked socket read cannot be interrupted:
        when it is given up, the thread is left waiting (and exits with the process).
        """
        job = _Job(call)
        with self._errors(timeout_s, writing=what == "a write"):
            _CALLERS.submit(job)
            bound = timeout_s + STALL_GRACE_S
            if not job.done.wait(bound):
                raise Neo4jUnavailable(
                    f"Neo4j at {self.uri} has not answered {what} for {bound:g} s, past its "
                    f"{timeout_s:g} s transaction limit: it cannot make progress; {_STUCK_HINT}"
                )
            if job.error is not None:
                raise job.error
            return job.value

    @contextmanager
    def _errors(self, timeout_s: float | None = None, writing: bool = False) -> Iterator[None]:
        timeout_s = self._timeout(timeout_s)
        try:
            yield
        except AuthError as exc:
            raise Neo4jUnavailable(
                f"Neo4j at {self.uri} refused the credentials: check NEO4J_USER/NEO4J_PASSWORD "
                "(or the managed server's password file; `graphsvc neo4j status` shows it)"
            ) from exc
        except _OUTAGE as exc:
            raise Neo4jUnavailable(
                f"cannot reach Neo4j at {self.uri} ({type(exc).__name__}): start it with "
                "`graphsvc neo4j start` or point NEO4J_URI at a running server"
            ) from exc
        except ConnectionAcquisitionTimeoutError as exc:
            raise Neo4jUnavailable(
                f"every connection to Neo4j at {self.uri} stayed busy: {exc}; Neo4j is overloaded "
                "or stuck, retry later"
            ) from exc
        except TransientError as exc:
            raise Neo4jUnavailable(f"Neo4j at {self.uri} gave up on a transaction: {exc.message}") from exc
        except ClientError as exc:
            if exc.code and exc.code.startswith("Neo.ClientError.Security."):
                # e.g. AuthenticationRateLimit after repeated wrong passwords: not an AuthError.
                raise Neo4jUnavailable(
                    f"Neo4j at {self.uri} refused the login: {exc.message}; check NEO4J_USER/NEO4J_PASSWORD"
                ) from exc
            if exc.code and "TransactionTimedOut" in exc.code and writing:
                raise Neo4jUnavailable(
                    f"Neo4j at {self.uri} did not finish a write within its {timeout_s:g} s transaction "
                    f"limit: it is overloaded or cannot write; {_STUCK_HINT}"
                ) from exc
            if exc.code and "TransactionTimedOut" in exc.code:
                raise InputError(
                    f"the query took longer than the {timeout_s:g} s transaction limit; "
                    "narrow it (lower depth or limit)"
                ) from exc
            raise


def connect(settings: Settings | None = None) -> Graph:
    """Open a driver to the configured Neo4j (or the managed one) and check it answers."""
    settings = settings or get_settings()
    cfg = settings.neo4j
    if cfg.uri:
        uri, user, password = cfg.uri, cfg.user, cfg.password or ""
    else:
        info = ensure_running(settings)
        uri, user, password = info.uri, info.user, info.password
    driver = GraphDatabase.driver(
        uri,
        auth=(user, password),
        max_connection_pool_size=50,
        connection_acquisition_timeout=10.0,
        connection_timeout=5.0,
        max_transaction_retry_time=5.0,
        notifications_min_severity="OFF",
    )
    graph = Graph(driver, cfg.database, uri, cfg.transaction_timeout_s)
    try:
        graph.ping()
    except Exception:
        driver.close()
        raise
    return graph


def _open_shared() -> Graph:
    graph = connect()
    apply_schema(graph)
    return graph


_shared: Lazy[Graph] = Lazy(_open_shared, Graph.close)


def get_graph() -> Graph:
    """The process-wide connection, opened on first use (and its schema applied)."""
    return _shared.get()


def reset_graph() -> None:
    """Close the process-wide connection (tests switch servers)."""
    _shared.reset()
