"""A real browser: GraphiQL runs a contextQuery, the Neo4j Browser renders a graph in our style.

Headless Debian Chromium driven by Playwright (no browser download). Screenshots are kept in
artifacts/ at the repository root.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

from graphsvc.query.communities import compute_communities
from graphsvc.graph.driver import connect, get_graph, reset_graph
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.settings import REPO_ROOT, get_settings

from tests.api.conftest import running
from tests.query.conftest import build_workspace

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO_ROOT / "artifacts"
WS = "graphsvc-browser-tests"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            tempfile.mkdtemp(prefix="graphsvc-chromium-"),
            executable_path=str(CHROMIUM),
            args=ARGS,
            headless=True,
            viewport={"width": 1400, "height": 900},
        )
        yield context
        context.close()


@pytest.fixture(scope="module")
def site(neo4j_server):
    reset_graph()
    get_graph()
    g = connect()
    build_workspace(g, WS)
    g.write("CALL db.awaitIndexes(60)")
    compute_communities(workspace=WS, seed=1, graph=g)
    with running(get_settings()) as url:
        yield url
    drop_workspace(WS, g)
    g.close()


def test_graphiql_runs_a_context_query(browser, site):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page()
    query = '{ contextQuery(query: "@%s lazy OR helper") { operation search { hits { entity { id kind } matched } } } }' % WS
    page.goto(f"{site}/graphql", wait_until="networkidle")
    editor = ".graphiql-query-editor .CodeMirror"
    page.locator(editor).first.wait_for(timeout=30_000)
    page.evaluate("([sel, q]) => document.querySelector(sel).CodeMirror.setValue(q)", [editor, query])
    page.locator(".graphiql-execute-button").click()
    response = page.locator(".graphiql-response")
    response.get_by_text("src/models.py#QuerySet").wait_for(timeout=30_000)
    assert "src/pkg/util.py#helper" in response.inner_text()
    page.screenshot(path=str(ARTIFACTS / "graphiql-context-query.png"))
    page.close()


def test_neo4j_browser_renders_the_graph_in_our_style(browser, site, neo4j_instance, neo4j_server):
    ARTIFACTS.mkdir(exist_ok=True)
    http = neo4j_instance.status().browser_url
    bolt = urlparse(neo4j_server.uri)
    page = browser.new_page()
    page.goto(f"{http}?dbms=bolt://127.0.0.1:{bolt.port}", wait_until="networkidle")
    page.locator('[data-testid="username"]').fill(neo4j_server.user)
    page.locator('[data-testid="password"]').fill(neo4j_server.password)
    page.locator('[data-testid="connect"]').click()
    page.get_by_text("You are connected as user").first.wait_for(timeout=30_000)

    def run(command: str) -> None:
        editor = page.locator(".monaco-editor").first
        editor.click()
        page.keyboard.type(command)
        page.locator('[data-testid="editor-Run"]').first.click()

    port = urlparse(site).port
    run(f":style http://localhost:{port}/browser/graphsvc.grass")
    page.get_by_text("node.Community").first.wait_for(timeout=30_000)  # the style frame shows the file
    run(
        f"MATCH (n:Entity {{workspace: '{WS}'}})-[r:CALLS|INHERITS|MEMBER_OF]->(m) "
        "WHERE NOT m:Workspace RETURN n, r, m"
    )
    page.locator("svg g.node").first.wait_for(timeout=30_000)
    time.sleep(3)  # let the force layout settle for the screenshot
    nodes = page.locator("svg g.node").count()
    fills = {c.get_attribute("fill") for c in page.locator("svg g.node circle.b-outline").all()}
    page.screenshot(path=str(ARTIFACTS / "neo4j-browser-graph.png"))
    page.close()
    assert nodes >= 10
    # Our colours (symbols, communities), which are not in the Browser's default palette.
    assert {"#2A9D8F", "#7B2CBF"} <= {f.upper() for f in fills if f}, fills
