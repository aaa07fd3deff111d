"""The `context_query` string grammar.

    query    := scope clause*
    scope    := TURN_ID | '@' WORKSPACE
    clause   := NAME '=' VALUE | term (('OR' | '|') term)*
    term     := WORD | '"' phrase '"'

Clauses (each at most once):

    key=clone_path|goal|plan|file-tree   a value recorded for the turn
    kind=file,symbol,class,…             filter by label (note, file, dir, symbol, external,
                                         turn, community, workspace) or symbol kind
    prov=EXTRACTED,INFERRED,RUNTIME      filter edges (neighborhood, paths) or nodes (search)
    path=<from>-><to>                    shortest path(s)
    neigh=<id>                           neighborhood
    explain=<id>                         neighborhood summary, hubs, path to the nearest hub
    communities=1                        a workspace's stored Leiden communities (a turn's
                                         subgraph: partitioned on the spot, not stored)
    limit=N                              at most N results
  extras:
    depth=1..4        neighborhood / explain depth (default 1; explain 2)
    hops=1..10        longest path for path= (default 6)
    directed=1        follow edges in their direction only (path=)
    rel=CALLS,IMPORTS relationship types (neigh, path, explain, communities)
    min_conf=0..1     minimum edge confidence (default excludes candidate edges)
    resolution=F  seed=N  objective=modularity|cpm  algorithm=igraph|leidenalg   Leiden options
                      (a turn's communities=1; a workspace's are computed by `index --communities`)

Keywords are ANDed; `OR` or `|` between two terms (also `a|b`) means either. A quoted
term is a phrase, and a quoted `OR` is a plain word. Every mistake raises
`QueryParseError` naming the character position and what was expected there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphsvc.errors import InputError
from graphsvc.model import Prov, Rel

MAX_DEPTH = 4
MAX_HOPS = 10
OPERATIONS = ("key", "path", "neigh", "explain", "communities")
KNOWN_TURN_KEYS = ("clone_path", "goal", "plan", "file-tree")
OBJECTIVES = ("modularity", "cpm")
ALGORITHMS = ("igraph", "leidenalg")
_CLAUSES = (
    *OPERATIONS,
    "kind",
    "prov",
    "limit",
    "depth",
    "hops",
    "directed",
    "rel",
    "min_conf",
    "resolution",
    "seed",
    "objective",
    "algorithm",
)
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class QueryParseError(InputError):
    """A `context_query` string that does not follow the grammar.

    `position` is the 0-based character offset of the problem, `expected` what the parser
    wanted to see there.
    """

    def __init__(self, message: str, position: int, expected: str):
        super().__init__(f"{message} at position {position}: expected {expected}")
        self.position = position
        self.expected = expected


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    position: int
    quoted: bool = False  # any part was in double quotes: a phrase, never an operator
    raw: str = ""


@dataclass(slots=True)
class ParsedQuery:
    """A parsed `context_query`; `operation` says which engine operation runs."""

    turn_id: str | None = None
    workspace: str | None = None
    operation: str = "search"  # search | key | path | neigh | explain | communities | overview
    key: str | None = None
    path_from: str | None = None
    path_to: str | None = None
    target: str | None = None  # the id of neigh= / explain=
    kinds: list[str] = field(default_factory=list)
    provs: list[str] = field(default_factory=list)
    rels: list[str] = field(default_factory=list)
    limit: int | None = None
    depth: int | None = None
    hops: int | None = None
    directed: bool = False
    min_confidence: float | None = None
    resolution: float | None = None
    seed: int | None = None
    objective: str | None = None
    algorithm: str | None = None
    # Keyword groups: the outer list is ANDed, each inner list ORed.
    terms: list[list[str]] = field(default_factory=list)


def tokenize(text: str) -> list[Token]:
    """Split on whitespace; double quotes group (with ``\\"`` and ``\\\\`` escapes)."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start, parts, quoted = i, [], False
        while i < n and not text[i].isspace():
            if text[i] == '"':
                quoted = True
                open_at = i
                i += 1
                while True:
                    if i >= n:
                        raise QueryParseError("unterminated quoted term", open_at, 'a closing "')
                    ch = text[i]
                    if ch == "\\" and i + 1 < n and text[i + 1] in '"\\':
                        parts.append(text[i + 1])
                        i += 2
                    elif ch == '"':
                        i += 1
                        break
                    else:
                        parts.append(ch)
                        i += 1
            else:
                parts.append(text[i])
                i += 1
        tokens.append(Token("".join(parts), start, quoted, text[start:i]))
    return tokens


def parse(text: str) -> ParsedQuery:
    """Parse a `context_query` string; raises only `QueryParseError`."""
    if not isinstance(text, str):
        raise QueryParseError("the query must be a string", 0, "a query string")
    tokens = tokenize(text)
    if not tokens:
        raise QueryParseError("empty query", 0, "a turn id or @workspace")
    query = ParsedQuery()
    _parse_scope(tokens[0], query)
    seen: dict[str, int] = {}
    keyword_tokens: list[Token] = []
    for tok in tokens[1:]:
        name, eq, value = tok.raw.partition("=")
        if eq and not tok.raw.startswith('"') and name in _CLAUSES:
            if name in seen:
                raise QueryParseError(f"{name}= given twice", tok.position, "each clause at most once")
            seen[name] = tok.position
            _parse_clause(name, tok.text.partition("=")[2], tok.position + len(name) + 1, query)
        elif eq and not tok.quoted and _is_name(name):
            raise QueryParseError(
                f"unknown clause {name}=", tok.position, "one of " + ", ".join(f"{c}=" for c in _CLAUSES)
            )
        else:
            keyword_tokens.append(tok)
    ops = sorted((pos, name) for name, pos in seen.items() if name in OPERATIONS)
    if len(ops) > 1:
        pos, name = ops[1]
        raise QueryParseError(
            f"{name}= cannot be combined with {ops[0][1]}=", pos, "one operation per query"
        )
    if ops:
        query.operation = ops[0][1]
        if keyword_tokens:
            tok = keyword_tokens[0]
            raise QueryParseError(
                f"keyword {tok.text!r} cannot be combined with {query.operation}=",
                tok.position,
                "keywords only in a search",
            )
    query.terms = _parse_terms(keyword_tokens, len(text))
    if not ops:
        query.operation = "search" if query.terms else "overview"
    return query


def parse_keywords(text: str) -> list[list[str]]:
    """Only keywords (the typed `search` field): `a b OR c` -> [[a], [b, c]]."""
    return _parse_terms(tokenize(text), len(text))


def _is_name(s: str) -> bool:
    return bool(s) and all(c.isalnum() or c in "_-" for c in s)


def _parse_scope(tok: Token, query: ParsedQuery) -> None:
    if tok.text.startswith("@") and not tok.quoted:
        ws = tok.text[1:]
        if not ws:
            raise QueryParseError("empty workspace name", tok.position + 1, "a workspace name after @")
        query.workspace = ws
        return
    if "=" in tok.raw and not tok.quoted:
        raise QueryParseError(
            "the query must start with its scope", tok.position, "a turn id or @workspace"
        )
    if not tok.text:
        raise QueryParseError("empty turn id", tok.position, "a turn id or @workspace")
    query.turn_id = tok.text


def _parse_clause(name: str, value: str, pos: int, query: ParsedQuery) -> None:
    if name != "path" and not value:
        raise QueryParseError(f"{name}= has no value", pos, _EXPECTED.get(name, "a value"))
    if name == "key":
        query.key = value
    elif name == "path":
        src, arrow, dst = value.partition("->")
        if not src:
            raise QueryParseError("path= has no start", pos, "<from>-><to>")
        if not arrow:
            raise QueryParseError("path= has no arrow", pos + len(value), "'->' and a target id")
        if not dst:
            raise QueryParseError("path= has no target", pos + len(value), "a target id after '->'")
        query.path_from, query.path_to = src, dst
    elif name in ("neigh", "explain"):
        query.target = value
    elif name == "communities":
        if value.lower() not in _TRUE:
            raise QueryParseError("communities= must be 1", pos, "1")
    elif name == "kind":
        query.kinds = _list(value, pos, _KINDS, "kind", str.lower)
    elif name == "prov":
        query.provs = _list(value, pos, tuple(p.value for p in Prov), "provenance", str.upper)
    elif name == "rel":
        query.rels = _list(value, pos, tuple(r.value for r in Rel), "relationship type", str.upper)
    elif name == "limit":
        query.limit = _int(value, pos, 1, 1_000_000, "limit")
    elif name == "depth":
        query.depth = _int(value, pos, 1, MAX_DEPTH, "depth")
    elif name == "hops":
        query.hops = _int(value, pos, 1, MAX_HOPS, "hops")
    elif name == "seed":
        query.seed = _int(value, pos, 0, 2**31 - 1, "seed")
    elif name == "directed":
        if value.lower() in _TRUE:
            query.directed = True
        elif value.lower() in _FALSE:
            query.directed = False
        else:
            raise QueryParseError(f"bad directed={value}", pos, "1 or 0")
    elif name == "min_conf":
        query.min_confidence = _float(value, pos, 0.0, 1.0, "min_conf")
    elif name == "resolution":
        query.resolution = _float(value, pos, 0.0, 1e6, "resolution")
    elif name == "objective":
        if value.lower() not in OBJECTIVES:
            raise QueryParseError(f"unknown objective {value!r}", pos, "modularity or cpm")
        query.objective = value.lower()
    elif name == "algorithm":
        if value.lower() not in ALGORITHMS:
            raise QueryParseError(f"unknown algorithm {value!r}", pos, "igraph or leidenalg")
        query.algorithm = value.lower()


_KINDS = (
    "note",
    "file",
    "dir",
    "directory",
    "symbol",
    "external",
    "turn",
    "community",
    "workspace",
    "module",
    "class",
    "interface",
    "struct",
    "enum",
    "trait",
    "function",
    "method",
    "constant",
    "variable",
    "type_alias",
    "external_module",
    "external_symbol",
)
_EXPECTED = {
    "key": "a turn key (" + ", ".join(KNOWN_TURN_KEYS) + ")",
    "neigh": "an entity id",
    "explain": "an entity id",
    "kind": "a kind (" + ", ".join(_KINDS[:9]) + ", or a symbol kind)",
    "prov": "EXTRACTED, INFERRED or RUNTIME",
    "rel": "a relationship type (" + ", ".join(r.value for r in Rel) + ")",
}


def _list(value: str, pos: int, allowed: tuple[str, ...], what: str, norm) -> list[str]:
    out: list[str] = []
    offset = 0
    for part in value.replace("|", ",").split(","):
        item = norm(part)
        if item not in allowed:
            raise QueryParseError(f"unknown {what} {part!r}", pos + offset, ", ".join(allowed))
        if item not in out:
            out.append(item)
        offset += len(part) + 1
    return out


def _int(value: str, pos: int, lo: int, hi: int, what: str) -> int:
    if not (value.isascii() and value.isdigit()):
        raise QueryParseError(f"{what}={value!r} is not a whole number", pos, f"an integer {lo}..{hi}")
    n = int(value)
    if not lo <= n <= hi:
        raise QueryParseError(f"{what}={n} is out of range", pos, f"an integer {lo}..{hi}")
    return n


def _float(value: str, pos: int, lo: float, hi: float, what: str) -> float:
    try:
        f = float(value)
    except ValueError:
        f = float("nan")
    if not lo <= f <= hi:  # also rejects nan
        raise QueryParseError(f"{what}={value!r} is not a number in range", pos, f"a number {lo:g}..{hi:g}")
    return f


def _parse_terms(tokens: list[Token], end: int) -> list[list[str]]:
    """Keywords into AND-of-OR groups; `OR` / `|` join their neighbours into one group."""
    # Flatten `a|b` into a, |, b (unquoted tokens only).
    items: list[tuple[str, int, bool]] = []  # (text, position, is_or)
    for tok in tokens:
        if tok.quoted:
            if tok.text.strip():
                items.append((tok.text, tok.position, False))
            continue
        if tok.text == "OR":
            items.append(("OR", tok.position, True))
            continue
        offset = 0
        for k, piece in enumerate(tok.text.split("|")):
            if k:
                items.append(("|", tok.position + offset - 1, True))
            if piece:
                items.append((piece, tok.position + offset, False))
            offset += len(piece) + 1
    groups: list[list[str]] = []
    pending_or: int | None = None
    for text, pos, is_or in items:
        if is_or:
            if pending_or is not None or not groups:
                raise QueryParseError(f"{text!r} without a term before it", pos, "a keyword before OR")
            pending_or = pos
            continue
        if pending_or is not None:
            groups[-1].append(text)
            pending_or = None
        else:
            groups.append([text])
    if pending_or is not None:
        raise QueryParseError("OR without a term after it", end, "a keyword after OR")
    return groups
