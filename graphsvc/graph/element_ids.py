"""Element ids of the nodes a graph writer wrote or looked up, kept compactly."""

from __future__ import annotations

from collections.abc import Iterable


class ElementIds:
    """Node id -> Neo4j element id, for every node a writer wrote or looked up. An element id
    is ``<version>:<database id>:<number>`` with the same prefix for every node of a
    database: the number alone is kept (a small int beside the node id, which the symbol
    already holds, instead of a 50-character string: about 250 MB less for the Linux
    kernel's 3.5 M symbols). An element id of another form is kept whole."""

    __slots__ = ("_numbers", "_prefix", "_others")

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._prefix: str | None = None
        self._others: dict[str, str] = {}

    def update(self, pairs: Iterable[tuple[str, str]]) -> None:
        numbers, others = self._numbers, self._others
        for node_id, eid in pairs:
            prefix, _, number = eid.rpartition(":")
            if self._prefix is None and prefix and number.isdigit():
                self._prefix = prefix
            if prefix == self._prefix and number.isdigit() and str(int(number)) == number:
                numbers[node_id] = int(number)
                others.pop(node_id, None)
            else:
                others[node_id] = eid
                numbers.pop(node_id, None)

    def get(self, node_id: str) -> str | None:
        """The node's element id, or None when neither written nor looked up here."""
        number = self._numbers.get(node_id)
        if number is None:
            return self._others.get(node_id)
        return f"{self._prefix}:{number}"

    def absent(self, node_ids: set[str]) -> set[str]:
        """Those of `node_ids` without an element id here."""
        return node_ids - self._numbers.keys() - self._others.keys()

    def __getitem__(self, node_id: str) -> str:
        eid = self.get(node_id)
        if eid is None:
            raise KeyError(node_id)
        return eid

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._numbers or node_id in self._others

    def __len__(self) -> int:
        return len(self._numbers) + len(self._others)
