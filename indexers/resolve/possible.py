"""Candidates from what a callee may be, when ``types`` cannot prove what it is.

``types`` gives a name a value only when every binding of it agrees, so one binding it cannot
read (a parameter, a tuple unpacked, a ``global`` statement, a class attribute left ``None``)
or two that differ leave the callee unknown. The bindings it can read still say what the call
may reach::

    cls = self.client_class        # unknown: set by a subclass, or None
    if cls is None:
        from .testing import Client as cls
    cls(self)                      # may call Client

    template, origin = self.find(name)
    if not hasattr(template, "render"):
        template = Template(template)
    return template                # get_template() may return a Template

Here a name, a field or a function result is *every* value its readable bindings give
(an import of the name inside the function binds it too), and a conditional expression every
value of its branches. What the call of such a value reaches becomes candidate edges: the
unknown bindings may hold anything, so each target gets ``1 / (k + 1)`` for ``k`` targets and
none is asserted. Nothing here changes a value ``types`` proves.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from indexers.bindings import ALTERNATIVES, DEFINED, EACH, ELEMENT, RESULT, STRAIGHT
from indexers.text import NAME, literal_end
from indexers.extract import RECEIVER_EXPR, RECEIVER_NAME, RECEIVER_NONE, RECEIVER_SELF, RECEIVER_SUPER, CallRef
from indexers.resolve.common import (
    GUESS_REASONS, MAX_CANDIDATES, TYPE_KIND_NAMES, VARIABLE_KINDS, Reason, base_qual, built_by_default, c3_merge,
    imported_in_functions, keyed_by_position,
)
from indexers.resolve.types import ANONYMOUS, BUILTIN, UNKNOWN, Types, chain_of, in_block, union_parts

if TYPE_CHECKING:  # the resolver imports this module
    from indexers.resolve.resolver import Resolver

NOTHING: frozenset[tuple] = frozenset()
MAX_DEPTH = 12  # bindings followed through bindings, at most
MAX_ALIAS_HOPS = 4  # variables naming variables, followed at most
_PLAIN_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
MAX_BINDINGS = 4  # bindings of one name read, at most
# A field's bindings read, and the targets they give, at most: a state machine's `self.state =
# self.expect_x` in every state names each method it may call, none of them a guess.
MAX_FIELD_VALUES = 32
_UNKNOWN_KINDS = frozenset({"unknown", "missing"})


def possible_call(r: Resolver, call: CallRef):
    """Candidate targets of a call ``types`` left unknown (as ``resolve_call`` answers), or None."""
    if call.receiver_kind == RECEIVER_SUPER or r.reading_values:
        return None
    qual = call.caller.partition("#")[2]
    if call.receiver_kind == RECEIVER_SELF:
        tid = r.enclosing_type(qual)
        found = _fields(r, ("this", tid), call.name, 0) if tid is not None else NOTHING
        return _candidates(r, found, MAX_FIELD_VALUES)
    if call.receiver_kind == RECEIVER_NONE:
        each = each_entry(r, call.name, qual, call.block)
        if each is not None:
            return each
    text = chain_of(call.receiver, call.name) if call.receiver else call.name
    return _candidates(r, values(r, text, qual, call.block)) or written_here(r, call)


def written_here(r: Resolver, call: CallRef):
    """Candidates for a call of a member or a local name nothing proves (JavaScript, TypeScript):
    the functions of that name the file itself writes, as an object literal's members (`const
    slice = createSlice({ reducers: { increment(state) {} } })`, then `slice.actions.increment()`
    or `const { increment } = slice.actions`: a type maps the literal's keys), or None."""
    if not r.spec.literal_keys or call.receiver_kind not in _WRITTEN_HERE:
        return None
    if call.receiver:  # read through names and members only (`slice.actions`), not what a call gives
        if not _MEMBERS.fullmatch(call.receiver):
            return None
    else:  # a local name bound only to such a member of its name (`const { increment } = slice.actions`)
        where = r.types.binder(call.name, call.caller.partition("#")[2], call.block) if call.local else None
        binds = in_block(r.table.bindings(where[0], call.name), where[1]) if where else ()
        if not binds or not all(b.type is None and _MEMBERS.fullmatch(b.value or "") and b.value.endswith(
                "." + call.name) for b in binds):
            return None
    ids = [i for i in _functions_by_name(r).get(call.name, ()) if i != call.caller]
    return (("sym", tuple(ids)), Reason.CANDIDATE, 1.0 / (len(ids) + 1)) if 0 < len(ids) <= MAX_CANDIDATES else None


_WRITTEN_HERE = (RECEIVER_NONE, RECEIVER_NAME, RECEIVER_EXPR)
_MEMBERS = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


def _functions_by_name(r: Resolver) -> dict[str, list[str]]:
    def build() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for sym in r.ext.symbols:
            if sym.kind in ("function", "method"):
                found.setdefault(sym.name, []).append(sym.id)
        return found
    return r.table.file_index(r.ext.path, "functions-by-name", build)


def each_entry(r: Resolver, name: str, qual: str, block: str):
    """A call of a loop's variable over the entries of a list or tuple literal (``for check
    in (a, b): check(x)``, or over a name bound to one): each entry is called in turn, so
    every one is a target, as ``("each", ids)``; None unless every binding of the name there
    is such a loop and every entry names a function or class."""
    where = r.types.binder(name, qual, block)
    if where is None:
        return None
    scope, inner = where
    binds = in_block(r.table.bindings(scope, name), inner)
    loops = {(b.value[:-len(EACH)], b.block) for b in binds if b.type is None and b.value and b.value.endswith(EACH)}
    if not binds or len(loops) != len(binds) or len({text for text, _ in loops}) != 1:
        return None
    found = _union(values(r, text, scope.partition("#")[2], loop_block, 1) for text, loop_block in loops)
    if len(found) != 1 or (items := next(iter(found)))[0] != "items" or not items[1] or not keyed_by_position(items[1]):
        return None  # a dict's loop binds its keys
    ids: dict[str, None] = {}
    for _, value in items[1]:
        target = r.callee(value) if _known(value) else None
        if not isinstance(target, tuple) or target[0][0] != "sym" or target[2] < 1.0 or target[1] in GUESS_REASONS:
            return None
        ids.update(dict.fromkeys(target[0][1]))
    return ("each", tuple(ids)), Reason.TYPE, 1.0


def held(r: Resolver, found: tuple, hops: int = 0):
    """A call of a resolved name (as ``resolve_call`` answers); a module-level variable stands
    for what it holds when that is known (`handler = func` then `handler()`), for itself when
    that is a lambda (the name is all the function has), else for the candidates its
    bindings give (``BufferedReader = _CyReader or _PyReader``)."""
    ent = found[0]
    if ent[0] == "sym" and found[2] == 1.0:
        syms = [r.table.symbols.get(i) for i in ent[1]]
        if syms and all(s is not None and s.kind in ("variable", "constant") for s in syms):
            if len(syms) == 1 and hops < MAX_ALIAS_HOPS and (named := _named_by(r, syms[0])) is not None:
                return held(r, (named, found[1], 1.0), hops + 1)  # `const map: {...} = core.map`: what it names
            value = r.types.entity(ent)
            lambdas = [r.types.defined_anonymous(s) for s in syms]
            if value is ANONYMOUS and all(lambdas):
                return found  # `x = lambda: ...; x()`: the lambda has no symbol but the name it is given
            if value is ANONYMOUS or any(lambdas):
                return None  # a lambda made elsewhere (`y = make()`), or rebound later: not the variable
            target = r.callee(value)
            if target is UNKNOWN and value[0] == "inst" and len(syms) == 1:
                target = _made_function(r, syms[0])  # `create = build()`, build declared to give a function type
            if target is not UNKNOWN and target is not None and target != "builtin":
                return target
            if target == "builtin" and all(_alias_only(r, s) for s in syms):
                return target  # `defineProperty = Object.defineProperty`: the builtin, not the variable
            if (value is UNKNOWN or value[0] == "returns") and not r.reading_values:  # declared `Callable[...]`
                found = _candidates(r, _variable_values(r, ent, 0)) or found
                # `debug = log.debug` of `log = logging.getLogger()`: something outside, not the
                # variable; `Draft7 = create(schema)`: what the workspace's function made, not known
                made = value is UNKNOWN and all(_made_here(r, s) for s in syms)  # (not `() => T` declared)
                return None if found[0] == ent and (made or all(_outside(r, s) for s in syms)) else found
        if len(syms) == 1 and syms[0] is not None and syms[0].kind == "type_alias":
            under = r.types.result(syms[0].id)  # Go's `type Secret = secret.Secret`: `Secret(x)` converts to it
            if under[0] == "inst":
                return ("sym", under[1]), found[1], found[2]
            if under is BUILTIN:  # `type mybool = bool`
                return "builtin"
    return found


def _made_function(r: Resolver, sym):
    """What calling a variable bound once to a call of a function calls when that function
    returns one function it defines, whatever type it declares (``const createApi =
    buildCreateApi()`` of ``function buildCreateApi(): CreateApi { return function
    baseCreateApi() {} }``), as `resolve_call` answers; else UNKNOWN."""
    binds = r.table.bindings(sym.file, sym.name)
    if len(binds) != 1 or binds[0].type is not None or not (binds[0].value or "").endswith(RESULT):
        return UNKNOWN
    maker = r.other(sym.file).types.value(binds[0].value[:-len(RESULT)], "", binds[0].block)
    if maker[0] != "sym" or len(maker[1]) != 1:
        return UNKNOWN
    returned = {b.value for b in r.table.bindings(maker[1][0], RESULT) if b.type is None}
    made = next(iter(returned)) if len(returned) == 1 else ""
    if not made.startswith(DEFINED) or made[len(DEFINED):] not in r.table.symbols:
        return UNKNOWN
    return ("sym", (made[len(DEFINED):],)), Reason.TYPE, 1.0


def _outside(r: Resolver, sym, depth: int = 0) -> bool:
    """Is every binding of a module-level variable a member of something outside the workspace
    (`debug = log.debug` of `log = logging.getLogger()`: the chain's first name holds something
    external, or is such a variable in turn)? Not what an outside call makes (`fn = mock()`:
    the variable is all there is to call), nor a class read from a value (`type(sys)`)."""
    binds = r.table.bindings(sym.file, sym.name) if "." not in sym.qualified_name and depth < 3 else ()
    there = r.other(sym.file)
    for b in binds:
        head = NAME.match(b.value or "") if b.type is None else None
        if head is None or head.end() == len(b.value) or head.group(0) in r.spec.builtins or (
                depth == 0 and (b.value.endswith(")") or b.value.endswith(".__class__"))):
            return False  # (what a member is read from may be made by a call: `log = getLogger()`)
        value = there.types.value(head.group(0), "", b.block)
        if value[0] == "ext":
            continue
        found = there.lookup(head.group(0), "") if value is UNKNOWN else None
        if found is None or found[0][0] != "sym" or found[2] < 1.0 or not all(
                (s := r.table.symbols.get(i)) is not None and s.kind in VARIABLE_KINDS and _outside(r, s, depth + 1)
                for i in found[0][1]):
            return False
    return bool(binds)


def in_effect(r: Resolver, found: tuple | None, call: CallRef) -> tuple | None:
    """A name a call names (``found`` by `Resolver.lookup`) as it is bound where the call runs:
    a class body's call of a member defined below it reads the name around the class
    (`not_bound_yet`); a call straight in a body that defines the function twice calls the
    definition above it (`defined_above`)."""
    if found is None or found[0][0] != "sym":
        return found
    if not_bound_yet(r, found, call):
        return r.lookup(call.name, call.caller.partition("#")[2].rpartition(".")[0])
    ids = defined_above(r, found[0][1], call)
    return found if ids is found[0][1] else (("sym", ids), *found[1:])


def defined_above(r: Resolver, ids: tuple, call: CallRef) -> tuple:
    """Of a function defined twice in one statement list (`def f` ... `f()` ... `def f`), the
    definition a call straight in that body runs: the last one above the call. A closure or
    a lambda runs later: it calls the last definition, which ``ids`` names."""
    if len(ids) != 1 or any(part[:1] != STRAIGHT for part in call.block.split("/") if part):
        return ids  # (a block after an assignment, `indexers.rebinding`'s, runs in place)
    sym = r.table.symbols[ids[0]]
    if sym.start_line <= call.line or sym.parent != call.caller:
        return ids
    above = [i for i in r.table.earlier_functions(sym.file, base_qual(sym.qualified_name))
             if r.table.symbols[i].start_line < call.line]
    return (above[-1],) if above else ids


def not_bound_yet(r: Resolver, found: tuple, call: CallRef) -> bool:
    """Whether a name a class body calls (Python's) is a member defined below the call: not
    bound yet when the body runs (a decorator named as the method it decorates)."""
    symbols = r.table.symbols
    owner = symbols.get(call.caller)
    return bool(r.spec.body_scope) and owner is not None and owner.kind in TYPE_KIND_NAMES and found[0][0] == "sym" \
        and all(symbols[i].parent == call.caller and symbols[i].start_line > call.line for i in found[0][1])


def _named_by(r: Resolver, sym) -> tuple | None:
    """The workspace symbol a module-level variable bound once to another name names, for
    certain (``export const map: { <A>(...): ... } = core.map``: a declared type says how to
    call it, the name what is called). None for any other variable."""
    binds = [b for b in r.table.bindings(sym.file, sym.name) if not b.block] if "." not in sym.qualified_name else ()
    if len(binds) != 1 or not binds[0].value or not _PLAIN_NAME.fullmatch(binds[0].value):
        return None
    found = r.other(sym.file).resolve_receiver(binds[0].value, "")  # (a name, or members of one)
    named = found[0] if found is not None and found[2] == 1.0 else None
    return named if named is not None and named[0] == "sym" and named[1] != (sym.id,) else None


def _made_here(r: Resolver, sym) -> bool:
    """Whether every binding of a module-level variable is a call of a workspace function
    returning named values (`Draft7 = create(schema)`, whose result is not known when this
    is asked)."""
    binds = r.table.bindings(sym.file, sym.name) if "." not in sym.qualified_name else ()
    there = r.other(sym.file)
    for b in binds:
        if b.type is not None or not b.value or not b.value.endswith("()"):
            return False
        callee = there.types.value(b.value[:-2], "", b.block)
        if callee[0] != "sym" or not all(getattr(r.table.symbols.get(i), "kind", "") in ("function", "method")
                                         and _returns_named(r, i) for i in callee[1]):
            return False
    return bool(binds)


def _returns_named(r: Resolver, function_id: str) -> bool:
    """Whether a function that declares no result returns what names of the workspace name
    (`return Validator`): not a function without a name (`return function (stack) {}`), nor
    one from outside (`return useEffect`), which the variable its call is bound to is the
    only name in the workspace of, as for a checker."""
    results = [b for b in r.table.bindings(function_id, RESULT) if not b.block]
    sym = r.table.symbols[function_id]
    there = r.other(sym.file)
    for b in results:
        head = NAME.match(b.value.lstrip(ALTERNATIVES)) if b.type is None and b.value else None
        found = there.lookup(head.group(0), sym.qualified_name) if head is not None else None
        if found is None or found[0][0] != "sym":
            return False
    return bool(results)


def _alias_only(r: Resolver, sym) -> bool:
    """Whether every binding of a variable names another value (``f = Object.create``) rather
    than a call's result (``Point = namedtuple(...)``, a class made at run time)."""
    binds = r.table.bindings(sym.file, sym.name)
    return bool(binds) and all(b.value and b.value[-1] != ")" and b.type is None for b in binds)


def assigned_over(r: Resolver, ids: list[str], name: str, tid: str | None = None) -> bool:
    """Whether a method (`ids`) is hidden on some instances by an attribute a method assigns
    (`self.getsizeof = getsizeof` in `__init__`), in its type or in the type ``tid``: then it
    is only a candidate."""
    if not r.spec.fields_overridable:
        return False  # where a type declares its fields (TypeScript), the method's is what an instance has
    itself = {f"{n}.{name}" for n in r.spec.self_names}  # `self.run = self.run`
    return any(b.context is not None and b.value not in itself
               for t in {tid, *(i.rpartition(".")[0] for i in ids)} if t for b in r.table.bindings(t, name))


def held_classes(r: Resolver, ids: tuple[str, ...]) -> tuple[str, ...]:
    """A base's ids, a module's variable bound to classes read as those classes (`_PyFuture =
    Future`, `tqdm = tqdm_asyncio`): their members are the subclass's."""
    symbols = r.table.symbols
    if not all(symbols[i].kind in VARIABLE_KINDS for i in ids):
        return ids
    found = r.types.entity(("sym", ids))
    return found[1] if found[0] == "sym" and all(symbols[i].kind in TYPE_KIND_NAMES for i in found[1]) else ids


def order_unproven(r: Resolver, type_id: str, name: str) -> bool:
    """Whether which of the type's classes gives ``name`` is not proven: Python could not build
    the method order of the type, or of a base (C3 fails: creating the class raises TypeError),
    and more than one of them defines it. Such a class is defined on a branch that does not run
    where its bases are what the graph read (`if notebook_tqdm != std_tqdm: class
    tqdm(notebook_tqdm, asyncio_tqdm)`), or its bases were read wrong."""
    return inconsistent_order(r, type_id) and sum(1 for t in r.linearization(type_id) if r.members_of(t).get(name)) > 1


def inconsistent_order(r: Resolver, type_id: str) -> bool:
    """Whether C3 fails for the type's bases or for a base's (`order_unproven`)."""
    if not r.spec.linear_mro:
        return False
    recursive, key = r.table.recursive, ("inconsistent-order", type_id)
    found = recursive.values.get(key)
    return found if found is not None else recursive.get(key, False, lambda: _inconsistent_order(r, type_id))


def _inconsistent_order(r: Resolver, type_id: str) -> bool:
    bases = list(dict.fromkeys(b for b, _ in r.bases(type_id)))
    return any(inconsistent_order(r, b) for b in bases) or (
        len(bases) > 1 and c3_merge([r.linearization(b) for b in bases] + [bases]) is None)


def _candidates(r: Resolver, found: frozenset[tuple], most: int = MAX_CANDIDATES):
    ids: set[str] = set()
    for value in found:
        target = r.callee(value)
        if isinstance(target, tuple) and len(target) == 3 and target[0][0] == "sym":
            ids.update(target[0][1])
    if not ids or len(ids) > most:
        return None
    return ("sym", tuple(sorted(ids))), Reason.CANDIDATE, 1.0 / (len(ids) + 1)


def values(r: Resolver, text: str, qual: str, block: str = "", depth: int = 0) -> frozenset[tuple]:
    """Every value the chain ``text`` written in the scope ``qual`` may have, as far as its
    readable bindings say (``types``' raw values); empty when none is known."""
    types = r.types
    split = Types.split_chain(text)
    # `types` reads a self name (`cls`) as the receiver even where a function binds it anew.
    rebound = (split is not None and not split[1] and split[0] in r.spec.self_names
               and _rebound(r, split[0], qual, block))
    found = UNKNOWN if rebound else types.raw(text, qual, block)
    if _known(found):
        return frozenset((found,))
    if depth >= MAX_DEPTH or not text:
        return NOTHING
    if text[0] == ALTERNATIVES:
        return _union(values(r, alt, qual, block, depth + 1) for alt in text[1:].split("|"))
    if text[0] == "{":  # `for cls in A, B: cls()`: any of the literal's entries
        pos = literal_end(text)
        return _follow(r, types.raw(text[:pos], qual), Types._steps(text, pos), depth + 1) if pos else NOTHING
    if split is None:
        return NOTHING
    name, steps = split
    head, used = (UNKNOWN, 0) if rebound else types.head(name, steps, qual, block)
    if _known(head):
        return _follow(r, head, steps[used:], depth + 1)
    return _union(_follow(r, start, steps, depth + 1) for start in _name_values(r, name, qual, block, depth))


def _name_values(r: Resolver, name: str, qual: str, block: str, depth: int) -> frozenset[tuple]:
    """What a name may be: its bindings in the function around that binds it (and an import
    of it there), or at the top level of the file when nothing in scope defines it."""
    path = r.ext.path
    where = r.types.binder(name, qual, block)
    if where is None:
        found = r.lookup(name, qual)
        if found is not None:  # a module-level variable (this file's or imported): its bindings there
            return _variable_values(r, found[0], depth) if found[0][0] == "sym" else NOTHING
        if not r.table.bindings(path, name):
            return NOTHING
        where = (path, "")
    scope, inner = where
    found = bound_values(r, scope, name, inner, depth)
    function = scope.partition("#")[2]
    names = r.context(path).names
    if function and name in names and function in (imported_in_functions(r.ext, name) or ()):
        imported = (r.realize(b) for b in names[name])
        found = found | {v for v in (r.types.entity(e) for e in imported if e is not None) if _known(v)}
    return found


def _variable_values(r: Resolver, ent: tuple, depth: int) -> frozenset[tuple]:
    """What module-level variables may hold, by their bindings in their files (a literal a
    function changes, `SUPPORTED.pop(k)`, still holds what it was written with)."""
    syms = [r.table.symbols.get(i) for i in ent[1]]
    if not syms or any(s is None or s.kind not in VARIABLE_KINDS or "." in s.qualified_name for s in syms):
        return NOTHING
    return _union(bound_values(r, s.file, s.name, "", depth + 1) for s in syms)


def _rebound(r: Resolver, name: str, qual: str, block: str) -> bool:
    """Does a function around ``qual`` bind ``name`` to something (not as a parameter)?"""
    where = r.types.binder(name, qual, block)
    return where is not None and any(b.value or b.type for b in in_block(r.table.bindings(where[0], name), where[1]))


def bound_values(r: Resolver, scope: str, name: str, block: str | None, depth: int,
                 most: int = MAX_BINDINGS) -> frozenset[tuple]:
    """Every value the readable bindings of ``name`` in ``scope`` (in ``block``; None: any)
    give; a declared type stands for the values, as in ``types``."""
    if depth >= MAX_DEPTH:
        return NOTHING
    key = ("possible", scope, name, block, most)
    recursive = r.table.recursive
    found = recursive.values.get(key)  # `get`'s first look, without its closure
    if found is not None:
        return found
    return recursive.get(key, NOTHING, lambda: _bound_values(r, scope, name, block, depth, most))


def _bound_values(r: Resolver, scope: str, name: str, block: str | None, depth: int, most: int) -> frozenset[tuple]:
    binds = in_block(r.table.bindings(scope, name), block)
    if len(binds) > most:
        return NOTHING  # a name rebound again and again: its values are too many to follow
    declared = [b for b in binds if b.type is not None]
    found: set[tuple] = set()
    for b in declared if declared and not r.spec.bindings_declare else binds:
        where = b.context or scope
        other = r.other(where.partition("#")[0])
        qual = where.partition("#")[2]
        if b.type is not None:
            value = other.types.declared(b.type, qual)
            if not _known(value) and b.value:  # `let f: () => void = g`: at first, that function
                value = other.types.raw(b.value, qual)
            if not _known(value):  # `ContentRange | str | None`: any of its members
                found.update(v for v in (other.types.declared(t, qual) for t in union_parts(b.type)) if _known(v))
            found.update((value,) if _known(value) else ())
        elif b.value and (Types.split_chain(b.value) or ("",))[0] != name:
            # (not `x = x.next()`: it reads the name being read)
            found.update(values(other, b.value, qual, b.block, depth + 1))
        if len(found) > max(most, MAX_CANDIDATES):
            return NOTHING  # so many possibilities say nothing
    return frozenset(found)


def _follow(r: Resolver, cur: tuple, steps: list[str | None], depth: int) -> frozenset[tuple]:
    """Every value the ``steps`` of a chain may reach from ``cur``: a step ``types`` cannot
    take is taken through the readable bindings of a function's result or an object's field."""
    types = r.types
    for i, step in enumerate(steps):  # the steps `types` can take
        one = types.follow(cur, steps[i:i + 1])
        if not _known(one):
            break
        cur = one
    else:
        return frozenset((cur,))
    if depth >= MAX_DEPTH:
        return NOTHING
    rest = steps[i + 1:]
    if step is None:
        nexts = _results(r, cur, depth)
    elif step[0] != "[" and cur[0] in ("inst", "this"):
        nexts = _fields(r, cur, step, depth)
    elif (step == ELEMENT or step == EACH) and cur[0] == "items":  # `DECODERS[name]()`: any of the literal's entries
        # (a loop over a mapping's literal binds its keys)
        nexts = frozenset(v for _, v in cur[1] if _known(v)) if step == ELEMENT or keyed_by_position(cur[1]) else NOTHING
    else:
        return NOTHING
    return _union(_follow(r, n, rest, depth + 1) for n in nexts)


def _results(r: Resolver, cur: tuple, depth: int) -> frozenset[tuple]:
    """What a call of a function (or of methods of an instance) may return."""
    if cur[0] not in ("method", "sym"):
        return NOTHING
    syms = [r.table.symbols.get(i) for i in cur[1]]
    if not syms or any(s is None or s.kind not in ("function", "method") for s in syms):
        return NOTHING
    found: set[tuple] = set()
    for s in syms:
        for value in bound_values(r, s.id, RESULT, "", depth + 1):
            if value[0] == "this":  # the method returns the instance it is called on
                value = ("inst", cur[2]) if cur[0] == "method" else ("inst", (value[1],))
            found.add(value)
    return frozenset(found)


def _fields(r: Resolver, cur: tuple, name: str, depth: int) -> frozenset[tuple]:
    """What a field of an instance of one type may hold, bound in the type or its bases."""
    type_ids = cur[1] if cur[0] == "inst" else (cur[1],)
    if len(type_ids) != 1:
        return NOTHING
    for t in r.linearization(type_ids[0]):
        if r.members_of(t).get(name):
            return NOTHING  # a method or nested type: `types` answers for those
        if r.table.bindings(t, name):
            return bound_values(r, t, name, None, depth + 1, MAX_FIELD_VALUES)
    return NOTHING


def _known(value: tuple) -> bool:
    return value[0] not in _UNKNOWN_KINDS


def _union(sets) -> frozenset[tuple]:
    out: set[tuple] = set()
    for s in sets:
        out.update(s)
        if len(out) > MAX_CANDIDATES:
            return NOTHING
    return frozenset(out)


def variant_only(r: Resolver, chain: str, qual: str, found: tuple) -> frozenset[str]:
    """Of the targets `found` that a call through `chain` reaches, those only a build
    variant gives: the chain's head is a package variable that files of several builds declare
    with values of different types (zerolog's `enc = json.Encoder{}`, and `enc = cbor.Encoder{}`
    under `binary_log`), and what the default build declares does not reach them. As for a
    function defined in such files, the default build's target is sure, the others candidates."""
    split = Types.split_chain(chain)
    if found[0] != "sym" or len(found[1]) < 2 or split is None:
        return NOTHING
    head = r.lookup(split[0], qual)
    symbols = r.table.symbols
    if head is None or head[0][0] != "sym" or len(head[0][1]) < 2 or not all(
            symbols[i].kind in VARIABLE_KINDS for i in head[0][1]):
        return NOTHING
    built = built_by_default(r.table.files, symbols, head[0][1])
    if len(built) == len(head[0][1]):
        return NOTHING
    default = r.callee(r.types.follow(r.types.entity(("sym", built)), split[1]))
    if default is UNKNOWN or default is None or default[0][0] != "sym":
        return NOTHING
    only = frozenset(found[1]) - frozenset(default[0][1])
    return only if len(only) < len(found[1]) else NOTHING
