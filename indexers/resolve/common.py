"""What the parts of resolution share: limits, the entities a name can stand for, the
import context of a file, statistics, and qualified-name helpers."""

from __future__ import annotations

import gc
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from operator import attrgetter
from types import SimpleNamespace
from typing import TYPE_CHECKING

from graphsvc import model
from graphsvc.model import TYPE_KINDS, UnresolvedCalls
from indexers.bindings import type_parameter

if TYPE_CHECKING:
    from indexers.languages import LanguageSpec

# Values `types` gives that are no entity: not known, a builtin, a function without a symbol.
UNKNOWN = ("unknown",)
BUILTIN = ("builtin",)
ANONYMOUS = ("anonymous",)
METHOD_NAME_CONFIDENCE = 0.5
MAX_CANDIDATES = 8  # more same-named targets than this say nothing; leave the call unresolved
MAX_HIERARCHY = 12
MAX_REEXPORT_HOPS = 4

TYPE_KIND_NAMES = frozenset(str(k) for k in TYPE_KINDS)
TYPE_OR_ALIAS = TYPE_KIND_NAMES | {"type_alias"}
# Definitions that are assignments (a module-level `x = ...`): their value is what they are.
VARIABLE_KINDS = frozenset({"variable", "constant"})
_SUFFIX = re.compile(r"@\d+$")
SPLIT = re.compile(r"\.|::|->")


def keyed_by_position(entries) -> bool:
    """Whether a literal's entries (``("items", entries)``) are a list's or a tuple's: a loop
    over one binds its entries, over a mapping its keys."""
    return all(k.startswith("i:") for k, _ in entries)


def _import_binds(imp) -> str:
    """The name an import binds (``import a.b`` binds ``a``)."""
    return imp.alias or (imp.name if imp.name not in (None, "*") else imp.module.split(".")[0])


def imported_in_functions(ext, name: str) -> set[str] | None:
    """The functions whose bodies hold every import of ``name`` in the file extracted as
    ``ext`` (such an import binds the name there only); None when one is outside functions."""
    functions = [s for s in ext.symbols if s.kind in ("function", "method")]
    found = set()
    for imp in ext.imports:
        if _import_binds(imp) != name:
            continue
        around = [s for s in functions if s.start_line <= imp.line <= s.end_line]
        if not around:
            return None
        found.add(max(around, key=lambda s: s.start_line).qualified_name)
    return found


def imported_in_bodies(ext) -> set[str]:
    """The names an import inside a function or method of the file binds (there only)."""
    spans = [(s.start_line, s.end_line) for s in ext.symbols if s.kind in ("function", "method")]
    return {_import_binds(imp) for imp in ext.imports
            if not imp.export and any(a <= imp.line <= b for a, b in spans)} if spans and ext.imports else set()


def base_qual(qual: str) -> str:
    """``f@2.g@3`` -> ``f@2.g``: the lookup key of a possibly redefined name."""
    return _SUFFIX.sub("", qual) if "@" in qual else qual


# An entity a name can stand for while resolving.
#   ("mod", files)        a workspace module or package (one or more files)
#   ("sym", ids)          workspace symbols (several when redefined or overloaded)
#   ("ext", module, name) something outside the workspace; name None for the module itself
Entity = tuple


@dataclass(slots=True)
class ResolveStats:
    calls: int = 0
    by_reason: Counter = field(default_factory=Counter)  # resolved calls by reason
    candidate_calls: int = 0  # calls that became candidate edges
    external: int = 0
    builtin: int = 0
    unresolved: int = 0
    imports_internal: int = 0
    imports_external: int = 0
    imports_unresolved: int = 0
    # Per calling symbol (or file), the calls left unresolved: for the graph, not the summary.
    unresolved_sites: list[UnresolvedCalls] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "calls": self.calls,
            "resolved_by_reason": {str(k): v for k, v in sorted(self.by_reason.items())},
            "candidate_calls": self.candidate_calls,
            "external": self.external,
            "builtin": self.builtin,
            "unresolved": self.unresolved,
            "imports": {
                "internal": self.imports_internal,
                "external": self.imports_external,
                "unresolved": self.imports_unresolved,
            },
        }


@dataclass(slots=True)
class ImportContext:
    names: dict[str, list[Entity]] = field(default_factory=dict)
    # star imports, includes, wildcards; with the names they are known to provide (None: any)
    stars: list[tuple[Entity, frozenset[str] | None]] = field(default_factory=list)
    # What the module gives importers besides its definitions and imports (JavaScript's
    # `export {a as b} from "m"`, `export default x`), and the modules whose exports it passes
    # on (`export * from "m"`); neither binds a name in the file itself.
    exports: dict[str, list[Entity]] = field(default_factory=dict)
    export_stars: list[Entity] = field(default_factory=list)
    edges: dict[str, tuple[str, int]] = field(default_factory=dict)  # target id -> (reason, line)
    unresolved: int = 0
    # Per star, the definition indexes of its module where they are all its members
    # (`SymbolTable.star_definitions`); worked out when first read.
    star_definitions: list | None = field(default=None, compare=False)


def merge_entities(ents: list[Entity]) -> Entity:
    """What several bindings of a name stand for together: their symbols, else the last."""
    if len(ents) == 1:
        return ents[0]
    syms = [i for e in ents if e[0] == "sym" for i in e[1]]
    if syms:
        return ("sym", tuple(dict.fromkeys(syms)))
    return ents[-1]


def plain_members(enum: type) -> SimpleNamespace:
    """An enum's members as attributes of a plain namespace: the same objects, read without
    the enum class's attribute look-up (three times a plain one's cost), which resolution
    pays a few times for every call site."""
    return SimpleNamespace(**enum.__members__)


# The enums resolution reads for every call site, as `plain_members`.
Prov, Reason, Rel = plain_members(model.Prov), plain_members(model.Reason), plain_members(model.Rel)
# Edges found by a guess from a name alone: never what a value or a loop's entry is.
GUESS_REASONS = frozenset({Reason.UNIQUE_NAME, Reason.CANDIDATE})


def record_fields(records, *names: str) -> list:
    """``attrgetter(*names)`` of every record of a list: a list kept encoded (the index
    state's) reads them without building the records."""
    columns = getattr(records, "columns", None)
    if columns is not None:
        return columns(*names)
    return list(map(attrgetter(*names), records))


def record_rows(records) -> list[tuple]:
    """Every record of a list as the tuple of its fields in order: a list kept encoded (the
    index state's) gives its rows without building the records."""
    rows = getattr(records, "rows", None)
    if rows is not None:
        return rows()
    return [tuple(getattr(r, f.name) for f in fields(r)) for r in records]


def last_segment(qual: str) -> str:
    """The last segment of a qualified name, without its redefinition suffix."""
    return base_qual(qual).rpartition(".")[2]


@contextmanager
def paused_gc():
    """Bulk building allocates hundreds of thousands of containers and no cycles; the
    cyclic collector would rescan the whole table again and again.

    What was allocated meanwhile leaves as the oldest generation (``freeze`` then
    ``unfreeze`` moves every tracked object there at once): re-enabled with millions of
    young objects, the collector's next pass would walk them all (4 % of resolution's CPU).
    They stay collectable, by the next full collection."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def c3_merge(seqs: list[list[str]]) -> list[str] | None:
    """C3 merge of the bases' linearisations; None when they cannot be merged."""
    seqs = [list(s) for s in seqs if s]
    out: list[str] = []
    while seqs:
        for seq in seqs:
            head = seq[0]
            if not any(head in s[1:] for s in seqs):
                break
        else:
            return None
        out.append(head)
        seqs = [s[1:] if s[0] == head else s for s in seqs]
        seqs = [s for s in seqs if s]
    return out


def in_block(binds: list, block: str | None) -> list:
    """Those of ``binds`` (`Binding`s) directly in ``block``; all of them for None."""
    if block is None or all(b.block == block for b in binds):
        return binds
    return [b for b in binds if b.block == block]


def innermost_block(binds: list, block: str) -> str | None:
    """The innermost of ``block`` and the blocks around it in which one of ``binds`` is."""
    have = {b.block for b in binds}
    while True:
        if block in have:
            return block
        if not block:
            return None
        block = block.rpartition("/")[0]


def chain_of(receiver: str, name: str) -> str:
    """The chain of a member call's callee: receiver and name (no name: the receiver)."""
    if not name:
        return receiver
    sep = "." if not SPLIT.search(receiver) or "." in receiver else SPLIT.search(receiver).group(0)
    return f"{receiver}{sep}{name}"


def reading_block(b, binds: list) -> str:
    """The block in which a binding's value is read: a name bound in a nested block from
    itself (Go's ``f := f.Child()``, ``for _, f := range f.Items()``) reads the name as it is
    around that block, unless the block bound it before."""
    if not b.block or not b.value or b.value.partition(".")[0].partition("(")[0].partition("[")[0] != b.name:
        return b.block
    if any(o is not b and o.block == b.block and o.line < b.line for o in binds):
        return b.block
    return b.block.rpartition("/")[0]


def defined_in(value: tuple, scope: str) -> bool:
    """Whether ``value`` is of a type defined inside the definition ``scope``."""
    if value[0] == "iter":
        value = value[1]
    return value[0] in ("inst", "sym") and any(i.startswith(scope + ".") for i in value[1])


def branch_alternatives(spec: LanguageSpec, symbols: dict, ids: tuple[str, ...]) -> bool:
    """Whether ``ids`` are one name's definitions in one file, each on its own branch
    (``if ...: def f()`` / ``else: def f()``; a later one in the same block replaces the
    earlier, which is then no target), none of them a variable: a call of the name calls one
    of them, which one the run decides."""
    if not spec.branch_alternatives:
        return False
    first = symbols.get(ids[0])
    return first is not None and first.kind not in VARIABLE_KINDS and all(
        (s := symbols.get(i)) is not None and s.file == first.file and s.kind not in VARIABLE_KINDS
        and base_qual(s.qualified_name) == base_qual(first.qualified_name) for i in ids[1:])


def built_by_default(files: dict, symbols: dict, ids: tuple[str, ...]) -> tuple[str, ...]:
    """Of alternative definitions, those the default build has (all of them when it has
    all or none): a file built only with other tags defines a variant (`build_variants`)."""
    kept = tuple(i for i in ids if not files[symbols[i].file].variant)
    return kept if kept and len(kept) < len(ids) else ids


def defined_before(value: tuple, line: int, scope: str, symbols: dict) -> tuple:
    """Of several definitions a name bound at the top of a module or class body may be
    (``_orig = acquire`` before ``if debug: def acquire``), those that exist when the
    binding runs: the ones of its file written above it; ``value`` itself for any other."""
    if value[0] != "sym" or len(value[1]) < 2 or getattr(symbols.get(scope), "kind", "class") not in TYPE_KIND_NAMES:
        return value
    path = scope.partition("#")[0]
    kept = tuple(i for i in value[1] if (s := symbols.get(i)) is not None and s.file == path and s.start_line < line)
    return ("sym", kept) if kept and len(kept) < len(value[1]) else value


def type_parameter_bound(bindings, path: str, qual: str, name: str) -> tuple[str, str] | None:
    """The constraint of the type parameter ``name`` (``<T extends Base>``: ``Base``) of the
    generic definition ``qual`` of file ``path`` or of the nearest one around it that declares
    it, with the scope it is written in; None when none declares it with a constraint.
    ``bindings``: `SymbolTable.bindings`."""
    key, scope = type_parameter(name), qual
    while True:
        found = bindings(f"{path}#{scope}" if scope else path, key)
        if found:
            written = found[0].type
            return (written, scope) if written and written != name else None
        if not scope:
            return None
        scope = scope.rpartition(".")[0]


def receiver_typed(bindings, path: str, qual: str, name: str, self_names: frozenset[str]) -> bool:
    """Whether the receiver of the method ``qual`` is declared of the type variable ``name``
    (``def bind(self: T) -> T``): what the method returns as ``T`` is then the receiver's type."""
    return "." in qual and any(b.type == name for n in self_names for b in bindings(f"{path}#{qual}", n))


def holds_function(pattern: re.Pattern | None, binds) -> bool:
    """Is a field declared to hold a function (``cb: () => void``), by all its declarations?"""
    return pattern is not None and all(b.type is not None and pattern.match(b.type) for b in binds)


def mapping_step(spec: LanguageSpec, cur: tuple, method: str) -> tuple | None:
    """What a mapping's (``("map", value)``) method called gives: a value (``m.get(k)``), its
    values (``m.values()``), its (key, value) pairs with the key unknown (``m.items()``); None
    for any other method."""
    if method in spec.mapping_lookups:
        return cur[1]
    values, items = spec.mapping_views
    return ("iter", cur[1]) if method == values else ("iter", ("items", (("i:1", cur[1]),))) if method == items else None


def type_members(body: str) -> list[str]:
    """The members of an object type's body, split at its top-level ``;``, ``,`` and line breaks."""
    parts, last, depth = [], 0, 0
    for i, ch in enumerate(body):
        if ch in "{[(<":
            depth += 1
        elif ch in "}])>" and body[i - 1:i] != "=":  # `=>` closes nothing
            depth -= 1
        elif ch in ";,\n" and not depth:
            parts.append(body[last:i].strip())
            last = i + 1
    return [p for p in (*parts, body[last:].strip()) if p]
