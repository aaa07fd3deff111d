"""Resolution runs with the cyclic collector paused (`paused_gc`): whatever it allocates
must be freed by reference counting alone, or a large workspace would pile it up."""

from __future__ import annotations

import gc

from indexers.resolve import ResolveStats, SymbolTable, resolve_file
from tests.unit.symbols_helpers import FIXTURES, extract_tree


def test_resolving_a_file_leaves_no_reference_cycles():
    exts = extract_tree(FIXTURES / "python")
    table = SymbolTable(exts.values())
    gc.collect()
    was = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        stats = ResolveStats()
        for path in sorted(exts):
            assert resolve_file(exts[path], table, stats) is not None
        gc.collect()
        left = sorted({type(o).__name__ for o in gc.garbage})
    finally:
        gc.set_debug(was)
        gc.garbage.clear()
    assert left == []
