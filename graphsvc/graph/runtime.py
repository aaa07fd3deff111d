"""The Cypher that mirrors the turn index into Neo4j as RUNTIME facts.

A turn becomes a `TurnNode` (``:Entity:Turn``, id ``turn:<turn id>``) in its workspace, and
each of its keys a ``key_<name>`` property (non-alphanumerics in the name become ``_``:
``file-tree`` -> ``key_file_tree``).

``IN_TURN`` points from a turn to the turn it continues: its parent, or, for a turn opened
without a parent in a family named after another turn, that family's root turn. Following
``IN_TURN`` from any turn therefore walks up to the turn that started the family.

``TOUCHED`` points from a turn to the entities it touched, in the same workspace, by id;
entities not (yet) in the graph are left out and reported, never created.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Protocol

from graphsvc.graph.driver import Graph, get_graph
from graphsvc.graph.writer import created, merge_nodes, row
from graphsvc.model import Label, Prov, Reason, Rel, TurnNode, turn_id

_KEY_CHARS = re.compile(r"[^A-Za-z0-9_]")

# Rows: a TurnNode's row with the turn's `workspace`, its `keys` as properties, and the id
# and name of the turn it continues (`up`, `up_name`).
_MIRROR_TURNS = merge_nodes(TurnNode, "t", workspace="row.workspace") + f"""SET t += row.keys
WITH t, row
WHERE row.up IS NOT NULL
MERGE (p:Entity {{workspace: row.workspace, id: row.up}})
ON CREATE SET {created(TurnNode, "p")}, p.name = row.up_name
MERGE (t)-[r:{Rel.IN_TURN}]->(p)
SET r.prov = '{Prov.RUNTIME}', r.confidence = 1.0, r.reason = '{Reason.RUNTIME}'
"""

_MIRROR_TOUCHED = f"""
MATCH (t:{Label.TURN}:Entity {{workspace: $workspace, id: $turn}}) USING INDEX SEEK t:Entity(workspace, id)
UNWIND $ids AS eid
MATCH (e:Entity {{workspace: $workspace, id: eid}}) USING INDEX SEEK e:Entity(workspace, id)
MERGE (t)-[r:{Rel.TOUCHED}]->(e)
SET r.prov = '{Prov.RUNTIME}', r.confidence = 1.0, r.reason = '{Reason.RUNTIME}'
RETURN collect(DISTINCT e.id) AS linked
"""

_TURN_NODE = f"""
MATCH (t:{Label.TURN}:Entity {{workspace: $workspace, id: $id}}) USING INDEX SEEK t:Entity(workspace, id)
OPTIONAL MATCH (t)-[:{Rel.IN_TURN}]->(up)
OPTIONAL MATCH (t)-[:{Rel.TOUCHED}]->(e)
RETURN properties(t) AS turn, up.id AS up, collect(e.id) AS touched
"""


class Turn(Protocol):
    """What the mirror reads of a turn (`graphsvc.context.turns.Turn` has it; the store sits
    beside the graph, so neither package imports the other)."""

    @property
    def id(self) -> str: ...
    @property
    def family_id(self) -> str: ...
    @property
    def parent_id(self) -> str | None: ...
    @property
    def workspace(self) -> str: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def opened_at(self) -> datetime: ...
    @property
    def keys(self) -> Mapping[str, str]: ...


class TurnMirror:
    """The turn index's mirror into Neo4j (see `graphsvc.context.turns.TurnIndex.mirror`).

    Without a graph it opens the process-wide one on first use, so an outage surfaces
    inside the mirror run, which reports it and leaves the rows pending.
    """

    def __init__(self, graph: Graph | None = None):
        self._graph = graph

    @property
    def graph(self) -> Graph:
        if self._graph is None:
            self._graph = get_graph()
        return self._graph

    def turns(self, turns: list[Turn]) -> None:
        mirror_turns(self.graph, turns)

    def touched(self, turn: Turn, entity_ids: list[str]) -> list[str]:
        return mirror_touched(self.graph, turn, entity_ids)


def key_property(name: str) -> str:
    return "key_" + _KEY_CHARS.sub("_", name)


def _row(turn: Turn) -> dict:
    up = turn.parent_id
    if up is None and turn.family_id != turn.id:
        up = turn.family_id
    node = TurnNode(
        id=turn_id(turn.id), name=turn.id, family=turn.family_id, session=turn.session_id,
        opened_at=turn.opened_at.isoformat(),
    )
    return row(node) | {
        "workspace": turn.workspace,
        "keys": {key_property(name): value for name, value in turn.keys.items()},
        "up": turn_id(up) if up else None,
        "up_name": up,
    }


def mirror_turns(graph: Graph, turns: list[Turn]) -> None:
    """MERGE the turns and their IN_TURN edges (one UNWIND batch)."""
    if turns:
        graph.write(_MIRROR_TURNS, rows=[_row(t) for t in turns])


def mirror_turn(graph: Graph, turn: Turn) -> None:
    mirror_turns(graph, [turn])


def mirror_touched(graph: Graph, turn: Turn, entity_ids: list[str]) -> list[str]:
    """MERGE TOUCHED edges to the entities that exist; returns the ids that were linked."""
    if not entity_ids:
        return []
    linked: list[str] = []
    for i in range(0, len(entity_ids), 5000):
        records = graph.write(
            _MIRROR_TOUCHED,
            workspace=turn.workspace,
            turn=turn_id(turn.id),
            ids=entity_ids[i : i + 5000],
        )
        if records:
            linked.extend(records[0]["linked"])
    return linked


def turn_node(graph: Graph, turn: Turn) -> dict | None:
    """The mirrored node of a turn: its properties, where IN_TURN leads, what it TOUCHED."""
    records = graph.read(_TURN_NODE, workspace=turn.workspace, id=turn_id(turn.id))
    return records[0] if records else None
