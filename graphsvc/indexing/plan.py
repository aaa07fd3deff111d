"""What a symbol run has to do: the scanned tree compared with the index state of the last run.

`plan_run` walks every file of the scan. A process that ran the last plan itself (a server,
a watcher) and whose scan is a rescan of the one that plan came from (`TreeScan.changes`)
plans from the files the rescan listed again instead (`plan_changes`): a one-file edit of a
large tree then looks at one file, not at all of them, with the same plan.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from graphsvc.indexing.state import IndexState, full_run_reason
from graphsvc.indexing.summary import SymbolSummary
from indexers.languages import LANGUAGES
from indexers.module_config import (
    CONFIG_NAMES, GO_MOD, PACKAGE_JSON, GoModules, JsPaths, read_go_modules, read_js_paths,
)
from indexers.records import FileRecord
from indexers.tree import Skip, TreeScan


@dataclass(slots=True)
class Plan:
    """What a symbol run has to do, from the scanned tree and the state of the last run."""

    state: IndexState  # empty when the run is a full one
    full: bool
    current: dict[str, tuple[str, str]]  # file id -> (hash, lang) of every file to extract
    changed: list[str]
    deleted: list[str]
    js_paths: JsPaths
    go_modules: GoModules
    config_changed: bool
    configs: list[str]  # the module config files read
    config_problems: int  # how many of them could not be used
    scan: int  # the generation of the scan planned from

    @property
    def config_digest(self) -> str:
        return self.js_paths.digest + self.go_modules.digest

    @property
    def nothing_to_do(self) -> bool:
        return not (self.changed or self.deleted or self.full or self.config_changed)


# The files `read_js_paths` and `read_go_modules` read among all they are given.
_MODULE_CONFIG_NAMES = frozenset((*CONFIG_NAMES, PACKAGE_JSON, GO_MOD))


def _extracted(f: FileRecord) -> bool:
    """Whether a scanned file is one a symbol run extracts."""
    # An empty file is still a module (an empty `__init__.py` makes its directory a
    # package): it is parsed to nothing, but resolution has to know it exists.
    readable = f.skip_reason is None or f.skip_reason == Skip.EMPTY
    # The scan's language of a readable file is `language_for_path`'s, or another name
    # (markdown, json, …) for text that is not parsed for symbols.
    return readable and bool(f.hash) and f.lang in LANGUAGES


def plan_run(scan: TreeScan, state: IndexState, graph_token: str | None, indexer: str,
             summary: SymbolSummary) -> Plan:
    """Compare the tree with the index state: which files to parse and which are gone."""
    summary.full_reason = full_run_reason(state, graph_token, indexer)
    full = summary.full_reason is not None
    if full:
        state = IndexState()
        summary.mode = "full"
    current = {f.id: (f.hash, f.lang) for f in scan.files if _extracted(f)}
    changed = sorted(fid for fid, (h, _) in current.items() if state.hashes.get(fid) != h)
    deleted = sorted(fid for fid in state.hashes if fid not in current)
    # Import aliases of tsconfig/jsconfig files and Go module paths: when they change, every
    # file is re-resolved.
    configs = [f.id for f in scan.files if f.name in _MODULE_CONFIG_NAMES and f.skip_reason is None]
    js_paths, config_problems = read_js_paths(scan.root, configs)
    go_modules, go_problems = read_go_modules(scan.root, configs)
    plan = Plan(state, full, current, changed, deleted, js_paths, go_modules, False, configs,
                len(config_problems) + len(go_problems), scan.generation)
    plan.config_changed = not full and state.module_config != plan.config_digest
    _count(plan, summary)
    return plan


def plan_changes(scan: TreeScan, last: Plan, state: IndexState, graph_token: str | None, indexer: str,
                 summary: SymbolSummary) -> Plan | None:
    """The plan `plan_run` would make, from `last` (the plan of the run that left `state`,
    taken over: its files are updated in place) and the files a rescan of its scan listed
    again; None when the scan is no such rescan, or a module config may have changed (a
    tsconfig's `extends` reads files of any name: a tree that has one is planned whole)."""
    delta = scan.changes
    if delta is None or delta.since != last.scan or full_run_reason(state, graph_token, indexer) is not None:
        return None
    listed = [r for r in delta.listed if isinstance(r, FileRecord)]
    if (any(posixpath.basename(c) in CONFIG_NAMES for c in last.configs)
            or any(f.name in _MODULE_CONFIG_NAMES for f in listed)
            or any(posixpath.basename(i) in _MODULE_CONFIG_NAMES for i in delta.gone)):
        return None
    current = last.current
    for f in listed:
        if _extracted(f):
            current[f.id] = (f.hash, f.lang)
        else:
            current.pop(f.id, None)
    for gone in delta.gone:
        current.pop(gone, None)
    ids = {f.id for f in listed} | delta.gone
    changed = sorted(i for i in ids if i in current and state.hashes.get(i) != current[i][0])
    deleted = sorted(i for i in ids if i in state.hashes and i not in current)
    plan = Plan(state, False, current, changed, deleted, last.js_paths, last.go_modules, False, last.configs,
                last.config_problems, scan.generation)
    plan.config_changed = state.module_config != plan.config_digest
    summary.full_reason = None
    _count(plan, summary)
    return plan


def _count(plan: Plan, summary: SymbolSummary) -> None:
    summary.files = len(plan.current)
    summary.unchanged = len(plan.current) - len(plan.changed)
    summary.deleted = len(plan.deleted)
    if plan.config_problems:
        summary.skipped["unusable-config"] = plan.config_problems  # beside the files' reasons
