"""impact, the class hierarchy and one stored community, against a project indexed for real."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from graphsvc.errors import InputError, NotFoundError
from graphsvc.graph.driver import get_graph
from graphsvc.query import calls, community, hierarchy
from graphsvc.query.communities import compute_communities
from graphsvc.query.impact import changed_lines, impact, parse_diff
from tests.query.impact_project import HUB_CALLERS, indexed_project

WS = "graphsvc-impact-tests"


@pytest.fixture(scope="module")
def project(neo4j_server, tmp_path_factory):
    with indexed_project(tmp_path_factory, WS) as ws:
        yield ws


def _levels(result) -> list[set[tuple[str, str, str]]]:
    return [{(e.id, e.rel, e.via) for e in level.entities} for level in result.levels]


def test_impact_of_a_function_is_its_callers_then_theirs(project):
    r = impact("pkg/core.py#helper", workspace=project, depth=3)
    assert r.changed.items == ["pkg/core.py#helper"]
    assert _levels(r) == [
        {("pkg/core.py#Base.run", "CALLS", "pkg/core.py#helper"),
         ("tests/test_core.py#test_helper", "CALLS", "pkg/core.py#helper")},
        # Child.run both calls and overrides Base.run: one row, with the first of its edges.
        {("pkg/core.py#Child.run", "CALLS", "pkg/core.py#Base.run")},
        {("pkg/core.py#use", "CALLS", "pkg/core.py#Child.run")},
    ]
    assert [level.total for level in r.levels] == [2, 1, 1]
    assert r.tests.items == ["tests/test_core.py#test_helper"]
    assert {c.name: c.count for c in r.files.items} == {"pkg/core.py": 3, "tests/test_core.py": 1}
    assert r.complete
    assert r.summary.startswith("changing pkg/core.py#helper reaches 4 entities within 3 hops (2, 1, 1) in 2 files, 1 test")


def test_impact_of_a_class_takes_its_members_and_subclasses(project):
    r = impact("pkg/core.py#Base", workspace=project, depth=1)
    assert set(r.changed.items) == {"pkg/core.py#Base", "pkg/core.py#Base.run"}
    assert {(e.id, e.rel) for e in r.levels[0].entities} >= {("pkg/core.py#Child", "INHERITS")}
    assert "pkg/core.py#Child.run" in {e.id for e in r.levels[0].entities}


def test_impact_counts_unresolved_sites_that_could_add_to_it(project):
    # `Child().run()` resolves; nothing named `helper` is left unresolved.
    assert impact("pkg/core.py#helper", workspace=project).unresolved_sites == 0


@pytest.mark.parametrize(
    ("ref", "test"),
    [
        ("lib/calc.go#Add", "lib/calc_test.go#TestAdd"),
        ("crate/src/lib.rs#double", "crate/src/lib.rs#tests.doubles"),
        ("web/math.ts#square", "web/math.test.ts#checkSquare"),
        ("jv/src/main/java/demo/Calc.java#Calc.triple", "jv/src/test/java/demo/CalcTest.java#CalcTest.testTriple"),
    ],
)
def test_each_language_finds_its_tests_by_convention(project, ref, test):
    assert test in impact(ref, workspace=project).tests.items


def test_impact_of_files(project):
    r = impact(workspace=project, files=["lib/calc.go", "./web/math.ts", "gone.py"])
    assert {"lib/calc.go", "lib/calc.go#Add", "web/math.ts", "web/math.ts#square"} <= set(r.changed.items)
    assert r.not_indexed.items == ["gone.py"]
    assert {"lib/calc_test.go#TestAdd", "web/math.test.ts#checkSquare"} <= set(r.tests.items)


DIFF = """\
diff --git a/repo/pkg/core.py b/repo/pkg/core.py
--- a/repo/pkg/core.py
+++ b/repo/pkg/core.py
@@ -15,2 +15,3 @@ class GrandChild(Child):
 def helper():
-    return 1
+    value = 1
+    return value
@@ -20,0 +21,1 @@ def use():
+    # a comment
diff --git a/new.py b/new.py
new file mode 100644
--- /dev/null
+++ b/new.py
@@ -0,0 +1 @@
+x = 1
"""


def test_changed_lines_reads_the_old_side_of_a_unified_diff():
    # The lines added in place of line 16 replace it: they are not also an insertion after it.
    assert changed_lines(DIFF) == {"repo/pkg/core.py": [(16, 16), (20, 21)]}


def test_parse_diff_reads_both_sides():
    core, new = parse_diff(DIFF)
    assert (core.old_path, core.new_path, new.old_path, new.new_path) == ("repo/pkg/core.py", "repo/pkg/core.py", None, "new.py")
    assert core.new == [(16, 16), (17, 17), (21, 21)] and new.new == [(1, 1)]
    gone = parse_diff("--- a/x.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n")
    assert (gone[0].old, gone[0].new_path) == ([(1, 1), (2, 2)], None)


def test_impact_of_a_diff_is_the_impact_of_the_symbols_it_touches(project):
    r = impact(workspace=project, diff=DIFF, depth=1)
    # line 16 is in helper; the insertion after line 20 ends the file, past `use`'s last line.
    assert r.changed.items == ["pkg/core.py", "pkg/core.py#helper"]
    assert r.not_indexed.items == []
    assert {e.id for e in r.levels[0].entities} == {"pkg/core.py#Base.run", "tests/test_core.py#test_helper"}


def test_impact_refuses_what_it_cannot_answer(project):
    with pytest.raises(InputError, match="exactly one of ref, files or diff"):
        impact(workspace=project)
    with pytest.raises(InputError, match=r"got ref, files"):
        impact("pkg/core.py#helper", workspace=project, files=["pkg/core.py"])
    with pytest.raises(InputError, match="depth must be 1..4"):
        impact("pkg/core.py#helper", workspace=project, depth=0)
    with pytest.raises(NotFoundError, match="^ref 'nothing_here': nothing in workspace"):
        impact("nothing_here", workspace=project)


def test_impact_of_a_hub_stays_under_8_kb_and_says_what_it_left_out(project):
    r = impact("pkg/many.py#hub_function_called_from_everywhere", workspace=project)
    assert len(json.dumps(asdict(r))) < 8192
    first, second = r.levels
    assert (first.total, len(first.entities), first.limit, first.truncated) == (HUB_CALLERS, 10, 10, True)
    assert (second.total, len(second.entities), second.truncated) == (HUB_CALLERS, 10, True)
    assert (r.tests.total, len(r.tests.items), r.tests.truncated) == (HUB_CALLERS, 10, True)
    assert (r.files.total, r.files.truncated) == (2, False)
    assert len(impact("pkg/many.py#hub_function_called_from_everywhere", workspace=project, limit=3).levels[0].entities) == 3


def test_hierarchy_one_hop_and_transitive(project):
    direct = hierarchy.subclasses("pkg/core.py#Base", workspace=project)
    assert [(e.id, e.depth, e.rel) for e in direct.entities] == [("pkg/core.py#Child", 1, "INHERITS")]
    every = hierarchy.subclasses("pkg/core.py#Base", workspace=project, transitive=True)
    assert [(e.id, e.depth, e.via) for e in every.entities] == [
        ("pkg/core.py#Child", 1, "pkg/core.py#Base"), ("pkg/core.py#GrandChild", 2, "pkg/core.py#Child")]
    up = hierarchy.superclasses("pkg/core.py#GrandChild", workspace=project, transitive=True)
    assert [e.id for e in up.entities] == ["pkg/core.py#Child", "pkg/core.py#Base"]
    assert [e.id for e in hierarchy.superclasses("pkg/core.py#GrandChild", workspace=project).entities] == [
        "pkg/core.py#Child"]
    limited = hierarchy.subclasses("pkg/core.py#Base", workspace=project, transitive=True, limit=1)
    assert (len(limited.entities), limited.total, limited.truncated) == (1, 2, True)


def test_overrides_and_overridden_by(project):
    assert [e.id for e in hierarchy.overrides("pkg/core.py#Child.run", workspace=project).entities] == [
        "pkg/core.py#Base.run"]
    assert [e.id for e in hierarchy.overridden_by("pkg/core.py#Base.run", workspace=project).entities] == [
        "pkg/core.py#Child.run"]
    assert hierarchy.overridden_by("pkg/core.py#Child.run", workspace=project).entities == []


def test_community_hint_when_none_are_stored_then_one_read(project):
    with pytest.raises(NotFoundError, match="no communities stored for this workspace yet: compute them"):
        community.community(workspace=project, number=0)
    with pytest.raises(NotFoundError, match="is in no community: no communities stored"):
        community.community_of("pkg/core.py#helper", workspace=project)
    compute_communities(workspace=project, min_size=2)
    of = community.community_of("pkg/core.py#helper", workspace=project)
    assert of.member == "pkg/core.py#helper"
    assert of.size >= 2 and of.top_members and of.top_files.items
    same = community.community(workspace=project, number=of.number)
    assert (same.id, same.label, same.size, same.member) == (of.id, of.label, of.size, None)
    # The edges between two communities' members, counted from either end.
    for n in same.neighbours:
        other = community.community(workspace=project, number=n.number, limit=100)
        assert {m.number: m.edges for m in other.neighbours}[of.number] == n.edges
    assert all(not f.name.endswith("/") and "." in f.name for f in same.top_files.items)
    with pytest.raises(NotFoundError, match="no community 999"):
        community.community(workspace=project, number=999)


def test_unresolved_sites_are_read_again_only_after_an_index_run(project, monkeypatch):
    graph = get_graph()
    calls.unresolved_by_name(graph, project)
    reads_done = []
    real = calls.code_reads.unresolved_sites

    def counted(*args, **kwargs):
        reads_done.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(calls.code_reads, "unresolved_sites", counted)
    impact("pkg/core.py#helper", workspace=project)
    assert reads_done == []  # the same index run: the sites read before still hold
