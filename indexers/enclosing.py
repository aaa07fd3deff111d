"""What encloses a node, for the extractor's calls (`indexers.extract`): the nearest enclosing
definition that is a symbol, the receiver name a method declares (Go's ``func (s *T)``), and
the local names a definition sees, its own and those of the definitions and closures around it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the extractor imports this module
    import tree_sitter

    from indexers.extract import _Def


def with_symbols(defs: list[_Def | None]) -> list[_Def | None]:
    """Each of ``defs`` replaced by the nearest of it and the definitions around it that is a
    symbol (in place)."""
    for i, d in enumerate(defs):
        if d is not None and d.sym is None:
            while d is not None and d.sym is None:
                d = d.parent
            defs[i] = d
    return defs


def definition_steps(ordered: list[_Def]) -> tuple[list[int], list[_Def | None], list[_Def | None]]:
    """The innermost definition around a byte as a step function: the bytes where it may
    change (where a definition starts or ends), and after each of them the definition, then
    the nearest symbol around it; both lists start with None for the bytes before the
    first. One sweep over the definitions in source order, with a stack."""
    defs = [d for d in ordered if d.qual and d.kind not in ("variable", "constant")]
    points = sorted({d.start for d in defs} | {d.end for d in defs})
    owners: list[_Def | None] = [None]
    count = len(defs)
    stack: list[_Def] = []
    j = 0
    for pos in points:
        while j < count and defs[j].start <= pos:
            d = defs[j]
            while stack and stack[-1].end <= d.start:
                stack.pop()
            stack.append(d)
            j += 1
        while stack and stack[-1].end <= pos:
            stack.pop()
        owners.append(stack[-1] if stack else None)
    return points, owners, with_symbols(list(owners))


def constructor_functions(ordered: list[_Def]) -> dict[str, _Def]:
    """The functions a file gives methods of their own (``Router.prototype.use = function``),
    by qualified name: constructor functions, whose ``this.x = ...`` are fields."""
    owners = {d.qual.rpartition(".")[0] for d in ordered if d.kind == "method" and d.qualifier}
    return {d.qual: d for d in ordered if d.kind == "function" and d.qual in owners}


def receiver_of(d: _Def, memo: dict[int, str | None]) -> str | None:
    key = id(d)
    if key not in memo:
        memo[key] = _self_of(d)
    return memo[key]


def visible_locals(d: _Def | None, local_names: dict[int | str, dict[str, bool]],
                    memo: dict[int, list[dict[str, bool]]], blocks_around) -> list[dict[str, bool]]:
    """The local names of ``d`` and the definitions around it, innermost first, then those of
    the closures around the outermost one (`describe(() => { const x = ...; function f() {} })`)."""
    key = id(d)
    found = memo.get(key)
    if found is None:
        found = memo[key] = []
        top = d
        while d is not None:
            names = local_names.get(id(d))
            if names:
                found.append(names)
            top, d = d, d.parent
        around = blocks_around(top.start - 1) if top is not None and top.start else ""
        while around:
            found.extend((local_names[around],) if around in local_names else ())
            around = around.rpartition("/")[0]
    return found


def _self_of(d: _Def) -> str | None:
    while d is not None:
        if d.self_name:
            return d.self_name
        d = d.parent
    return None


def shadows_receiver(nested: dict[str, list[tuple[str, int]]], name: str, block: str, pos: int) -> bool:
    """Whether a block around a call starting at byte `pos` in `block` binds `name` again before
    the call (``for _, f := range fi { f.Name() }`` in a method whose receiver is ``f``; not
    ``f := f.Child()``'s own call). `nested`: per block, the names bound in it and where each
    one's scope starts (`scope_start`)."""
    while block and nested:
        if any(bound == name and pos >= after for bound, after in nested.get(block, ())):
            return True
        block = block.rpartition("/")[0]
    return False


def declared_after(nested: dict[str, list[tuple[str, int]]], name: str, block: str, pos: int) -> str:
    """The block a name read at byte `pos` in `block` is looked up in: the block around when the
    name's binding in `block` starts its scope after `pos` (``x := x.Child()``, and reads
    before the declaration)."""
    starts = [after for bound, after in nested[block] if bound == name]
    return block.rpartition("/")[0] if starts and pos < min(starts) else block


def scope_start(node: tree_sitter.Node, holders: frozenset[str]) -> int:
    """Where the name bound at `node` starts to stand for its new value: past the statement or
    clause binding it, the child of one of `holders` around it (``f := f.Child()`` and ``for _,
    f := range f.Items()`` read the old ``f`` on their right)."""
    while node.parent is not None and node.parent.type not in holders:
        node = node.parent
    return node.end_byte


def decorator_names(node: tree_sitter.Node, text) -> list[str]:
    """The decorators of the definition ``node`` as written (``functools.cache``), without the ``@``."""
    holder = node.parent
    if holder is None or holder.type != "decorated_definition":
        return []
    return [text(d).lstrip("@").strip() for d in holder.named_children if d.type == "decorator"]


def method_receiver(node: tree_sitter.Node, text, self_names: frozenset[str]) -> tuple[str, bool] | None:
    """The name a method's first parameter gives its receiver when it is none of the usual
    ``self_names`` (loguru's ``def debug(__self, ...)``, a metaclass's ``mcs``), and whether
    it is a classmethod's; None for the usual names and for a staticmethod."""
    params = node.child_by_field_name("parameters")
    first = params.named_children[0] if params is not None and params.named_child_count else None
    if first is None or first.type != "identifier" or text(first) in self_names:
        return None
    decorators = {d.rpartition(".")[2] for d in decorator_names(node, text)}
    name = node.child_by_field_name("name")
    of_class = "classmethod" in decorators or (name is not None and text(name) in _CLASS_RECEIVERS)
    return None if "staticmethod" in decorators else (text(first), of_class)


# Methods whose first parameter is the class without a decorator.
_CLASS_RECEIVERS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})


def own_block_left(d: _Def, block: str) -> str:
    """A block path inside ``d`` without the block of the function ``d`` defines when its node
    holds it as a value (`var f = function`, `X.prototype.m = function`, `{m: () => ...}`)."""
    first, _, rest = block.partition("/")
    value = d.node.child_by_field_name("value") or d.node.child_by_field_name("right")
    while value is not None and value.type in ("parenthesized_expression", "assignment_expression"):
        value = value.child_by_field_name("right") if value.type == "assignment_expression" else value.named_child(0)
    return rest if value is not None and str(value.start_byte) == first else block


def block_paths(blocks: list[tuple[int, int]], names: dict[tuple[int, int], str], starts: list[int],
                enclosing: list[_Def | None], size: int) -> list[str]:
    """Per node (by its first byte), the ``@block`` nodes around it inside its enclosing
    definition, outermost first, each by its first byte ("12/40") or its name in ``names``;
    "" for none. One sweep in source order over ``blocks`` (sorted, outer ones first) of a
    source of ``size`` bytes."""
    paths = [""] * len(starts)
    if not blocks:
        return paths
    stack: list[tuple[int, int, str]] = []  # (start, end, name) of the blocks around
    j = 0
    for i in sorted(range(len(starts)), key=starts.__getitem__):
        pos = starts[i]
        while j < len(blocks) and blocks[j][0] <= pos:
            while stack and stack[-1][1] <= blocks[j][0]:
                stack.pop()
            stack.append((*blocks[j], block_name(names, blocks[j])))
            j += 1
        while stack and stack[-1][1] <= pos:
            stack.pop()
        d = enclosing[i]
        lo, hi = (d.start, d.end) if d is not None else (0, size)
        paths[i] = "/".join(name for s, e, name in stack if lo <= s and e <= hi and (s, e) != (lo, hi) and pos < e)
    return paths


def block_name(names: dict[tuple[int, int], str], block: tuple[int, int]) -> str:
    """A block's part of a block path: its name in ``names``, else its first byte."""
    return names.get(block) or str(block[0])
