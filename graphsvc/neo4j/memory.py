"""Heap and page cache of the managed Neo4j, chosen from the machine's memory.

A large graph needs both: the heap holds each transaction's state (a batch of 5,000 edges,
a query's intermediate rows), the page cache the store files, which must fit for reads not
to fault to disk. The indexer itself, its parser processes and the operating system need
the rest, so Neo4j is given ``NEO4J_SHARE`` of the machine: 40 % of it as heap, 60 % as
page cache (Neo4j's own ``neo4j-admin server memory-recommendation`` splits alike, and
keeps the heap below 31 GB, where the JVM's compressed pointers stop).

On this project's reference machine (24 GiB, of which the kernel reports 23.5) that is a
3.75 GiB heap and a 5.5 GiB page cache. Setting ``heap`` or ``pagecache`` to a size ("2g",
"512m") overrides the choice (``GRAPHSVC_NEO4J__HEAP``, ``GRAPHSVC_NEO4J__PAGECACHE``).
"""

from __future__ import annotations

import psutil

AUTO = "auto"
NEO4J_SHARE = 0.4
HEAP_SHARE = 0.4
_MB = 1024 * 1024
_STEP_MB = 256
_MIN_MB = {"heap": 512, "pagecache": 256}
_MAX_HEAP_MB = 31 * 1024


def auto_memory(total_bytes: int | None = None) -> tuple[str, str]:
    """(heap, page cache) as Neo4j sizes ("3840m") for a machine with ``total_bytes``."""
    total = total_bytes if total_bytes is not None else psutil.virtual_memory().total
    budget_mb = total * NEO4J_SHARE / _MB
    heap = min(max(_round(budget_mb * HEAP_SHARE), _MIN_MB["heap"]), _MAX_HEAP_MB)
    pagecache = max(_round(budget_mb * (1 - HEAP_SHARE)), _MIN_MB["pagecache"])
    return f"{heap}m", f"{pagecache}m"


def memory_settings(heap: str, pagecache: str, total_bytes: int | None = None) -> tuple[str, str]:
    """The configured sizes, with "auto" replaced by the machine's choice."""
    auto_heap, auto_pagecache = auto_memory(total_bytes)
    return (auto_heap if heap == AUTO else heap), (auto_pagecache if pagecache == AUTO else pagecache)


def _round(mb: float) -> int:
    return int(mb // _STEP_MB) * _STEP_MB
