"""Arguments of calls and parameters of functions, read from the ``@argument`` and
``@parameter`` captures of a language's query file: what callers pass, and to what."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import tree_sitter

from graphsvc.model import _slot_init

MAX_ARGUMENT = 200  # longer arguments are not names
_FUNCTION_KINDS = frozenset({"function", "method"})

Arguments = tuple[tuple[int | str, str], ...]


@_slot_init  # built by the hundred thousand, in extraction and decoding
@dataclass(slots=True, frozen=True)
class ParamRef:
    function: str  # symbol id of the function
    name: str
    position: int | None  # among the positional parameters; None: keyword-only, or *args/**kw
    default: str | None  # the default value as written
    rebound: bool  # also bound in the function's body (assigned, a loop variable, ...)


def call_arguments(matches: list[dict]) -> dict[tuple[int, int], Arguments]:
    """Arguments by the byte range of their call (the parent of the argument list): position
    (among all arguments; unknown after a splat such as ``*xs``) or keyword, and the value
    as written."""
    out: dict[tuple[int, int], list[tuple[int | str, str]]] = {}
    for caps in matches:
        value = caps["argument"][0]
        if value.end_byte - value.start_byte > MAX_ARGUMENT:
            continue
        keyword = caps.get("argument.keyword")
        item = value.parent if keyword else value
        arg_list = item.parent
        call = arg_list.parent if arg_list is not None else None
        if call is None:
            continue
        key: int | str
        if keyword:
            key = _text(keyword[0])
        else:
            key, prev = 0, item.prev_named_sibling
            while prev is not None and "splat" not in prev.type:
                key += 1
                prev = prev.prev_named_sibling
            if prev is not None:
                continue
        out.setdefault((call.start_byte, call.end_byte), []).append((key, _text(value)))
    return {k: tuple(v) for k, v in out.items()}


def parameters(matches: list[dict], enclosing: list, bindings: Iterable) -> list[ParamRef]:
    """Each function's parameters in order, with their defaults. ``enclosing`` holds the
    definition around each match (the extractor's), ``bindings`` every binding of the file:
    a parameter bound more than once is rebound in the body."""
    count: dict[tuple[str, str], int] = {}
    for b in bindings:
        count[(b.scope, b.name)] = count.get((b.scope, b.name), 0) + 1
    out: list[ParamRef] = []
    position: dict[str, int | None] = {}
    order = sorted(range(len(matches)), key=lambda i: _anchor(matches[i]).start_byte)
    for i in order:
        caps, d = matches[i], enclosing[i]
        if d is None or d.sym is None or d.kind not in _FUNCTION_KINDS:
            continue
        fid = d.sym.id
        pos = position.get(fid, 0)
        if "parameter" not in caps:  # *args, a bare `*` or **kwargs
            position[fid] = None
            continue
        name = _text(caps["parameter"][0])
        default = _text(caps["parameter.default"][0]) if "parameter.default" in caps else None
        out.append(ParamRef(fid, name, pos, default, count.get((fid, name), 0) > 1))
        if pos is not None:
            position[fid] = pos + 1
    return out


def _anchor(caps: dict) -> tree_sitter.Node:
    return (caps.get("parameter") or caps["parameter.rest"])[0]


def _text(node: tree_sitter.Node) -> str:
    return node.text.decode("utf-8", "replace")
