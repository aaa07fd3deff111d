"""schemathesis against a running server with a real Neo4j: the REST OpenAPI document and GraphQL.

Bounded by `--max-examples` per operation and a fixed seed, so the run is the same each time
and takes a few minutes. Checks: no 5xx, REST responses match their documented schema, and
no GraphQL resolver failed unexpectedly (those answer 200 with an INTERNAL error and are
logged by `graphsvc.api` at ERROR level, which this test collects).
"""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from tests.api.conftest import running
from graphsvc.api import cache_api
from graphsvc.context.store import reset_store
from graphsvc.graph.driver import connect, get_graph, reset_graph
from graphsvc.indexing.workspaces import drop_workspace, workspaces
from graphsvc.settings import reload_settings
from tests.query.conftest import build_workspace

pytestmark = [pytest.mark.neo4j, pytest.mark.timeout(480)]

WS = "graphsvc-schemathesis-tests"
SEED = "20261202"


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(scope="module")
def fuzzed_server(neo4j_server, tmp_path_factory):
    home = tmp_path_factory.mktemp("schemathesis-home")
    roots = tmp_path_factory.mktemp("schemathesis-roots")
    (roots / "repo").mkdir()
    (roots / "repo" / "mod.py").write_text("def f():\n    return 1\n")
    with pytest.MonkeyPatch.context() as mp:
        # A private context store: the fuzzer resets caches and prunes events.
        mp.setenv("GRAPHSVC_HOME", str(home))
        mp.setenv("GRAPHSVC_SERVER__WORKSPACE_ROOTS", f'["{roots}"]')
        # A fresh Neo4j on a busy machine plans its first queries slowly.
        mp.setenv("GRAPHSVC_NEO4J__TRANSACTION_TIMEOUT_S", "180")
        settings = reload_settings()
        reset_store()
        cache_api.reset_instances()
        reset_graph()
        get_graph()
        graph = connect()
        build_workspace(graph, WS)
        collected = _Collect()
        logging.getLogger("graphsvc").addHandler(collected)
        try:
            with running(settings.model_copy(deep=True)) as url:
                yield url, collected
        finally:
            logging.getLogger("graphsvc").removeHandler(collected)
            for made in workspaces(graph):  # the fixture's and those the generated calls created
                if made.name.startswith(WS):
                    drop_workspace(made.name, graph)
            graph.close()
            reset_store()
            cache_api.reset_instances()
    reload_settings()
    reset_graph()


def _schemathesis(location: str, checks: str, max_examples: int, tmp_path) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable, "-m", "schemathesis.cli", "run", location,
        "--checks", checks,
        "--max-examples", str(max_examples),
        "--seed", SEED,
        "--workers", "1",
        "--request-timeout", "120",
        "--phases", "examples,coverage,fuzzing",
        "--suppress-health-check", "all",
        "--generation-database", "none",
        "--no-color",
        "--report-dir", str(tmp_path),
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=420, stdin=subprocess.DEVNULL)


def _unexpected(collected: _Collect) -> list[str]:
    return [r.getMessage() + " " + repr(r.exc_info[1] if r.exc_info else None) for r in collected.records]


def test_rest_openapi_no_5xx_and_responses_match_the_schema(fuzzed_server, tmp_path):
    url, collected = fuzzed_server
    before = len(collected.records)
    run = _schemathesis(f"{url}/openapi.json", "not_a_server_error,response_schema_conformance", 12, tmp_path)
    tail = run.stdout[-6000:]
    assert run.returncode == 0, tail
    assert _unexpected(collected)[before:] == []


SAFE_CODES = {"BAD_INPUT", "BAD_QUERY", "NOT_FOUND", "AMBIGUOUS"}


def test_graphql_no_5xx_and_only_structured_input_errors(fuzzed_server):
    """schemathesis' own GraphQL check counts every `errors` entry as a failure, including the
    BAD_INPUT answers we give on purpose; so its generator drives this test and we judge: no
    5xx, and every error is a documented input error (or a validation error before any
    resolver ran), never INTERNAL."""
    url, collected = fuzzed_server
    before = len(collected.records)
    schema = schemathesis.graphql.from_url(f"{url}/graphql")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 30
    bad: list[tuple[str, int, str]] = []
    calls = 0

    for operation in operations:
        @settings(max_examples=6, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(operation.as_strategy())
        def call(case):
            nonlocal calls
            response = case.call(timeout=120)
            calls += 1
            if response.status_code >= 500:
                bad.append((operation.label, response.status_code, response.text[:300]))
                return
            for error in response.json().get("errors") or []:
                code = (error.get("extensions") or {}).get("code")
                if not (code in SAFE_CODES or (code is None and not error.get("path"))):
                    bad.append((operation.label, response.status_code, str(error)[:300]))

        call()
    assert calls >= 100
    assert bad == []
    assert _unexpected(collected)[before:] == []

