"""The questions the service answers in one call, each declared once for every surface.

A `Verb` is an engine function and what the surfaces call it. From each entry of `VERBS`:
GraphQL serves field `name` (`graphsvc.api.graph_api`), REST `GET /api/context/<name in
kebab-case>`, the CLI `graphsvc <name in kebab-case> REF … --workspace W [--json]`
(`graphsvc.cli.verbs`), with the function's own parameters as arguments, and its result
dataclass as the answer (its `text()` is what the CLI prints without `--json`).

Adding a verb: write the function (positional parameters: refs; keyword-only: `workspace`,
its options, `limit`; typed; a docstring whose first paragraph describes it), give its
result class a `text()`, and append a `Verb` here. Names are part of the contract.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from graphsvc.graph.freshness import freshness
from graphsvc.query import calls, changes, community, grep, hierarchy, impact, source, symbols
from graphsvc.query.results import Freshness


@dataclass(frozen=True)
class Verb:
    """`fn` served as GraphQL field `name`; `names` renames its positional parameters on the
    API (`{"source": "from"}`)."""

    fn: Callable
    name: str
    description: str
    names: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Every surface calls `fn`, so every surface's answer says whether the graph is behind.
        object.__setattr__(self, "fn", _noting_freshness(self.fn))

    @property
    def kebab(self) -> str:
        """The name as a REST path segment and a CLI command: `callPath` -> `call-path`."""
        return re.sub(r"(?<!^)(?=[A-Z])", "-", self.name).lower()


def _noting_freshness(fn: Callable) -> Callable:
    """`fn` whose result carries the workspace's freshness as it was when the call began (so a
    run finishing meanwhile never makes an older answer look fresh)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        stale, pending = freshness(kwargs.get("workspace"))
        result = fn(*args, **kwargs)
        if isinstance(result, Freshness):
            result.stale, result.pending_files = stale, pending
        return result

    return call


VERBS: tuple[Verb, ...] = (
    Verb(
        symbols.symbol, "symbol",
        "What `ref` names: an id, `file:line`, a dotted name with its module path (`pkg.mod.Class.method`, "
        "also as re-exported: `pkg.Class`), a qualified name or name, or a unique id suffix. `entity` when "
        "one matches best, else the `candidates` that match equally well, best first.",
    ),
    Verb(
        source.source, "source",
        "The lines of the entity `ref` names (a file's from its first), at most `maxLines`, read from the "
        "workspace's directory: refused (SOURCE_CHANGED) when the file changed since it was indexed, "
        "NOT_FOUND when it is gone.",
    ),
    Verb(
        calls.callers, "callers",
        "Who calls `ref`, to `depth` levels: one row per calling entity and callee with the first line, "
        "how many calls, how each was resolved; counts per depth; `unresolvedSites`: calls of this name "
        "the index could not resolve. Candidate guesses (`reason` candidate) only with `includeCandidates`.",
    ),
    Verb(
        calls.callees, "callees",
        "What `ref` calls, to `depth` levels, as `callers` does; `unresolved`: its calls the index could "
        "not resolve, by line and text as written.",
    ),
    Verb(
        calls.call_path, "callPath",
        "The shortest chain of calls from `from` to `to` (directed, along CALLS). When there is none, "
        "`frontier`: where the walk from `from` stops, with the unresolved calls and the candidate calls "
        "left out there.",
        {"source": "from", "target": "to"},
    ),
    Verb(
        impact.impact, "impact",
        "The blast radius of changing `ref` (with what it contains), every symbol of `files`, or the symbols "
        "whose lines the unified `diff` changes (its old side: the files as indexed): what calls, references, "
        "inherits or overrides them, up to `depth` hops, grouped by hop, with the files and tests reached and "
        "the unresolved call sites that could add to it.",
    ),
    Verb(
        changes.changes, "changes",
        "What changed since `since` and what depends on it: `since` is a git ref (HEAD by default, a branch, "
        "a commit) compared with the workspace's files as they are now, staged or not, untracked new files "
        "included; or a unified diff as text. The changed symbols (most depended on first, with their lines), "
        "then `impact` of them up to `depth` hops: dependents by hop, files and tests reached; `summary` ends "
        "with the risk (low, medium, high) and why. Needs the `git` executable for a ref.",
    ),
    Verb(hierarchy.subclasses, "subclasses", "The classes inheriting from `ref`: directly, or at any depth (`transitive`)."),
    Verb(hierarchy.superclasses, "superclasses", "The classes `ref` inherits from: directly, or at any depth (`transitive`)."),
    Verb(hierarchy.overrides, "overrides", "The base classes' methods that the method `ref` overrides."),
    Verb(hierarchy.overridden_by, "overriddenBy", "The subclasses' methods that override the method `ref`."),
    Verb(
        community.community, "community",
        "One stored Leiden community by `number`: label, size, top files, top members and the neighbouring "
        "communities with their edge counts.",
    ),
    Verb(community.community_of, "communityOf", "The stored Leiden community `ref` is a member of, as `community` answers."),
    Verb(
        grep.grep, "grep",
        "Lines of the workspace's indexed files holding `pattern` (a Python regular expression with "
        "`regex`, matched line by line), case-sensitive unless `ignoreCase`, in the files matching any of "
        "the `paths` globs, each with its enclosing symbol. `total` counts every matching line (a lower "
        "bound when `complete` is false).",
    ),
)
