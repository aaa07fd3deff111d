"""The managed Neo4j's heap and page cache follow the machine's memory unless set."""

from __future__ import annotations

from graphsvc.neo4j.memory import auto_memory, memory_settings
from graphsvc.settings import Neo4jSettings

GIB = 1024**3


def _mb(size: str) -> int:
    assert size.endswith("m")
    return int(size[:-1])


def test_defaults_are_automatic():
    s = Neo4jSettings()
    assert (s.heap, s.pagecache) == ("auto", "auto")


def test_larger_machines_get_more_and_neo4j_keeps_to_its_share():
    for total_gib in (4, 8, 24, 64, 256):
        heap, pagecache = map(_mb, auto_memory(total_gib * GIB))
        assert heap + pagecache <= 0.4 * total_gib * 1024 + 768  # the minimums on a small machine
    small, large = auto_memory(6 * GIB), auto_memory(24 * GIB)
    assert _mb(large[0]) > _mb(small[0]) and _mb(large[1]) > _mb(small[1])
    assert auto_memory(24 * GIB) == ("3840m", "5888m")


def test_heap_stays_below_compressed_pointer_limit_and_above_a_floor():
    assert _mb(auto_memory(1024 * GIB)[0]) <= 31 * 1024
    assert _mb(auto_memory(1 * GIB)[0]) == 512


def test_a_size_given_wins():
    assert memory_settings("2g", "auto", 24 * GIB) == ("2g", "5888m")
    assert memory_settings("auto", "1g", 24 * GIB) == ("3840m", "1g")
