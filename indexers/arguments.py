"""Arguments of calls and parameters of functions, read from the ``@argument`` and
``@parameter`` captures of a language's query file: what callers pass, and to what."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import tree_sitter

from graphsvc.model import _slot_init

MAX_ARGUMENT = 200  # longer arguments are not names
VARIADIC = "*"  # the name of a parameter that takes any number of positional arguments (``*args``)
_FUNCTION_KINDS = frozenset({"function", "method"})

Arguments = tuple[tuple[int | str, str], ...]


@_slot_init  # built by the hundred thousand, in extraction and decoding
@dataclass(slots=True, frozen=True)
class ParamRef:
    function: str  # symbol id of the function
    name: str  # ``VARIADIC`` for ``*args``
    position: int | None  # among the positional parameters; None: keyword-only, or *args/**kw
    default: str | None  # the default value as written
    rebound: bool  # also bound in the function's body (assigned, a loop variable, ...)


def call_arguments(matches: list[dict], text=None) -> dict[int | tuple[int, int], Arguments | None]:
    """Arguments by the end byte of their call, which ends with its argument list (the
    ``@argument.list`` capture, else the argument's parents: tree-sitter finds a parent by
    descending from the root): position (among all arguments; unknown after a splat such as
    ``*xs``) or keyword, and the value as written. Two lists that end at the same byte (error
    recovery's zero-width closing brackets) map that byte to None, and are keyed by the byte
    range of their call instead. A list's matches come in the order of its arguments, one per
    argument at most, so when there are as many as the list has items, their order is their
    position."""
    text = text or _text  # the extractor's reads the source, cheaper than a node's own text
    lists: dict[int, tuple[tree_sitter.Node, list[tuple[tree_sitter.Node, list | None]]]] = {}  # per list (by id)
    for caps in matches:
        value = caps["argument"][0]
        keyword = caps.get("argument.keyword")
        arg_list = caps["argument.list"][0] if "argument.list" in caps else (value.parent if keyword else value).parent
        if arg_list is None:
            continue
        group = lists.get(arg_list.id)
        if group is None:
            group = lists[arg_list.id] = (arg_list, [])
        group[1].append((value, keyword))
    found = []
    for arg_list, group in lists.values():
        # Every item matched (most lists): reading the list's items would cost more.
        positions = None if arg_list.named_child_count == len(group) else _positions(arg_list)
        entries = []
        for index, (value, keyword) in enumerate(group):
            if value.end_byte - value.start_byte > MAX_ARGUMENT:
                continue
            key: int | str | None
            if keyword:
                key = text(keyword[0])
            elif positions is None:
                key = index
            else:
                key = positions.get(value.id)
                if key is None:
                    continue
            entries.append((key, text(value)))
        if entries:
            found.append((arg_list, entries))
    return _by_call(found)


def decorated_name(spec, decorator: tree_sitter.Node, text) -> Arguments:
    """A decorator without arguments (``@dec``) as the call it is: of the definition it
    decorates (``dec(f)``), or of what the decorator below it makes of it (``@a @b def f``:
    ``a(b(f))``); no arguments for any other node."""
    wrapper = decorator.parent
    definition = wrapper.child_by_field_name("definition") if wrapper is not None \
        and wrapper.type in spec.definition_wrappers else None
    name = definition.child_by_field_name("name") if definition is not None else None
    if name is None:
        return ()
    below = decorator.next_named_sibling
    if below is None or below.type != decorator.type:
        return ((0, text(name)),)
    made = below.named_children[0] if below.named_child_count else None
    return ((0, f"{text(made)}({text(name)})"),) if made is not None else ()


def _by_call(lists) -> dict[int | tuple[int, int], Arguments | None]:
    out: dict[int | tuple[int, int], Arguments | None] = {}
    shared: set[int] = set()  # end bytes of more than one list
    for arg_list, entries in lists:
        end = arg_list.end_byte
        if end in out:
            shared.add(end)
        out[end] = tuple(entries)
    if shared:
        for arg_list, entries in lists:
            if arg_list.end_byte in shared:
                call = arg_list.parent
                out[arg_list.end_byte] = None
                out[(call.start_byte, call.end_byte)] = tuple(entries)
    return out


def _positions(arg_list: tree_sitter.Node) -> dict[int, int]:
    """The position of each argument in a list (by node id), up to the first splat."""
    positions: dict[int, int] = {}
    for i, item in enumerate(arg_list.named_children):
        positions[item.id] = i
        if "splat" in item.type:
            break
    return positions


def parameters(matches: list[dict], starts: list[int], enclosing: list, bindings: Iterable) -> list[ParamRef]:
    """Each function's parameters in order, with their defaults. ``starts`` holds the first
    byte of each match's parameter, ``enclosing`` the definition around it (the
    extractor's), ``bindings`` every binding of the file (rows of ``Binding``: scope and name
    first): a parameter bound more than once is rebound in the body."""
    count: dict[tuple[str, str], int] = {}
    for b in bindings:
        key = b[0], b[1]
        count[key] = count.get(key, 0) + 1
    out: list[ParamRef] = []
    position: dict[str, int | None] = {}
    for i in sorted(range(len(matches)), key=starts.__getitem__):
        caps, d = matches[i], enclosing[i]
        if d is None or d.sym is None or d.kind not in _FUNCTION_KINDS:
            continue
        fid = d.sym.id
        pos = position.get(fid, 0)
        if "parameter" not in caps:  # *args, a bare `*` or **kwargs
            if "parameter.variadic" in caps:
                out.append(ParamRef(fid, VARIADIC, None, None, False))
            position[fid] = None
            continue
        name = _text(caps["parameter"][0])
        default = _text(caps["parameter.default"][0]) if "parameter.default" in caps else None
        out.append(ParamRef(fid, name, pos, default, count.get((fid, name), 0) > 1))
        if pos is not None:
            position[fid] = pos + 1
    return out


def _text(node: tree_sitter.Node) -> str:
    return node.text.decode("utf-8", "replace")
