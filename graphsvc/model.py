"""The graph model, stated once: labels, relationship types, provenance, reasons, id rules,
and the records of every node kind and code edge with each property and its type.

Every node carries ``:Entity`` plus exactly one kind label. ``id`` is unique per workspace
and readable: a directory ``src/``, a file ``src/app.py``, a symbol ``src/app.py#App.run``,
the workspace root ``/``, an external module ``ext:os.path``, an external symbol
``ext:os.path#join``, a turn ``turn:<turn id>``, a community ``community:<n>``.
"""

from __future__ import annotations

import dataclasses
import operator
import re
import types
import typing
from dataclasses import MISSING, dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

ENTITY = "Entity"


class Label(StrEnum):
    WORKSPACE = "Workspace"
    DIRECTORY = "Directory"
    FILE = "File"
    SYMBOL = "Symbol"
    EXTERNAL = "External"  # external modules and symbols; also carry :Symbol
    TURN = "Turn"
    NOTE = "Note"
    COMMUNITY = "Community"


class Rel(StrEnum):
    CONTAINS = "CONTAINS"
    IMPORTS = "IMPORTS"
    CALLS = "CALLS"
    INHERITS = "INHERITS"
    IMPLEMENTS = "IMPLEMENTS"
    REFERENCES = "REFERENCES"
    OVERRIDES = "OVERRIDES"
    TOUCHED = "TOUCHED"
    MENTIONS = "MENTIONS"
    IN_TURN = "IN_TURN"
    MEMBER_OF = "MEMBER_OF"


CODE_RELS = (Rel.CONTAINS, Rel.IMPORTS, Rel.CALLS, Rel.INHERITS, Rel.IMPLEMENTS, Rel.REFERENCES, Rel.OVERRIDES)
RUNTIME_RELS = (Rel.TOUCHED, Rel.MENTIONS, Rel.IN_TURN, Rel.MEMBER_OF)


class Prov(StrEnum):
    EXTRACTED = "EXTRACTED"  # read directly off the syntax tree or the filesystem
    INFERRED = "INFERRED"  # resolved by reasoning over more than one place
    RUNTIME = "RUNTIME"  # recorded while agents work


class Reason(StrEnum):
    """How an edge was resolved."""

    SYNTAX = "syntax"
    SCOPE = "scope"
    SELF = "self"
    IMPORT = "import"
    TYPE = "type"  # through the inferred type of the receiver or the value of a variable
    UNIQUE_NAME = "unique-name"
    ARGUMENT = "argument"  # a parameter called: what the callers pass for it
    CANDIDATE = "candidate"
    EXTERNAL = "external"
    RUNTIME = "runtime"
    LEIDEN = "leiden"


class SymbolKind(StrEnum):
    MODULE = "module"
    CLASS = "class"
    INTERFACE = "interface"
    STRUCT = "struct"
    ENUM = "enum"
    TRAIT = "trait"
    FUNCTION = "function"
    METHOD = "method"
    CONSTANT = "constant"
    VARIABLE = "variable"
    TYPE_ALIAS = "type_alias"
    # Nodes standing for code outside the workspace.
    EXTERNAL_MODULE = "external_module"
    EXTERNAL_SYMBOL = "external_symbol"


# Kinds whose members are "methods" and that can be inherited from.
TYPE_KINDS = frozenset(
    {SymbolKind.CLASS, SymbolKind.INTERFACE, SymbolKind.STRUCT, SymbolKind.ENUM, SymbolKind.TRAIT}
)

WORKSPACE_ID = "/"
EXTERNAL_PREFIX = "ext:"
TURN_PREFIX = "turn:"
COMMUNITY_PREFIX = "community:"

# Default minimum confidence for queries: excludes candidate edges of 2+ targets.
DEFAULT_MIN_CONFIDENCE = 0.51


def dir_id(rel_path: str) -> str:
    """``src/pkg`` -> ``src/pkg/``; the root directory is the workspace itself."""
    rel_path = rel_path.strip("/")
    return WORKSPACE_ID if not rel_path else rel_path + "/"


def file_id(rel_path: str) -> str:
    return rel_path.strip("/")


def symbol_id(file_rel_path: str, qualified_name: str) -> str:
    return f"{file_id(file_rel_path)}#{qualified_name}"


def external_module_id(module: str) -> str:
    return f"{EXTERNAL_PREFIX}{module}"


def external_symbol_id(module: str, name: str) -> str:
    return f"{EXTERNAL_PREFIX}{module}#{name}"


def parent_dir_id(entity_id: str) -> str:
    """The directory containing a file or directory id."""
    path = entity_id.rstrip("/")
    head, _, _ = path.rpartition("/")
    return dir_id(head)


def turn_id(turn: str) -> str:
    return f"{TURN_PREFIX}{turn}"


def community_id(n: int) -> str:
    return f"{COMMUNITY_PREFIX}{n}"


# --- records: each property of a node kind or a code edge, declared once -------------------
#
# A field's metadata says where the property goes: the graph writer builds its SET lists and
# row getters from the stored fields, the reads their projection and the query engine its
# `Entity` from the returned ones. Adding a property is adding a field here.

STORED = "stored"  # written to the graph (default: true)
RETURNED = "returned"  # read back into `Entity`, for every client (default: false)
CONSTANT = "constant"  # the same for every node of the kind: written by the statement itself
ALSO = "also"  # a second property the value is stored under
DERIVED = "derived"  # computed from the record's other fields when written, not kept in it


def prop(
    default: Any = MISSING,
    *,
    returned: bool = False,
    stored: bool = True,
    also: str | None = None,
) -> Any:
    """A property of a record."""
    return dataclasses.field(default=default, metadata={STORED: stored, RETURNED: returned, ALSO: also})


def constant(value: str, *, returned: bool = True) -> Any:
    """A property whose value is fixed by the node kind (its `kind`, its `prov`)."""
    return dataclasses.field(default=value, init=False, metadata={CONSTANT: True, RETURNED: returned})


def derived(of: Any) -> Any:
    """A stored property computed by `of(record)` when the record is written: records are built
    by the million and most are never written, so it is not computed (nor kept) before."""
    return dataclasses.field(default="", init=False, metadata={DERIVED: of})


def derivation(f: dataclasses.Field) -> Any:
    """The function computing a derived property, or None."""
    return f.metadata.get(DERIVED)


# Identifier words: snake_case, camelCase and acronyms apart (``HTTPAdapter.get_connection``
# -> http adapter get connection), so search finds a word inside a name.
_NOT_ALNUM = re.compile(r"[\W_]+")
_CAMEL_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def identifier_words(name: str | None) -> str:
    """The lower-cased words of an identifier or dotted name, space-separated (names in other
    scripts are split at punctuation only)."""
    if name and name.isascii():
        # The words never hold a separator, nor does a word end at one: one pass over the
        # whole name finds what one per part would (1.7x as fast; 3.5 M symbols in a kernel).
        return " ".join(_CAMEL_WORD.findall(name)).lower()
    words: list[str] = []
    for part in _NOT_ALNUM.split(name or ""):
        words.extend(_CAMEL_WORD.findall(part) if part.isascii() else [part])
    return " ".join(words).lower()


def _slot_init(cls: type) -> type:
    """Give a frozen, slotted record an __init__ that fills its slots directly.

    A frozen dataclass's own __init__ goes through object.__setattr__ for every field, several
    times the cost of a plain one; records are built by the million (extraction, decoding the
    index state, resolution). Compiled from the record's own fields, as dataclasses does.
    """
    env: dict[str, Any] = {}
    positional, keyword, body = [], [], []
    for f in dataclasses.fields(cls):
        env[f"set_{f.name}"] = getattr(cls, f.name).__set__  # the slot's descriptor
        if not f.init:
            env[f"d_{f.name}"] = f.default
            body.append(f"set_{f.name}(self, d_{f.name})")
            continue
        if f.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: records take no default factories")
        param = f.name
        if f.default is not MISSING:
            env[f"d_{f.name}"] = f.default
            param += f"=d_{f.name}"
        (keyword if f.kw_only else positional).append(param)
        body.append(f"set_{f.name}(self, {f.name})")
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    exec(f"def __init__({params}):\n    " + "\n    ".join(body), env)  # noqa: S102
    env["__init__"].__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = env["__init__"]
    return cls


@_slot_init
@dataclass(frozen=True, slots=True, kw_only=True)
class WorkspaceNode:
    """The workspace itself (id ``/``): the root of the tree, named after the workspace."""

    LABELS: ClassVar[tuple[Label, ...]] = (Label.WORKSPACE,)
    id: str = WORKSPACE_ID
    name: str = prop(returned=True)  # the workspace's name
    kind: str = constant("workspace")
    prov: str = constant(Prov.EXTRACTED)
    path: str = constant("")
    root: str  # the absolute path of the directory indexed
    skip_reason: str | None = None  # set when the root could not be listed
    indexer: str  # fingerprint of the indexer that classified the tree's files


@_slot_init
@dataclass(frozen=True, slots=True, kw_only=True)
class WorkspaceIndexed:
    """What an index run that changed the workspace writes on its node when it ends."""

    id: str = WORKSPACE_ID
    symbols_token: str | None  # which index state the graph matches (random per run)
    indexed_at: datetime  # when the run ended
    # What a reader holding an earlier token's view has to read again: the incremental runs
    # since the last full one (at most the last few), each as the token it started from and
    # how many of `run_files` (the files whose calls it resolved again) are its own, in order.
    run_from: list[str] | None = None
    run_file_counts: list[int] | None = None
    run_files: list[str] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkspaceTreeSynced:
    """What a tree sync that changed the workspace's directories or files writes on its node:
    which tree state kept beside the graph (`graphsvc.indexing.state`) matches it. Cleared
    before the sync writes anything, so a sync that dies half way leaves no token to trust."""

    id: str = WORKSPACE_ID
    tree_token: str | None  # random per sync


@dataclass(frozen=True, slots=True, kw_only=True)
class _TreeNode:
    """A directory or a file, as the tree sync finds it."""

    id: str  # dir_id or file_id
    name: str = prop(returned=True)
    kind: str  # a constant of each kind
    prov: str = constant(Prov.EXTRACTED)
    path: str = prop(returned=True)  # repository-relative, "" for the root
    skip_reason: str | None = None  # why it was not read: unreadable, binary, too-large, ...


@_slot_init
@dataclass(frozen=True, slots=True, kw_only=True)
class DirectoryNode(_TreeNode):
    LABELS: ClassVar[tuple[Label, ...]] = (Label.DIRECTORY,)
    kind: str = constant("dir")


@_slot_init
@dataclass(frozen=True, slots=True)
class SymbolNode:
    """A definition in a file. Positional: stored extractions rebuild it from its values."""

    LABELS: ClassVar[tuple[Label, ...]] = (Label.SYMBOL,)
    id: str  # symbol_id(path, qualified_name)
    name: str = prop(returned=True)
    kind: str = prop(returned=True)  # a SymbolKind value
    file: str = prop(returned=True, also="path")  # id of the file it is defined in
    qualified_name: str = prop(returned=True)
    signature: str = prop("", returned=True)
    lang: str = prop("", returned=True)
    start_line: int = prop(0, returned=True)  # 1-based
    end_line: int = prop(0, returned=True)
    parent: str = prop("", stored=False)  # id of the containing file or type: the CONTAINS source
    doc: str = prop("", returned=True)  # the first paragraph of its docstring or leading comment
    prov: str = constant(Prov.EXTRACTED)
    words: str = derived(lambda s: identifier_words(s.qualified_name))  # searched: words inside the names


@_slot_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ExternalNode:
    """Code outside the workspace that an edge points at: a module, or a symbol of one.
    Written once, when first referred to."""

    LABELS: ClassVar[tuple[Label, ...]] = (Label.SYMBOL, Label.EXTERNAL)
    id: str  # external_module_id or external_symbol_id
    name: str = prop(returned=True)
    qualified_name: str = prop(returned=True)
    kind: str = prop(returned=True)  # SymbolKind.EXTERNAL_MODULE or EXTERNAL_SYMBOL
    prov: str = constant(Prov.INFERRED)


@_slot_init
@dataclass(frozen=True, slots=True, kw_only=True)
class FileNode(_TreeNode):
    LABELS: ClassVar[tuple[Label, ...]] = (Label.FILE,)
    kind: str = constant("file")
    size: int
    lang: str | None = prop(returned=True)
    hash: str | None  # sha256 hex of the content; None when unreadable
    mtime_ns: int | None = None  # when the tree sync last saw the file change


@_slot_init
@dataclass(frozen=True, slots=True, kw_only=True)
class FileParse:
    """What parsing a file found, written on its File node after its symbols."""

    id: str  # file_id
    symbols_hash: str | None  # the content hash the symbols were extracted from
    has_errors: bool | None
    error_count: int | None
    parse_note: str | None  # why nothing was extracted, or problems worth a look


@_slot_init
@dataclass(frozen=True, slots=True, kw_only=True)
class UnresolvedCalls:
    """The calls of a symbol (or of a file's top level) that resolution found no target for,
    written on its node with its outgoing edges: how many, and the first ones as written, so
    an answer can say what the graph does not know."""

    id: str  # the calling symbol or file
    unresolved_calls: int = prop(returned=True)
    unresolved_sites: list[str] = prop(returned=True)  # "<line>: <call as written>", in source order


@_slot_init
@dataclass(frozen=True, slots=True)
class CodeEdge:
    """A relationship of `CODE_RELS` between two entity ids, with how it is known.
    Repeats of one (type, src, dst) are stored once, with their `count`."""

    src: str = prop(stored=False)
    dst: str = prop(stored=False)
    type: str = prop(stored=False)  # a Rel value
    prov: str = prop()  # a Prov value
    confidence: float = 1.0
    reason: str = Reason.SYNTAX.value
    line: int | None = None  # the first line it occurs on
    count: int = 1


# An edge as a large run keeps it (`graphsvc.indexing.spool`): its fields' values in their
# order, so ``CodeEdge(*values)`` is the record again.
EDGE_FIELDS = tuple(f.name for f in dataclasses.fields(CodeEdge))
edge_values: typing.Callable[[CodeEdge], tuple] = operator.attrgetter(*EDGE_FIELDS)


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnNode:
    """A turn of the context store, mirrored as RUNTIME facts (`graphsvc.graph.runtime`); each
    of its keys is a further property ``key_<name>``. A turn's parent not mirrored yet stands
    as a node with its constants and name only."""

    LABELS: ClassVar[tuple[Label, ...]] = (Label.TURN,)
    id: str  # turn_id(turn)
    name: str = prop(returned=True)  # the turn's own id
    kind: str = constant("turn")
    prov: str = constant(Prov.RUNTIME)
    family: str  # the turn id its family is named after
    session: str | None
    opened_at: str  # ISO 8601


@dataclass(frozen=True, slots=True, kw_only=True)
class CommunityRun:
    """What the Leiden run that stored a community records on it (every community of a
    workspace holds the same: the run stored last). The defaults: no run."""

    run: str = ""  # unique per run: readers tell a whole run from parts of two
    turn: str | None = None  # the turn node whose subgraph was partitioned, None for the workspace
    objective: str = ""
    algorithm: str = ""
    resolution: float = 0.0
    seed: int = 0
    modularity: float = 0.0
    quality: float = 0.0
    nodes: int = 0  # of the graph partitioned
    edges: int = 0
    unassigned: int = 0  # nodes in no stored community (theirs was too small)
    community_count: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class CommunityNode(CommunityRun):
    LABELS: ClassVar[tuple[Label, ...]] = (Label.COMMUNITY,)
    id: str  # community_id(community)
    name: str = prop(returned=True)  # its label, shown as a node's name is
    label: str  # the deepest directory holding most members, or the top members' names
    kind: str = constant("community")
    prov: str = constant(Prov.INFERRED)
    community: int = prop(returned=True)  # its number; each member holds it too
    size: int  # members when stored
    top_members: list[str]  # ids of the members of highest degree
    top_degrees: list[int]


# Node kinds in the order their returned properties appear in `Entity`.
NODE_RECORDS = (WorkspaceNode, DirectoryNode, SymbolNode, ExternalNode, FileNode)
# What later steps of an index run write onto nodes of those kinds; returned ones follow.
NODE_PART_RECORDS = (FileParse, UnresolvedCalls, WorkspaceIndexed, WorkspaceTreeSynced)
# Nodes laid over the code: turns mirrored from the context store, stored communities;
# their returned properties follow.
OVERLAY_NODE_RECORDS = (TurnNode, CommunityNode)


def stored_fields(record: type) -> tuple[dataclasses.Field, ...]:
    """The fields of `record` written to the graph, constants included."""
    return tuple(f for f in dataclasses.fields(record) if f.metadata.get(STORED, True))


def is_constant(f: dataclasses.Field) -> bool:
    return bool(f.metadata.get(CONSTANT))


def also(f: dataclasses.Field) -> str | None:
    return f.metadata.get(ALSO)


# --- the entity read back ------------------------------------------------------------------


@dataclass(kw_only=True)
class _EntityKeys:
    id: str
    workspace: str
    # The kind label (Workspace, Directory, File, Symbol, Turn, Note, Community), and all of them.
    label: str = dataclasses.field(metadata={STORED: False})
    labels: list[str] = dataclasses.field(metadata={STORED: False})


def _without_none(hint: Any) -> Any:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.Union[tuple(a for a in typing.get_args(hint) if a is not type(None))]
    return hint


def _returned_properties() -> list[tuple[str, Any, dataclasses.Field]]:
    """Every returned property of a node kind, optional in `Entity` (other kinds lack it)."""
    seen: dict[str, Any] = {}
    for record in (*NODE_RECORDS, *NODE_PART_RECORDS, *OVERLAY_NODE_RECORDS):
        hints = typing.get_type_hints(record)
        for f in dataclasses.fields(record):
            if not f.metadata.get(RETURNED):
                continue
            hint = _without_none(hints[f.name])
            for name in filter(None, (f.name, also(f))):
                if seen.setdefault(name, hint) != hint:
                    raise TypeError(f"property {name!r} is {seen[name]} in one node kind, {hint} in another")
    return [(name, hint | None, dataclasses.field(default=None)) for name, hint in seen.items()]


Entity = dataclasses.make_dataclass(
    "Entity",
    [
        *_returned_properties(),
        # Computed by the answer: all relationships of the node, and hops from the query's entity.
        ("degree", int | None, dataclasses.field(default=None, metadata={STORED: False})),
        ("level", int | None, dataclasses.field(default=None, metadata={STORED: False})),
    ],
    bases=(_EntityKeys,),
    kw_only=True,
    namespace={
        "__module__": __name__,
        "__doc__": "A node of the graph: workspace, directory, file, symbol, turn, note or community.",
    },
)

# Entity's properties as stored on a node: what the reads project and the engine reads back.
# The properties the full-text index covers (schema/neo4j/004_search_words.cypher), with the
# length in tokens search ranking takes as typical for each (`graphsvc.query.ranking`).
SEARCHED_PROPERTIES: dict[str, float] = {
    "name": 1.0, "qualified_name": 1.0, "path": 2.0, "signature": 4.0, "words": 4.0, "doc": 20.0,
}
ENTITY_PROPERTIES = tuple(f.name for f in dataclasses.fields(Entity) if f.metadata.get(STORED, True))
