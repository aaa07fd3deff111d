"""Every statement of a node's properties is derived from the model's records.

A property added to a record must reach the writer's statements, the reads' projection, the
returned `Entity` and the GraphQL type without being listed anywhere else; these tests fail
when one of them states its own list again.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphsvc import model
from graphsvc.graph import reads, runtime, writer
from graphsvc.query import engine, ranking
from graphsvc.model import DirectoryNode, ExternalNode, FileNode, SymbolNode, WorkspaceNode


def _stored_names(record: type) -> set[str]:
    names = set()
    for f in model.stored_fields(record):
        names |= {f.name, model.also(f)} - {None}
    return names


def _set_targets(cypher: str, var: str) -> set[str]:
    return set(re.findall(rf"\b{var}\.(\w+) =", cypher))


@pytest.mark.parametrize(
    ("record", "cypher", "var"),
    [
        (WorkspaceNode, writer._UPSERT_WORKSPACE, "w"),
        (DirectoryNode, writer._UPSERT_DIRS, "n"),
        (FileNode, writer._UPSERT_FILES, "n"),
        (SymbolNode, writer._UPSERT_SYMBOLS, "s"),
        (ExternalNode, writer._UPSERT_EXTERNALS, "s"),
        (model.FileParse, writer._MARK_FILES, "f"),
        (model.UnresolvedCalls, writer._SET_UNRESOLVED, "n"),
    ],
)
def test_writer_sets_exactly_the_stored_properties(record, cypher, var):
    assert _set_targets(cypher, var) == _stored_names(record) - {"id"}


def test_first_index_creates_symbols_with_the_stored_properties():
    created = set(re.findall(r"(\w+): (?:row\.\w+|\$ws|\"[^\"]*\")", writer._CREATE_SYMBOLS))
    assert created == _stored_names(SymbolNode) | {"workspace"}


def test_edges_carry_the_edge_record_properties():
    for cypher in writer._CREATE_EDGES.values():
        props = re.search(r"\[r:\w+ \{(.*)\}\]", cypher).group(1)
        assert set(re.findall(r"(\w+): row\.\1", props)) == _stored_names(model.CodeEdge)


def test_symbol_rows_hold_what_the_statements_read():
    s = SymbolNode("a.py#f", "f", "function", "a.py", "f", "def f()", "python", 1, 2, "a.py", "Doc.")
    row = writer.row(s)
    assert set(row) == set(re.findall(r"row\.(\w+)", writer._UPSERT_SYMBOLS))
    assert row["doc"] == "Doc." and "parent" not in row and "prov" not in row


def test_entity_is_every_returned_property_of_a_node_kind():
    returned = set()
    for record in (*model.NODE_RECORDS, *model.NODE_PART_RECORDS, *model.OVERLAY_NODE_RECORDS):
        for f in dataclasses.fields(record):
            if f.metadata.get(model.RETURNED):
                returned |= {f.name, model.also(f)} - {None}
    fields = {f.name for f in dataclasses.fields(model.Entity)}
    assert fields == returned | {"id", "workspace", "label", "labels", "community", "degree", "level"}
    assert set(model.ENTITY_PROPERTIES) == fields - {"label", "labels", "degree", "level"}


def test_reads_project_the_entity():
    projected = set(re.findall(r"(\w+): n\.(\w+)", reads._node("n")))
    assert projected == {(p, p) for p in model.ENTITY_PROPERTIES}


def test_graphql_entity_is_the_model_entity():
    from graphsvc.api.graph_api import GqlEntity

    names = [f.python_name for f in GqlEntity.__strawberry_definition__.fields]
    assert names == [f.name for f in dataclasses.fields(model.Entity)] + ["source"]  # read on request


def test_records_are_frozen():
    d = DirectoryNode(id="src/", name="src", path="src")
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.skip_reason = "unreadable"  # type: ignore[misc]
    assert (d.kind, d.prov) == ("dir", model.Prov.EXTRACTED)


def test_the_full_text_index_covers_the_searched_properties_of_the_model():
    """Search reads, ranks and indexes one list: each searched property is stored on some node
    kind, and the migration's full-text index covers exactly those properties."""
    stored = set().union(*(_stored_names(r) for r in (DirectoryNode, FileNode, SymbolNode, ExternalNode)))
    assert set(model.SEARCHED_PROPERTIES) <= stored
    migration = (Path(__file__).parents[2] / "schema" / "neo4j" / "004_search_words.cypher").read_text()
    indexed = re.findall(r"n\.(\w+)", migration.split("ON EACH", 1)[1])
    assert indexed == list(model.SEARCHED_PROPERTIES)
    assert engine.SEARCH_FIELDS == ranking.FIELDS == tuple(model.SEARCHED_PROPERTIES)
    assert engine.SEARCH_FIELDS[-1] == "doc"  # read apart from the node, cut to a length


def test_turn_community_and_workspace_statements_are_the_records_fields():
    """The runtime kinds and the end-of-run stamp are stated by their records too."""
    turn = dict(runtime._row(_Turn()))
    assert _set_targets(runtime._MIRROR_TURNS, "t") == _stored_names(model.TurnNode) - {"id"}
    assert set(re.findall(r"row\.(\w+)", runtime._MIRROR_TURNS)) == set(turn) - {"kind", "prov"}
    assert turn["keys"] == {"key_file_tree": "src/"} and turn["up"] == "turn:t-0"
    assert _set_targets(writer._UPSERT_COMMUNITIES, "c") == _stored_names(model.CommunityNode) - {"id"}
    run = {f.name for f in dataclasses.fields(model.CommunityRun)}
    assert set(re.findall(r"\.(\w+)", re.search(r"c \{(.*)\} AS run", reads._STORED_COMMUNITIES).group(1))) == run
    assert _set_targets(writer._MARK_WORKSPACE, "w") == _stored_names(model.WorkspaceIndexed) - {"id"}
    assert _set_targets(writer._MARK_TREE, "w") == _stored_names(model.WorkspaceTreeSynced) - {"id"}


@dataclasses.dataclass
class _Turn:
    id: str = "t-1"
    family_id: str = "t-0"
    parent_id: str | None = None
    workspace: str = "ws"
    session_id: str | None = "s"
    opened_at: datetime = datetime(2026, 1, 1, tzinfo=UTC)
    keys: dict = dataclasses.field(default_factory=lambda: {"file-tree": "src/"})
