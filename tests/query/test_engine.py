"""The engine against a real Neo4j, on the small workspace of conftest.py."""

from __future__ import annotations

import pytest

from graphsvc.errors import AmbiguousError, InputError, NotFoundError
from graphsvc.query import engine
from graphsvc.query.arguments import MAX_ID_CHARS
from graphsvc.query.communities import COMPUTE_HINT, compute_communities
from graphsvc.query.parser import QueryParseError

from tests.query.conftest import OTHER_WS, WS

pytestmark = pytest.mark.neo4j


def test_search_ranks_exact_names_first_and_says_what_matched(graph):
    res = engine.context_query(f"@{WS} Model")
    ids = [h.entity.id for h in res.search.hits]
    assert ids[0] == "src/models.py#Model"
    assert "src/models.py#Model.save" in ids  # qualified name matches too, ranked lower
    assert "m.py#Model" not in ids  # the other workspace is out of scope
    assert "name" in res.search.hits[0].matched


def test_search_or_matches_either_term_and_and_needs_both(graph):
    either = {h.entity.id for h in engine.context_query(f"@{WS} queryset OR helper").search.hits}
    assert {"src/models.py#QuerySet", "src/pkg/util.py#helper"} <= either
    both = {h.entity.id for h in engine.context_query(f"@{WS} lazy lookup").search.hits}
    assert both == {"src/models.py#QuerySet"}
    hit = engine.context_query(f'@{WS} "lazy database"').search.hits[0]
    assert hit.entity.id == "src/models.py#QuerySet" and hit.matched == ["doc"]


def test_search_filters_kind_and_limit_reports_truncation(graph):
    res = engine.search("f1 OR f2 OR f3 OR f4", workspace=WS, limit=2)
    assert len(res.hits) == 2 and res.truncated
    files = engine.search("util", workspace=WS, kinds=["file"])
    assert [h.entity.id for h in files.hits] == ["src/pkg/util.py"]
    assert all(h.entity.kind == "method" for h in engine.search("save OR filter", workspace=WS, kinds=["method"]).hits)


@pytest.mark.parametrize("text", [
    'x"y', "a:b",
    "title:[a TO b]", "*", "a && b", "\\", "OR", "NOT x~2",
])
def test_search_treats_lucene_syntax_as_data(graph, text):
    # Nothing holds the text: no hits, never a Lucene syntax error or a match-all wildcard;
    # ORed with a word, it leaves that word's hits as they are.
    assert engine.search([[text]], workspace=WS).hits == []
    alone = {h.entity.id for h in engine.search("helper", workspace=WS).hits}
    either = {h.entity.id for h in engine.search([[text, "helper"]], workspace=WS).hits}
    assert either == alone and "src/pkg/util.py#helper" in alone


def test_search_keeps_only_entities_holding_every_word_of_a_keyword(graph):
    # Lucene splits both at the punctuation and finds `x` in `def helper(x)`; only the
    # second keyword is held by that signature.
    assert engine.search([['x"y']], workspace=WS).hits == []
    assert [h.entity.id for h in engine.search([["(x"]], workspace=WS).hits] == ["src/pkg/util.py#helper"]


def test_entity_resolution_by_id_qualified_name_suffix_and_ambiguity(graph):
    assert engine.entity("src/app.py#App.run", workspace=WS).id == "src/app.py#App.run"
    assert engine.entity("App.run", workspace=WS).id == "src/app.py#App.run"
    assert engine.entity("util.py", workspace=WS).id == "src/pkg/util.py"
    with pytest.raises(AmbiguousError) as info:
        engine.entity("run", workspace=WS)
    assert info.value.candidates == ["src/app.py#App.run", "src/pkg/util.py#run"]
    with pytest.raises(NotFoundError):
        engine.entity("no_such_thing", workspace=WS)
    with pytest.raises(NotFoundError, match="no entities"):
        engine.entity("x", workspace="graphsvc-query-tests-nothing-here")


def test_neighborhood_depth_filters_and_confidence(graph):
    one = engine.neighborhood("src/app.py#main", workspace=WS, rels=["CALLS"])
    assert {n.id for n in one.nodes} == {"src/app.py#App.run"}  # candidate edges excluded by default
    assert not one.truncated
    assert [(e.source, e.type, e.target, e.confidence) for e in one.edges] == [
        ("src/app.py#main", "CALLS", "src/app.py#App.run", 1.0)
    ]
    with_candidates = engine.neighborhood("src/app.py#main", workspace=WS, rels=["CALLS"], min_confidence=0.5)
    assert {n.id for n in with_candidates.nodes} == {
        "src/app.py#App.run", "src/pkg/util.py#format_name", "src/models.py#Model"
    }
    two = engine.neighborhood("src/app.py#main", workspace=WS, rels=["CALLS"], depth=2)
    assert {n.id: n.level for n in two.nodes} == {
        "src/app.py#App.run": 1, "src/models.py#Model.save": 2, "src/models.py#QuerySet.filter": 2
    }
    edge = next(e for e in two.edges if e.target == "src/models.py#Model.save" and e.source == "src/app.py#App.run")
    assert (edge.type, edge.prov, edge.confidence, edge.reason) == ("CALLS", "INFERRED", 1.0, "import")
    # The edge between the two level-2 nodes is part of the answer too.
    assert any(e.source == "src/models.py#QuerySet.filter" for e in two.edges)
    extracted = engine.neighborhood("src/models.py", workspace=WS, provs=["EXTRACTED"])
    assert all(e.prov == "EXTRACTED" for e in extracted.edges)
    assert "src/app.py" in {n.id for n in extracted.nodes}


def test_neighborhood_limit_is_reported_as_truncation(graph):
    res = engine.neighborhood("src/pkg/util.py#helper", workspace=WS, limit=3)
    assert len(res.nodes) == 3 and res.truncated
    full = engine.neighborhood("src/pkg/util.py#helper", workspace=WS)
    assert len(full.nodes) == 8 and not full.truncated
    with pytest.raises(InputError):
        engine.neighborhood("helper", workspace=WS, depth=5)
    with pytest.raises(InputError, match="relationship type"):
        engine.neighborhood("helper", workspace=WS, rels=["CALLS]->() DETACH DELETE (x"])


def test_paths_shortest_directed_and_bounded(graph):
    res = engine.context_query(f"@{WS} path=main->join")
    assert [len(p.edges) for p in res.paths.paths] == [3]
    assert [n.id for n in res.paths.paths[0].nodes] == [
        "src/app.py#main", "src/app.py#App.run", "src/models.py#Model.save", "ext:os.path#join"
    ]
    assert engine.paths("main", "join", workspace=WS, max_hops=2).paths == []
    # Undirected, f3 reaches f1 through helper or f2 (two shortest paths); directed, it cannot.
    assert len(engine.paths("f3", "f1", workspace=WS, rels=["CALLS"]).paths) == 2
    assert engine.paths("f3", "f1", workspace=WS, rels=["CALLS"], directed=True).paths == []
    assert len(engine.paths("f1", "f3", workspace=WS, rels=["CALLS"], directed=True).paths) == 1


def test_explain_finds_hubs_and_the_path_to_the_nearest(graph):
    res = engine.explain("src/pkg/util.py#f1", workspace=WS)
    degree_ids = [h.entity.id for h in res.hubs_by_degree]
    assert degree_ids[0] == "src/pkg/util.py"  # contains the most
    assert "src/pkg/util.py#helper" in degree_ids[:3]
    assert "src/pkg/util.py#helper" in [h.entity.id for h in res.hubs_by_pagerank][:2]
    assert res.nearest_hub is not None
    assert res.path_to_hub.length == 1
    assert res.path_to_hub.nodes[0].id == "src/pkg/util.py#f1"
    assert "f1" in res.summary and res.neighborhood_size == len(
        engine.neighborhood("src/pkg/util.py#f1", workspace=WS, depth=2, limit=300).nodes
    )


def test_overview_and_errors(graph):
    res = engine.context_query(f"@{WS}")
    counts = {c.name: c.count for c in res.overview.counts}
    assert counts["Symbol:function"] == 10
    with pytest.raises(QueryParseError):
        engine.context_query(f"@{WS} neigh=")
    with pytest.raises(InputError, match="turn id"):
        engine.context_query(f"@{WS} key=goal")
    assert OTHER_WS != WS


def test_communities_deterministic_and_replaced_on_rerun(graph):
    none = engine.context_query(f"@{OTHER_WS} communities=1")
    assert (none.communities.community_count, none.communities.communities, none.communities.hint) == (0, [], COMPUTE_HINT)
    assert none.text() == COMPUTE_HINT
    first = compute_communities(workspace=WS, seed=3)
    assert first.nodes == len(graph.read("MATCH (n:Entity {workspace: $ws}) WHERE NOT n:Community AND NOT n:Workspace RETURN n", ws=WS))
    assert first.community_count >= 2 and first.modularity > 0.3
    assert first.fetch_s >= 0 and first.leiden_s >= 0 and first.write_s >= 0
    sizes = [c.size for c in first.communities]
    assert sizes == sorted(sizes, reverse=True)
    members = {c.label: {m.id for m in c.top_members} for c in first.communities}
    util = next(c for c in first.communities if "src/pkg/util.py#helper" in {m.id for m in c.top_members})
    assert util.label.startswith("src/pkg/")

    def stored():
        rows = graph.read(
            "MATCH (n:Entity {workspace: $ws})-[r:MEMBER_OF]->(c:Community) "
            "RETURN n.id AS id, n.community AS n, c.id AS cid, r.prov AS prov, r.reason AS reason",
            ws=WS,
        )
        return {r["id"]: (r["n"], r["cid"], r["prov"], r["reason"]) for r in rows}

    before = stored()
    assert len(before) == first.nodes - first.unassigned
    assert {v[2:] for v in before.values()} == {("INFERRED", "leiden")}
    # Reading gives the stored partition back, as the run answered it.
    answer = engine.context_query(f"@{WS} communities=1")
    assert answer.text().startswith(f"{first.community_count} stored communities over {first.nodes} nodes")
    read = answer.communities
    assert read.stored and read.hint is None
    assert read.communities == first.communities
    assert (read.nodes, read.edges, read.modularity, read.seed) == (first.nodes, first.edges, first.modularity, 3)
    with pytest.raises(InputError, match="seed is an argument of computing"):
        engine.context_query(f"@{WS} communities=1 seed=3")
    second = compute_communities(workspace=WS, seed=3)
    assert [(c.label, c.size) for c in second.communities] == [(c.label, c.size) for c in first.communities]
    assert stored() == before
    assert {c.label: {m.id for m in c.top_members} for c in second.communities} == members
    count = graph.read("MATCH (c:Community {workspace: $ws}) RETURN count(c) AS n", ws=WS)[0]["n"]
    assert count == second.community_count
    # A run with other settings replaces, not adds to, the previous one.
    cpm = compute_communities(workspace=WS, objective="cpm", resolution=0.5, min_size=2, seed=1)
    count = graph.read("MATCH (c:Community {workspace: $ws}) RETURN count(c) AS n", ws=WS)[0]["n"]
    assert count == cpm.community_count
    assert len(stored()) == cpm.nodes - cpm.unassigned
    assert_one_partition(graph)
    # The reference implementation answers the same question, and its run replaces the last.
    ref = compute_communities(workspace=WS, seed=3, algorithm="leidenalg")
    assert ref.algorithm == "leidenalg" and ref.modularity > 0.3
    assert len(stored()) == ref.nodes - ref.unassigned
    assert_one_partition(graph)
    assert compute_communities(workspace=WS, seed=3, write=False).modularity == first.modularity


def assert_one_partition(graph):
    """Every member has one MEMBER_OF edge, to the community its property names; no strays."""
    rows = graph.read(
        "MATCH (n:Entity {workspace: $ws}) WHERE NOT n:Community "
        "OPTIONAL MATCH (n)-[:MEMBER_OF]->(c:Community) "
        "RETURN n.id AS id, n.community AS n, collect(c.community) AS cs",
        ws=WS,
    )
    for row in rows:
        assert row["cs"] == ([] if row["n"] is None else [row["n"]]), row


def test_turn_scopes_queries_and_reads_its_keys(graph, tmp_path, monkeypatch):
    from graphsvc.context.store import get_store, reset_store
    from graphsvc.settings import reload_settings

    monkeypatch.setenv("GRAPHSVC_HOME", str(tmp_path / "home"))
    reload_settings()
    reset_store()
    try:
        turn = get_store().turns.open_turn(WS, keys={"goal": "make save() atomic", "clone_path": "/src/app"})
        goal = engine.context_query(f"{turn.id} key=goal")
        assert (goal.turn_id, goal.workspace, goal.key.value) == (turn.id, WS, "make save() atomic")
        assert engine.context_query(f"{turn.id} key=plan").key.value is None
        scoped = engine.context_query(f"{turn.id} neigh=App.run")
        assert scoped.workspace == WS and scoped.neighborhood.center.id == "src/app.py#App.run"
        with pytest.raises(NotFoundError, match="no turn"):
            engine.context_query("no-such-turn Model")
        # A turn's subgraph: what it touched and their neighbours.
        graph.write(
            "CREATE (t:Entity:Turn {workspace: $ws, id: $tid, name: $tid, kind: 'turn', prov: 'RUNTIME'}) "
            "WITH t MATCH (n:Entity {workspace: $ws}) WHERE n.id IN ['src/pkg/util.py#helper', 'src/pkg/util.py#f1'] "
            "CREATE (t)-[:TOUCHED {prov: 'RUNTIME', confidence: 1.0, reason: 'runtime'}]->(n)",
            ws=WS,
            tid=f"turn:{turn.id}",
        )
        # Read: the turn's subgraph is partitioned on the spot and nothing is stored.
        members = "MATCH (n:Entity {workspace: $ws}) WHERE n.community IS NOT NULL RETURN n.id AS id"
        stored_before = graph.read(members, ws=WS)
        res = engine.context_query(f"{turn.id} communities=1 seed=2 min_conf=0.5").communities
        assert res.turn_id == turn.id and not res.stored
        assert graph.read(members, ws=WS) == stored_before
        # Computed: the turn's partition becomes the workspace's stored one.
        compute_communities(workspace=WS, turn_id=turn.id, seed=2)
        ids = {m["id"] for m in graph.read(members, ws=WS)}
        assert "src/pkg/util.py#helper" in ids and "src/app.py#App.run" not in ids
        assert engine.context_query(f"@{WS} communities=1").communities.turn_id == turn.id
    finally:
        reset_store()
        monkeypatch.undo()
        reload_settings()


def test_overlong_ids_workspaces_and_turn_ids_are_refused_before_any_lookup(graph):
    over = "s" * (MAX_ID_CHARS + 1)
    calls = {
        "entity id": lambda: engine.entity(over, workspace=WS),
        "neighborhood id": lambda: engine.neighborhood(over, workspace=WS),
        "path source": lambda: engine.paths(over, "main", workspace=WS),
        "path target": lambda: engine.paths("main", over, workspace=WS),
        "explain id": lambda: engine.explain(over, workspace=WS),
        "workspace": lambda: engine.entity("main", workspace=over),
        "search workspace": lambda: engine.search("helper", workspace=over),
        "query workspace": lambda: engine.context_query(f"@{over} helper"),
        "query neigh id": lambda: engine.context_query(f'@{WS} neigh="{over}"'),
    }
    for what, call in calls.items():
        with pytest.raises(InputError, match=f"at most {MAX_ID_CHARS}") as info:
            call()
        assert not isinstance(info.value, NotFoundError), what
        assert over not in str(info.value), what
    # At the bound an id is still looked up (and simply not found).
    with pytest.raises(NotFoundError):
        engine.entity("s" * MAX_ID_CHARS, workspace=WS)
