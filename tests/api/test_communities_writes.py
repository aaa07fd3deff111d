"""Communities through the API: reads never write, and write-backs neither collide nor tear.

A read used to recompute and rewrite the partition: 20 aliases of the query field in one
request left communities whose `size` disagreed with their MEMBER_OF edges and a node in 20
communities. Now reads return the stored partition and only the mutation (or POST) writes,
one write-back per workspace at a time, each in one transaction.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from graphsvc.query.communities import compute_communities
from graphsvc.graph import writer
from graphsvc.graph.driver import get_graph
from graphsvc.model import WORKSPACE_ID

from tests.api.conftest import WS

pytestmark = pytest.mark.neo4j

COMPUTE = 'c{i}: computeCommunities(workspace: "%s", seed: {i}, resolution: {r}) {{ communityCount }}' % WS
READ = 'r{i}: communities(workspace: "%s") {{ communityCount communities {{ id size }} }}' % WS
# Every stored community of the workspace with its size, its members and its run stamp.
_PARTITION = """
MATCH (c:Community {workspace: $ws})
RETURN c.id AS id, c.size AS size, c.run AS run, c.community AS n,
       [(c)<-[:MEMBER_OF]-(m) | [m.id, m.community]] AS members
"""
_STRAYS = """
MATCH (n:Entity {workspace: $ws}) WHERE NOT n:Community
WITH n, COUNT { (n)-[:MEMBER_OF]->() } AS k
WHERE k > 1 OR (k = 0 AND n.community IS NOT NULL)
RETURN n.id AS id, k, n.community AS community
"""


def consistent(rows: list[dict]) -> list[str]:
    """What is wrong with a stored partition as read in one statement: nothing, for one run."""
    wrong = [f"{r['id']}: size {r['size']}, {len(r['members'])} members" for r in rows if r["size"] != len(r["members"])]
    wrong += [f"{r['id']}: member {m} says community {n}" for r in rows for m, n in r["members"] if n != r["n"]]
    if len({r["run"] for r in rows}) > 1:
        wrong.append(f"communities of {len({r['run'] for r in rows})} runs")
    return wrong


def assert_one_partition() -> None:
    graph = get_graph()
    rows = graph.read(_PARTITION, ws=WS)
    assert rows and not consistent(rows), consistent(rows)
    assert not graph.read(_STRAYS, ws=WS)


def snapshot() -> tuple:
    graph = get_graph()
    counts = graph.read("MATCH (n) RETURN count(n) AS n, COUNT { ()-[]->() } AS r")[0]
    communities = graph.read(
        "MATCH (c:Community {workspace: $ws}) RETURN c.id AS id, properties(c) AS props ORDER BY id", ws=WS
    )
    members = graph.read(
        "MATCH (n:Entity {workspace: $ws})-[r:MEMBER_OF]->(c) RETURN n.id AS id, n.community AS n, "
        "c.id AS cid, elementId(r) AS rel ORDER BY id",
        ws=WS,
    )
    return counts, communities, members


def errors(body: dict) -> list[str]:
    return [e.get("extensions", {}).get("code", "?") for e in body.get("errors", [])]


@pytest.mark.timeout(180)
def test_reads_leave_the_graph_as_it_was(serve, gql):
    url = serve()
    assert not errors(gql(url, "mutation { %s }" % COMPUTE.format(i=1, r=1.0)).json())
    before = snapshot()
    reads = gql(url, "{ %s }" % " ".join(READ.format(i=i) for i in range(20))).json()
    assert not errors(reads) and len({str(v) for v in reads["data"].values()}) == 1
    r = httpx.get(f"{url}/api/context/communities", params={"workspace": WS}, timeout=60)
    assert r.status_code == 200 and r.json()["stored"]
    r = httpx.get(f"{url}/api/context/query", params={"q": f"@{WS} communities=1"}, timeout=60)
    assert r.status_code == 200 and r.json()["communities"]["community_count"] >= 2
    q = gql(url, '{ contextQuery(query: "@%s communities=1") { communities { communityCount } } }' % WS).json()
    assert not errors(q)
    # Leiden arguments on a workspace read are refused, not quietly recomputed.
    refused = gql(url, '{ communities(workspace: "%s", seed: 9) { communityCount } }' % WS).json()
    assert errors(refused) == ["BAD_INPUT"] and "computeCommunities" in refused["errors"][0]["message"]
    r = httpx.get(f"{url}/api/context/query", params={"q": f"@{WS} communities=1 resolution=0.2"}, timeout=60)
    assert r.status_code == 400
    assert snapshot() == before


@pytest.mark.timeout(240)
def test_concurrent_computes_leave_one_consistent_partition(serve, gql):
    url = serve()
    body = gql(url, "mutation { %s }" % " ".join(COMPUTE.format(i=i, r=0.2 + 0.1 * i) for i in range(20))).json()
    assert not errors(body) and len(body["data"]) == 20
    assert_one_partition()

    def client(k: int) -> list[str]:
        found = []
        for j in range(3):
            if (k + j) % 2:
                b = gql(url, "mutation { %s }" % COMPUTE.format(i=10 * k + j, r=0.3 + 0.4 * k)).json()
                found += errors(b)
            else:
                r = httpx.post(
                    f"{url}/api/context/communities",
                    json={"workspace": WS, "seed": 10 * k + j, "resolution": 0.3 + 0.4 * k},
                    timeout=60,
                )
                found += [] if r.status_code == 200 else [r.json().get("code", str(r.status_code))]
        return found

    with ThreadPoolExecutor(4) as pool:
        found = [code for codes in pool.map(client, range(4), timeout=180) for code in codes]
    assert found == []
    assert_one_partition()


@pytest.mark.timeout(240)
def test_a_reader_never_sees_a_write_back_half_done(serve, gql):
    url = serve()
    stop = threading.Event()
    problems: list[str] = []
    reads = 0

    def writer(k: int) -> None:
        i = 0
        while not stop.is_set():
            # Alternate partitions that differ, so every write-back moves members.
            r = 0.2 if i % 2 else 1.5
            b = gql(url, "mutation { %s }" % COMPUTE.format(i=k * 100 + i, r=r)).json()
            problems.extend(f"writer: {code}" for code in errors(b))
            i += 1

    def reader() -> None:
        # Through the API: a single Cypher statement may see a commit half-way (Neo4j reads
        # what is committed as it goes), so the library reads the partition again then.
        nonlocal reads
        while not stop.is_set():
            r = httpx.get(f"{url}/api/context/communities", params={"workspace": WS, "limit": 100}, timeout=60)
            c = r.json()
            sizes = [x["size"] for x in c["communities"]]
            if sum(sizes) != c["nodes"] - c["unassigned"] or len(sizes) != c["community_count"]:
                problems.append(f"sizes {sizes} of {c['nodes']} nodes, {c['unassigned']} unassigned")
            reads += 1

    assert not errors(gql(url, "mutation { %s }" % COMPUTE.format(i=0, r=1.0)).json())
    threads = [threading.Thread(target=writer, args=(k,)) for k in range(2)] + [threading.Thread(target=reader)]
    for t in threads:
        t.start()
    time.sleep(20)
    stop.set()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert reads > 10 and problems == [], problems[:5]
    assert_one_partition()


# Each process has its own in-process lock: only Neo4j's lock on the workspace orders them.
_COMPUTE_IN_A_PROCESS = """
import sys
from graphsvc.query.communities import compute_communities
for i in range(12):
    # Processes out of step: each write-back moves members another just moved.
    compute_communities(workspace=sys.argv[1], seed=i, resolution=0.2 if (i + int(sys.argv[2])) % 2 else 1.5)
"""


@pytest.mark.timeout(240)
def test_write_backs_from_several_processes_queue_on_the_workspace(api_workspace):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _COMPUTE_IN_A_PROCESS, WS, str(k)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for k in range(3)
    ]
    failed = []
    for p in procs:
        _, err = p.communicate(timeout=180)
        if p.returncode:
            failed.append(err[-2000:])
    assert failed == []
    assert_one_partition()


@pytest.mark.timeout(120)
def test_a_write_back_waits_while_another_transaction_holds_the_workspace(api_workspace):
    graph = get_graph()
    compute_communities(workspace=WS, seed=2)  # warm: the next one takes well under the wait
    finished = threading.Event()
    with graph.driver.session(database=graph.database) as session:
        holder = session.begin_transaction()
        holder.run(writer._LOCK_WORKSPACE, ws=WS, id=WORKSPACE_ID).consume()
        thread = threading.Thread(target=lambda: (compute_communities(workspace=WS, seed=3), finished.set()))
        thread.start()
        waited = not finished.wait(5)
        holder.rollback()
    thread.join(60)
    assert waited and finished.is_set()
    assert_one_partition()
