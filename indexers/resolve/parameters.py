"""What a parameter holds: the functions the callers pass for it.

``def run(callback): callback()`` calls what the callers of ``run`` pass as ``callback``:
every call site in the workspace that resolves to ``run`` with confidence 1 and passes, by
position or by keyword, a name (or a call: what it returns) whose value (``types``) is a
function, a class or a method (and the default, when it is such a name). Each of them is called by some execution, so
each is an edge at the confidence of the call site; a caller outside the workspace may pass
more, which adds edges and makes none of these wrong. What a caller passes may be a
parameter of its own (``def outer(f): run(f)``): its callers are followed in turn. The
function may be called by its name, by a name bound to it (``c = run``), or through a
parameter that holds it alone (``def apply(f): f(h)``).

Left alone: parameters the body binds again (then the argument is not all they hold), and
methods (whether ``self`` takes the first position depends on how the method is called and
decorated).
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import TYPE_CHECKING

from indexers.arguments import ParamRef
from indexers.bindings import DECORATED
from indexers.extract import (RECEIVER_EXPR, RECEIVER_NAME, RECEIVER_NONE, RECEIVER_SELF, RECEIVER_SUPER, CallRef,
                              FileExtraction)
from indexers.resolve.common import TYPE_KIND_NAMES, record_fields, record_rows
from indexers.text import value_chain

if TYPE_CHECKING:  # the resolver imports this module
    from indexers.resolve.resolver import Resolver

_VALUE_KINDS = frozenset({"function", "method", "class"})
_FUNCTIONS = frozenset({"function", "method"})
_RECEIVER_FIRST = frozenset({"python"})  # languages whose methods take the receiver as first parameter
_DIRECT = (RECEIVER_NONE, RECEIVER_NAME)
_HEAD = re.compile(r"^(?:[A-Za-z_$][\w$]*\.)*")  # what qualifies a dotted name
_CALL_FIELDS = tuple(f.name for f in fields(CallRef))
_ARGS, _KIND, _NAME = (_CALL_FIELDS.index(f) for f in ("args", "receiver_kind", "name"))
_METHOD_CALLS = (RECEIVER_NAME, RECEIVER_SELF, RECEIVER_SUPER, RECEIVER_EXPR)


def parameters_of(table, path: str) -> dict[str, list[ParamRef]]:
    """A file's parameters by function (`SymbolTable.file_index`)."""
    def build() -> dict[str, list[ParamRef]]:
        found: dict[str, list[ParamRef]] = {}
        for p in table.files[path].params:
            found.setdefault(p.function, []).append(p)
        return found
    return table.file_index(path, "params-of", build)


def reaches_parameters(call: CallRef) -> bool:
    """Whether what a call passes can be what a parameter holds: a call with arguments by a
    name, of a parameter or of a method (``run(f)``, ``mod.run(f)``, ``f(h)``, ``self.m(f)``)."""
    return bool(call.args) and (call.receiver_kind in _METHOD_CALLS or call.receiver is None)


def parameter_values(r: Resolver, function_id: str, name: str) -> tuple[str, ...]:
    """Ids of the functions, methods and classes the callers of ``function_id`` pass for
    ``name``, or that its default names."""
    return r.table.recursive.get(("param", function_id, name), (),
                                 lambda: _parameter_values(r, function_id, name))


def _parameter_values(r: Resolver, function_id: str, name: str) -> tuple[str, ...]:
    table = r.table
    sym = table.symbols.get(function_id)
    if sym is None or sym.kind not in _FUNCTIONS or sym.file not in table.files:
        return ()
    param = next((p for p in parameters_of(table, sym.file).get(function_id, ()) if p.name == name), None)
    if param is None or param.rebound or sym.kind == "method" and not _receiver_first(r, sym, param):
        return ()
    found: dict[str, None] = {}
    calls, receivers = _call_sites(r, sym) if sym.kind == "function" else (_method_sites(r, sym, param), ())
    for path, call, shift in calls:
        found.update(dict.fromkeys(_passed(r.other(path), call, param, shift)))
    for path, held in receivers:
        site_resolver = r.other(path)
        for call in _calls_of_parameters(table, path, held):
            # Only a parameter that holds this function alone: with others, what it is passed
            # together with may belong to another of them.
            if parameter_values(site_resolver, call.caller, call.name) == (function_id,):
                found.update(dict.fromkeys(_passed(site_resolver, call, param)))
    if param.default:
        # What the parameter holds whenever a caller leaves it out.
        for vid in _value(r.other(sym.file), param.default, sym.qualified_name.rpartition(".")[0], None):
            found[vid] = None
    return tuple(found)


def _receiver_first(r: Resolver, sym, param: ParamRef) -> bool:
    """Whether the language passes a method's receiver as its first parameter (Python's
    ``self``), and ``param`` is another one (what a method's receiver holds is its type); a
    staticmethod has none."""
    return r.table.files[sym.file].lang in _RECEIVER_FIRST and (param.position != 0 or
                                                                 _decorated_as(r, sym) == "staticmethod")


def _decorated_as(r: Resolver, sym) -> str | None:
    """"staticmethod" or "classmethod" for a method its outermost decorator makes one."""
    decorators = {b.value for b in r.table.bindings(sym.id, DECORATED)}
    return next((d[:-2] for d in decorators if d in ("staticmethod()", "classmethod()")), None)


def _call_sites(r: Resolver, sym) -> tuple[list, list]:
    """Where a function is called, and the parameters it is passed to, whichever of its
    parameters is asked about: (path, call) of the calls resolving to it, and (path,
    {(function, parameter)}) of the parameters holding it (`apply(run)`, `def apply(f):
    f(h)`), by file."""
    return r.table.recursive.get(("call-sites", sym.id), ([], []), lambda: _find_call_sites(r, sym))


def _find_call_sites(r: Resolver, sym) -> tuple[list, list]:
    table = r.table
    calls: list[tuple[str, CallRef, int]] = []  # and the positions the receiver shifts arguments by
    receivers: dict[str, set[tuple[str, str]]] = {}
    # A function another one returns may be called as what that one's call returns (`@make()`).
    maker = table.symbols.get(sym.parent) if sym.parent != sym.file else None
    made = maker is not None and maker.kind in _FUNCTIONS
    for path in sorted(table.referencing_files(sym.name) | (table.referencing_files(maker.name) if made else set())):
        ext = table.files.get(path)
        if ext is None:
            continue
        # Calls by the function's name or by a name bound to it (`c = run; c(h)`), and
        # calls passing it on.
        names = {sym.name} | _names_bound_to(table, ext).get(sym.name, set())
        index = _calls_naming(table, ext)
        sites = dict.fromkeys(c for n in sorted(names | ({""} if made else set())) for c in index.get(n, ()))
        if not sites:
            continue
        site_resolver = r.other(path)
        for call in sites:
            passes = [key for key, v in call.args if _last_name(v) in names]
            if call.name not in names and call.name and not passes:
                continue
            target = site_resolver.resolved(call, site_resolver.memo_key(call))
            if not isinstance(target, tuple) or target[2] < 1.0 or target[0][0] != "sym":
                continue
            if target[0] == ("sym", (sym.id,)):
                calls.append((path, call, 0))
            elif passes and len(target[0][1]) == 1:
                receiver = table.symbols[target[0][1][0]]
                home = parameters_of(table, receiver.file) if receiver.file in table.files else {}
                for p in home.get(receiver.id, ()):
                    if p.name in passes or p.position in passes:
                        receivers.setdefault(receiver.file, set()).add((p.function, p.name))
    return calls, sorted(receivers.items())


def _method_sites(r: Resolver, sym, param: ParamRef) -> list[tuple[str, CallRef, int]]:
    """The calls that may pass ``param`` to the method ``sym``, in every file naming it."""
    return r.table.recursive.get(("method-sites", sym.id, param.name), [], lambda: [
        site for path in sorted(r.table.referencing_files(sym.name)) if path in r.table.files
        for site in _method_call_sites(r, sym, param, path, r.table.files[path])])


def _method_call_sites(r: Resolver, sym, param: ParamRef, path: str, ext: FileExtraction) -> list[tuple[str, CallRef, int]]:
    """The calls of a file that call the method ``sym`` for certain and pass something where
    ``param`` may be, with the positions its receiver shifts their arguments by: one through
    an instance (``obj.m(a)``: ``a`` is the second parameter) or for a classmethod, none
    through the class (``Cls.m(obj, a)``) or for a staticmethod."""
    index = r.table.file_index(path, "method-calls", lambda: _method_calls(ext))
    static = _decorated_as(r, sym)
    site_resolver = r.other(path)
    out = []
    near = (param.position, param.position - 1) if param.position is not None else ()
    for call in index.get(sym.name, ()):
        if not any(k == param.name or k in near for k, _ in call.args):
            continue  # (resolved only when it passes something there: most calls of a name do not)
        target = site_resolver.resolved(call, site_resolver.memo_key(call))
        if not isinstance(target, tuple) or target[2] < 1.0 or target[0] != ("sym", (sym.id,)):
            continue
        if static == "staticmethod":
            out.append((path, call, 0))
            continue
        if call.receiver_kind in (RECEIVER_SELF, RECEIVER_SUPER):
            out.append((path, call, 1))
            continue
        held = site_resolver.types.value(call.receiver, call.caller.partition("#")[2], call.block)
        if held[0] in ("inst", "this") or static == "classmethod":
            out.append((path, call, 1))
        elif held[0] == "sym" and all(r.table.symbols[i].kind in TYPE_KIND_NAMES for i in held[1]):
            out.append((path, call, 0))  # `Cls.m(obj, a)`: the receiver passed first
    return out


def _method_calls(ext: FileExtraction) -> dict[str, list[CallRef]]:
    """A file's calls of methods with arguments, by name."""
    index: dict[str, list[CallRef]] = {}
    for row in record_rows(ext.calls):
        if row[_ARGS] and row[_KIND] in _METHOD_CALLS:
            index.setdefault(row[_NAME], []).append(CallRef(*row))
    return index


def _calls_naming(table, ext: FileExtraction) -> dict[str, list[CallRef]]:
    """A file's calls with arguments, by the name they call and the last names of what they
    pass (`SymbolTable.file_index`). Read from the encoded rows: only the calls with
    arguments (a third) are built."""
    def build() -> dict[str, list[CallRef]]:
        found: dict[str, list[CallRef]] = {}
        direct = _DIRECT
        for row in record_rows(ext.calls):  # (and calls of what a call returns: `make()(f)`, `@make()`)
            if row[_ARGS] and (row[_KIND] in direct or not row[_NAME]):
                call = CallRef(*row)
                for n in (call.name, *[_last_name(v) for _, v in call.args]):
                    calls = found.get(n)
                    if calls is None:
                        found[n] = [call]
                    elif calls[-1] is not call:  # a name passed twice, or called and passed
                        calls.append(call)
        return found
    return table.file_index(ext.path, "calls-naming", build)


def _calls_of_parameters(table, path: str, held: set[tuple[str, str]]) -> list[CallRef]:
    """The calls with arguments of the parameters ``held`` ((function, parameter)) of a file."""
    by_parameter = _calls_by_name(table, path)
    return [call for _, call in sorted(site for key in held for site in by_parameter.get(key, ()))]


def _calls_by_name(table, path: str) -> dict[tuple[str, str], list[tuple[int, CallRef]]]:
    """A file's calls with arguments and without a receiver, with their positions, by
    (caller, name called): built from the encoded rows (few of the file's calls are these;
    `SymbolTable.file_index`)."""
    def build() -> dict[tuple[str, str], list[tuple[int, CallRef]]]:
        found: dict[tuple[str, str], list[tuple[int, CallRef]]] = {}
        caller, name, receiver, args = (_CALL_FIELDS.index(f) for f in ("caller", "name", "receiver", "args"))
        for i, row in enumerate(record_rows(table.files[path].calls)):
            if row[args] and row[receiver] is None:
                found.setdefault((row[caller], row[name]), []).append((i, CallRef(*row)))
        return found
    return table.file_index(path, "calls-by-name", build)


def _names_bound_to(table, ext: FileExtraction) -> dict[str, set[str]]:
    """A file's names bound to a (dotted) name, by that name's last part
    (`SymbolTable.file_index`)."""
    def build() -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for name, value in record_fields(ext.bindings, "name", "value"):
            if value:
                found.setdefault(_last_name(value), set()).add(name)
        return found
    return table.file_index(ext.path, "bound-to", build)


def _last_name(text: str) -> str:
    """``a.b.c`` -> ``c``: the text without what qualifies it (most texts are one name)."""
    return _HEAD.sub("", text) if "." in text else text


def _passed(r: Resolver, call: CallRef, param: ParamRef, shift: int = 0) -> tuple[str, ...]:
    """What one call passes for the parameter (nothing known: empty); ``shift``: the positions
    before the first argument (a method's receiver)."""
    for key, text in call.args:
        if key == param.name or (param.position is not None and key == param.position - shift):
            return _value(r, text, call.caller.partition("#")[2], call)
    return ()


def _value(r: Resolver, text: str, qual: str, call: CallRef | None) -> tuple[str, ...]:
    """A name or dotted name as seen from scope ``qual`` of ``r``'s file: the functions,
    methods and classes it stands for, for certain."""
    if call is not None and "." not in text and call.caller != r.ext.path:
        # A parameter of the calling function passes on what its own callers pass.
        own = any(p.name == text for p in parameters_of(r.table, r.ext.path).get(call.caller, ()))
        if own:
            return parameter_values(r, call.caller, text)
    chain = value_chain(text) if "(" in text else text  # `make(x)` passes what `make()` returns
    value = r.types.value(chain, qual, call.block if call is not None else "") if chain else ("unknown",)
    if value[0] == "unknown" and call is not None and qual and text.isidentifier():
        value = _before_binding(r, text, qual, call)
    if value[0] not in ("sym", "method"):
        return ()
    ids = value[1]
    return ids if all(r.table.symbols[i].kind in _VALUE_KINDS for i in ids) else ()


def _before_binding(r: Resolver, name: str, qual: str, call: CallRef) -> tuple:
    """A definition nested in the calling function that the call reads before the function
    binds its name again (`Validator = validates(v)(Validator)` after `class Validator`)."""
    defined = f"{r.ext.path}#{qual}.{name}"
    sym = r.table.symbols.get(defined)
    binds = r.table.bindings(call.caller, name)
    if sym is None or not binds or any(b.line < call.line or b.block for b in binds) or sym.start_line >= call.line:
        return ("unknown",)
    return ("sym", (defined,))
