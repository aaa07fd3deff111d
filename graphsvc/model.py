"""The graph model, stated once: labels, relationship types, provenance, reasons and id rules.

Every node carries ``:Entity`` plus exactly one kind label. ``id`` is unique per workspace
and readable: a directory ``src/``, a file ``src/app.py``, a symbol ``src/app.py#App.run``,
the workspace root ``/``, an external module ``ext:os.path``, an external symbol
``ext:os.path#join``, a turn ``turn:<turn id>``, a community ``community:<n>``.
"""

from __future__ import annotations

from enum import StrEnum

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
    TOUCHED = "TOUCHED"
    MENTIONS = "MENTIONS"
    IN_TURN = "IN_TURN"
    MEMBER_OF = "MEMBER_OF"


CODE_RELS = (Rel.CONTAINS, Rel.IMPORTS, Rel.CALLS, Rel.INHERITS, Rel.IMPLEMENTS, Rel.REFERENCES)
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
    UNIQUE_NAME = "unique-name"
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
