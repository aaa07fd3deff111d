"""What an expression stands for: conservative type inference over the extraction's bindings.

An expression is a chain as the extractor keeps it (``x``, ``mod.f``, ``self.a.b()``,
``Foo().run()``: names, member accesses and calls with the arguments dropped). Evaluated in
a scope of a file, it becomes a *value*:

  ("inst", type_ids)      an instance of a workspace type
  ("this", type_id)       the receiver of a method of that type (``self``): a method
                          returning it returns the instance it is called on
  ("method", ids, types)  methods looked up on an instance of ``types``
  ("iter", value)         a container whose elements are ``value`` (``List[Foo]``)
  ("map", value)          a mapping whose values are ``value`` (``Map<K, Foo>``)
  ("fields", entries)     an object of a type written out (``{ subs: Subscription }``):
                          (name, value) of its properties
  ("items", entries)      a literal container (``[f, g]``, ``{"k": f}``) whose contents are
                          not changed in its file: (key, value) pairs, keys as in chains
  ("sym", ids)            workspace definitions themselves (a function, a class, a variable)
  ("mod", files)          a workspace module
  ("ext", module, name)   outside the workspace (an external type's instance reads its members as the type's)
  BUILTIN                 a value of a builtin type: its members are the language's
  ANONYMOUS               a function no symbol stands for (a lambda): calls nothing in the graph
  ("missing", ext)        a member a known type does not have; ``ext`` is the external
                          entity of a base that may provide it (None: nowhere)
  UNKNOWN                 anything not proven

A name is what every binding of it says (``Binding``), and only when they all agree: a
declared type wins over values; a binding to something unknown (a loop, an unannotated
parameter, tuple unpacking) leaves the name unknown. A function's result is its declared
type, else what all its ``return`` expressions agree on. Fields are the bindings of the
name in the type and its workspace bases. Answers that other files may ask for (a function's
result, a field, a module-level variable) are cached in the table's ``RecursiveCache``, which
also ends cycles (``x = x.next()``); the others per resolver.
"""

from __future__ import annotations

import re
import weakref
from functools import lru_cache
from typing import TYPE_CHECKING

from indexers.bindings import ANONYMOUS as ANONYMOUS_TEXT
from indexers.bindings import (ALTERNATIVES, CALLBACK, CAST, GIVEN, DECORATED, DEFINED, EACH, ELEMENT, EXCLUDED,
                               FACTORY_ARGUMENTS, RESULT, TYPED_ARRAY, Binding)
from indexers.text import NAME, SLICE, literal_end, literal_items
from indexers.resolve.contextual import given, member_passes, returned_parameter
from indexers.resolve.overloads import identity_value, overload_result
from indexers.resolve.receivers import receiver_value
from indexers.resolve.type_text import closing, parse_type, split_top, type_arguments, union_parts
from indexers.resolve.fixtures import fixture_value
from indexers.resolve.common import (  # noqa: F401  (chain_of, in_block: read from here too)
    MAX_CANDIDATES, SPLIT, TYPE_KIND_NAMES, TYPE_OR_ALIAS, VARIABLE_KINDS, Entity, Reason, base_qual, built_by_default,
    chain_of, defined_before, defined_in, holds_function, in_block, innermost_block, mapping_step, reading_block,
    keyed_by_position, receiver_typed, type_members, type_parameter_bound, UNKNOWN, BUILTIN, ANONYMOUS,
)
from indexers.resolve.items import assigned_item, literal_member

if TYPE_CHECKING:
    from indexers.resolve.resolver import Resolver

MAX_DEPTH = 24
STEPS_KEPT = 1 << 16  # chains whose steps are kept parsed, the last ones read
_FUNCTION_KINDS = frozenset({"function", "method"})
_GENERIC_KINDS = frozenset({*TYPE_KIND_NAMES, "function"})
# Types whose values have members: a type alias too (Go's `type Params []Param` has methods);
# what an alias does not define itself is not known (its aliased type's members are not kept).
_INSTANCE_KINDS = TYPE_OR_ALIAS
# A chain: a head name, then ".name" members, "()" calls and "[]" elements.
_STEP = re.compile(r"\(\)|\[(?:[is]:[\w.-]*|\*)?\]|(?:\.|::|->)(#?[A-Za-z_$][\w$]*|\((?:\d+|[A-Za-z_$][\w$]*)\.(?:\d+|=|[A-Za-z_$][\w$]*)\))")
class Types:
    """Values of expressions in one file; answers other files may share live in the table."""

    def __init__(self, resolver: Resolver):
        # Weak: a resolver and its types would otherwise form a cycle per file, left for the
        # cyclic collector, which resolution keeps paused (`paused_gc`).
        self.r = weakref.proxy(resolver)
        self.table = resolver.table
        self.spec = resolver.spec
        self.entering = {m for m in (self.spec.context_enter, self.spec.context_enter_async) if m}
        self.memo: dict[tuple[str, str], tuple] = {}
        self.dotted_heads: frozenset[str] | None = None  # first names of the dotted names imports bind
        self.binders: dict[tuple[str, str, str], tuple[str, str | None] | None] = {}  # `local`'s scopes
        self.depth = 0

    # -- expressions ---------------------------------------------------------------------

    def value(self, text: str, qual: str, block: str = "") -> tuple:
        """The value of a chain written in the scope ``qual`` of this file, in its ``block``."""
        found = self.raw(text, qual, block)
        if found[0] == "this":
            return ("inst", (found[1],))
        return found

    def raw(self, text: str, qual: str, block: str = "") -> tuple:
        key = (text, qual, block)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = self._value(text, qual, block)
        return found

    def _value(self, text: str, qual: str, block: str) -> tuple:
        if text == ANONYMOUS_TEXT:
            return ANONYMOUS
        if text[:1] == DEFINED:
            return ("sym", (text[1:],)) if text[1:] in self.table.symbols else UNKNOWN
        if text[:1] == "{":  # a literal, maybe read on (`{i:0=A,i:1=B}[]`: one of its entries)
            pos = literal_end(text)
            if not pos or pos == len(text):
                return self.items(text, qual)
            return self.follow(self.items(text[:pos], qual), self._steps(text, pos))
        if text[:1] == TYPED_ARRAY:  # `[new Subject()]`: a container of what its elements are, maybe read on
            pos = closing(text) + 1
            element = self.raw(text[1:pos - 1], qual, block) if pos else UNKNOWN
            return self.follow(("iter", element) if element[0] not in ("unknown", "missing") else UNKNOWN, self._steps(text, pos))
        if text[:1] == ALTERNATIVES:  # `a if c else b`: known when every branch agrees
            values = {self.read(v) if v[0] == "method" else v  # a property read: its result
                      for v in (self.raw(alt, qual, block) for alt in text[1:].split("|"))}
            found = values.pop()
            for value in values:  # or instances of a class and of subclasses of it
                found = self._joined(found, value) or UNKNOWN
            return found
        if text[:1] == CAST:  # `(x as Foo).m`: an instance of the type written
            pos = closing(text) + 1
            if not pos:
                return UNKNOWN
            cur, used = self.declared(text[1:pos - 1], qual), 0
            steps = self._steps(text, pos)
        else:
            split = self.split_chain(text)
            if split is None:
                return UNKNOWN
            steps = split[1]
            cur, used = self.head(split[0], steps, qual, block)
            if not used and steps and steps[0] and steps[0][1:3] in ("s:", "i:"):
                cur, used = assigned_item(self, split[0], steps[0], qual, block) or (cur, used)
        return self.follow(cur, steps[used:])

    @staticmethod
    @lru_cache(maxsize=STEPS_KEPT)
    def split_chain(text: str) -> tuple[str, list[str | None]] | None:
        """A chain's head name and its steps (``_steps``); None when it has no head name.
        Kept per text like the steps: a file asks for the same chains in scope after scope."""
        head = NAME.match(text)
        return None if head is None else (head.group(0), Types._steps(text, head.end()))

    def follow(self, cur: tuple, rest: list[str | None]) -> tuple:
        """The value the chain's ``rest`` of steps reaches from the value ``cur``."""
        skip = False
        for i, step in enumerate(rest):
            if skip:  # the call of a container method read with its name
                skip = False
                continue
            if cur is BUILTIN:
                # What a builtin passes to a function it is given is not a builtin.
                return UNKNOWN if CALLBACK.fullmatch(rest[-1] or "") else BUILTIN
            if cur[0] == "unknown" or cur[0] == "missing":
                return UNKNOWN
            if step == self.spec.await_method and rest[i + 1:i + 2] == [None]:
                cur, skip = self.awaited(cur), True
                continue
            if cur[0] == "iter" and step in self.entering and rest[i + 1:i + 2] == [None]:
                cur, skip = cur[1], True  # `with f() as x` of a generator made a context manager: what it yields
                continue
            if cur[0] == "map" and rest[i + 1:i + 2] == [None] and (viewed := mapping_step(self.spec, cur, step)):
                cur, skip = viewed, True  # `m.get(k)`: a value of the mapping; `m.values()`, `m.items()`
                continue
            if cur[0] == "iter" and step and step[0] != "[":
                if step in self.spec.element_callbacks and rest[i + 1:] == ["(0.0)"]:
                    return cur[1]  # `xs.map((x) => ...)`: x is an element
                called = rest[i + 1:i + 2] == [None]
                if called and step in self.spec.element_methods:  # `xs.shift()`: an element
                    cur, skip = cur[1], True
                    continue
                if called and step in self.spec.container_copies:  # `xs.slice()`: the same elements
                    skip = True
                    continue
            if step is None:
                cur = self.call(cur)
            elif step[0] == "[":
                cur = self.element(cur, step)
            else:
                cur = self.attribute(cur, step)
        return cur

    @staticmethod
    @lru_cache(maxsize=STEPS_KEPT)
    def _steps(text: str, pos: int) -> list[str | None]:
        """The steps of a chain after its head: None for a call, "[...]" for an element.
        Shared by every reading of the text (the same chains are written in many functions):
        not to be changed."""
        return [m.group(1) or (m.group(0) if m.group(0)[0] == "[" else None) for m in _STEP.finditer(text, pos)]

    def head(self, name: str, steps: list, qual: str, block: str = "") -> tuple[tuple, int]:
        """The value of the chain's first name, or of a longer dotted prefix bound by an
        import (``import a.b`` binds "a.b"); with the number of steps it took."""
        r = self.r
        if name in self.spec.self_names and (this := receiver_value(self, name, steps, qual)) is not None:
            return this
        local = self.local(name, qual, block)
        if local is not None:
            return local, 0
        if steps and steps[0] is None and self.spec.super_names and f"{name}()" in self.spec.super_names:
            tid = r.enclosing_type(qual) if qual else None
            return (("super", tid) if tid is not None else UNKNOWN), 1
        names = r.context(r.ext.path).names
        if self.dotted_heads is None:
            self.dotted_heads = frozenset(n.partition(".")[0] for n in names if "." in n)
        dotted = name
        best = None
        for i, step in enumerate(steps if name in self.dotted_heads else ()):
            if step is None or step[0] == "[":
                break
            dotted = f"{dotted}.{step}"
            if dotted in names:
                best = (dotted, i + 1)
        if best is not None:
            # The same import in two functions binds it twice, to one module.
            ents = list(dict.fromkeys(e for e in (r.realize(b) for b in names[best[0]]) if e is not None))
            return (self.entity(ents[0]) if len(ents) == 1 else UNKNOWN), best[1]
        found = r.lookup(name, qual)
        if found is None:
            if self.table.bindings(r.ext.path, name):  # a module-level name no definition has (`a, b = f, g`)
                return self.bound(r.ext.path, name), 0
            builtin = name in self.spec.builtins and name not in self.spec.typed_builtins
            return (BUILTIN if builtin else UNKNOWN), 0
        ent, reason, conf = found
        if conf < 1.0 or reason == Reason.CANDIDATE or ent[0] == "unresolved":
            return UNKNOWN, 0
        return self.entity(ent), 0

    def local(self, name: str, qual: str, block: str = "") -> tuple | None:
        """The value of a name bound in a function around ``qual`` (None: not bound there):
        in ``qual`` itself, as bound in the innermost of the blocks around ``block`` that binds
        it; in the functions around, as all their bindings of it agree."""
        where = self.binder(name, qual, block)
        return None if where is None else self.bound(where[0], name, where[1])

    def binder(self, name: str, qual: str, block: str = "") -> tuple[str, str | None] | None:
        """The scope and block whose bindings of ``name`` are its value at ``qual`` in
        ``block``; None when no function around binds it."""
        key = (name, qual, block)
        where = self.binders.get(key, self.binders)
        if where is self.binders:
            where = self.binders[key] = self._binder(name, qual, block)
        return where

    def _binder(self, name: str, qual: str, block: str) -> tuple[str, str | None] | None:
        """The scope and block whose bindings of ``name`` are its value at ``qual`` in
        ``block`` (``local``), or None: a question of this file's bindings alone, asked once."""
        path = self.r.ext.path
        around: str | None = block
        for prefix, is_scope, owner_kind, _ in self.r.scope_chain(qual):
            if not prefix and around is None:  # the closures around the outermost definition
                around = self._around(qual.partition(".")[0])
            if not prefix and around:  # outside any function: a closure's own names
                seen = innermost_block(self.table.bindings(path, name), around)
                return (path, seen) if seen else None
            if not prefix or owner_kind not in _FUNCTION_KINDS:
                continue
            scope = f"{path}#{prefix}"
            binds = self.table.bindings(scope, name)
            seen = innermost_block(binds, around) if binds and around is not None else None
            if seen is not None or (binds and around is None):
                return scope, seen
            around = None
        return None

    def _around(self, top: str) -> str:
        """The blocks around the top-level definition ``top`` of this file, as its binding
        to itself says (a function defined in a closure: ``bindings.DEFINED``)."""
        path = self.r.ext.path
        defined = f"{DEFINED}{path}#{top}"
        name = base_qual(top)
        return next((b.block for b in self.table.bindings(path, name) if b.value == defined), "")

    def entity(self, ent: Entity) -> tuple:
        """A resolved entity as a value: a module-level variable is what it is bound to."""
        if ent[0] == "sym":
            syms = [self.table.symbols.get(i) for i in ent[1]]
            if syms and all(s is not None and s.kind in VARIABLE_KINDS for s in syms):
                if len(syms) == 1 and not self.table.bindings(syms[0].file, syms[0].name):
                    # Declared by an import (`var Suite = require('./suite')`): what it imports.
                    imported = self.r.context(syms[0].file).names.get(syms[0].name)
                    found = self.r.realize(imported[0]) if imported and len(imported) == 1 else None
                    return self.entity(found) if found is not None and found != ent else UNKNOWN
                # Alternatives (files selected by build tags) count when they all agree.
                return self.one_of({self.bound(s.file, s.name) for s in syms})
        return ent

    def defined_anonymous(self, sym) -> bool:
        """Is the variable defined by a function without a symbol (``x = lambda: ...``)?
        Whatever else binds the name later, the definition itself is not what is called."""
        return any(b.value == ANONYMOUS_TEXT and b.line == sym.start_line for b in self.table.bindings(sym.file, sym.name))

    def one_of(self, values: set[tuple]) -> tuple:
        """What alternative declarations (files selected by build tags) say together: one
        value, or an instance of any of the types they give (each alternative's copy of one
        type, or types that differ between the variants): their members are candidates
        unless every alternative resolves to the same one."""
        if len(values) == 1:
            return values.pop()
        if all(v[0] == "sym" for v in values) and all(
                getattr(self.table.symbols.get(i), "kind", "") in TYPE_KIND_NAMES for v in values for i in v[1]):
            return ("sym", tuple(sorted({i for v in values for i in v[1]})))  # one of several classes
        if not all(v[0] == "inst" for v in values):
            return UNKNOWN
        return ("inst", tuple(sorted({i for v in values for i in v[1]})))

    # -- steps ---------------------------------------------------------------------------

    def read(self, cur: tuple) -> tuple:
        """A method as read, not called: a property's (``@property``) is its getter's result
        (a setter redefines the getter under its name: its getter is the one before it)."""
        role = self.table.property_role
        roles = [role(i) for i in cur[1]]
        if None in roles:
            return cur
        getters = [i for i, r in zip(cur[1], roles) if r == "get"]
        if not getters:
            getters = [i for i in dict.fromkeys(map(base_qual, cur[1])) if role(i) == "get"]
        return self.call(("method", tuple(getters), cur[2])) if getters else UNKNOWN

    def attribute(self, cur: tuple, name: str) -> tuple:
        if cur[0] == "method":
            cur = self.read(cur)
        kind = cur[0]
        r = self.r
        if CALLBACK.fullmatch(name):
            return self.passed(cur, name)
        if name == self.spec.class_of[1]:  # `x.__class__`: an instance's class; a class's is its metaclass
            return ("sym", cur[1]) if kind == "inst" else ("sym", (cur[1],)) if kind == "this" else UNKNOWN
        if kind == "this" and self.spec.fields_overridable:
            below = self.bound_below(cur[1], name)
            if below:  # `self.model` in a base whose subclasses set `model = Other`: any of them
                return self.one_of({self.member((t,), name, instance=True, skip_self=False) for t in (cur[1], *below)})
        if kind == "inst" or kind == "super" or kind == "this":
            return self.member(cur[1] if kind == "inst" else (cur[1],), name, instance=True, skip_self=kind == "super")
        if kind == "items" and self.spec.literal_keys:  # `z = {..._schemas, iso}`: `z.iso`, `z.any`
            return literal_member(self, cur[1], name)
        if kind == "sym" and name == self.spec.prototype_member and all(  # `Foo.prototype`: what Foo's instances share
                i in self.table.symbols and (self.table.symbols[i].kind in _INSTANCE_KINDS or r.constructs(i)) for i in cur[1]):
            return ("inst", cur[1])
        if kind == "sym":
            syms = [self.table.symbols.get(i) for i in cur[1]]
            if all(s is not None and s.kind in _INSTANCE_KINDS for s in syms):  # one class, or one of several
                return self.member(cur[1], name, instance=False, skip_self=False)
            if all(s is not None and s.kind == "module" for s in syms):
                m = r.member(cur, name)
                return self.entity(m) if m is not None else UNKNOWN
            if len(syms) == 1 and syms[0] is not None and syms[0].kind in _FUNCTION_KINDS:
                if (made := self.decorated(cur[1][0]))[0] == "inst":
                    return self.member(made[1], name, instance=True, skip_self=False)  # `@actor def f`: `f.send`
                kept = r.members_of(cur[1][0]).get(name) if self.spec.new_operator else None
                if kept:
                    return ("sym", tuple(kept))  # `Base.color = function`: `Base.color()`
                if self.spec.new_operator and self._default_export(syms[0]):  # `module.exports = Base`, `exports.color = ...`
                    found = r.module_member((syms[0].file,), name)
                    return found if found is not None and found[0] == "sym" else UNKNOWN
                return UNKNOWN
            return UNKNOWN
        if kind == "mod":
            m = r.member(cur, name)
            return self.entity(m) if m is not None else ("missing", None)
        if kind == "ext":
            return r.member(cur, name)
        if kind == "iter" or kind == "map":  # a declared container's own methods (`items.push()`) are the language's
            return BUILTIN
        if kind == "fields":
            return next((v for k, v in cur[1] if k == name), UNKNOWN)
        return UNKNOWN

    def below(self, type_id: str, name: str) -> tuple[str, ...]:
        """``self.name()`` in a type that defines no ``name`` (nor do its bases): the methods
        of that name its subclasses define, one of which is called when ``self`` is theirs (a
        class deriving from it and another base may take the other base's: not all of them)."""
        r, symbols = self.r, self.table.symbols
        ids = tuple(m for m in self.table.by_name(r.system, "method", name)
                    if (owner := symbols[m].parent) != type_id and owner in symbols and type_id in r.linearization(owner))
        return ids if len(ids) <= MAX_CANDIDATES else ()

    def bound_below(self, type_id: str, name: str) -> tuple[str, ...]:
        """The subclasses of the type that bind the field ``name`` again (``self.name`` may be theirs)."""
        key = ("bound-below", type_id, name)
        found = self.table.recursive.values.get(key)
        if found is None:
            found = self.table.recursive.values[key] = tuple(
                t for t in self.table.types_binding(name) if t != type_id and type_id in self.r.linearization(t))
        return found

    def passed(self, cur: tuple, step: str) -> tuple:
        """What a function (or a class's constructor) passes to a function it is given, as
        its declared parameter types say (``CALLBACK``); every declaration must agree."""
        if cur[0] == "inst":  # `{ effect: (action, api) => ... }` of a declared type
            return member_passes(self, cur[1], *step[1:-1].partition(".")[::2])
        if cur[0] == "method":
            ids = cur[1]
        elif cur[0] == "sym":
            syms = [self.table.symbols.get(i) for i in cur[1]]
            if any(s is None for s in syms):
                return UNKNOWN
            if len(syms) == 1 and syms[0].kind in TYPE_KIND_NAMES and self.spec.constructor_name:
                found = self.member(cur[1], self.spec.constructor_name, instance=False, skip_self=False)
                ids = found[1] if found[0] == "sym" else ()
            else:  # functions, or aliases of function types (`type Handler = (api: Api) => void`)
                ids = cur[1] if all(s.kind in _FUNCTION_KINDS or s.kind == "type_alias" for s in syms) else ()
        else:
            return UNKNOWN
        if step.endswith(f".{GIVEN})"):  # what the function is given there: its parameter's declared type
            return given(self, ids, step[1:-1].partition(".")[0])
        values = {self.bound(i, step, None) for i in ids}
        return values.pop() if len(values) == 1 else UNKNOWN

    def call(self, cur: tuple, positional: int | None = None, keywords: frozenset[str] | None = None) -> tuple:
        """What calling ``cur`` gives; ``positional``: with that many positional arguments,
        when known, and these ``keywords`` (to choose among overloads)."""
        if cur[0] == "returns":  # a value declared `Callable[[A], R]`
            return cur[1]
        if cur[0] == "method":
            found = self.call(("sym", cur[1]), None if positional is None else positional + 1)  # and the receiver
            return ("inst", cur[2]) if found[0] == "this" else found
        if cur[0] == "inst" and self.spec.call_method:  # an object called: its `__call__`
            found = self.member(cur[1], self.spec.call_method, instance=True, skip_self=False)
            return self.call(found, positional) if found[0] == "method" else UNKNOWN
        if cur[0] != "sym":
            return UNKNOWN
        syms = [self.table.symbols.get(i) for i in cur[1]]
        if any(s is None for s in syms):
            return UNKNOWN
        if all(s.kind in _INSTANCE_KINDS for s in syms):  # an alias converts to what it names
            under = self.result(syms[0].id) if len(syms) == 1 and syms[0].kind == "type_alias" else UNKNOWN
            return under if under[0] == "inst" or under is BUILTIN else ("inst", cur[1])
        if not all(s.kind in _FUNCTION_KINDS for s in syms):
            return UNKNOWN
        results = {self.result(s.id) for s in syms}  # defined in several builds, results differing: the default's
        if len(results) > 1:
            results = {self.result(i) for i in built_by_default(self.table.files, self.table.symbols, cur[1])}
        found = results.pop() if len(results) == 1 else UNKNOWN
        if found[0] == "unknown" and len(syms) == 1:
            if self.r.constructs(syms[0].id):
                return ("inst", cur[1])  # `new Router()` of a constructor function with `Router.prototype.use = ...`
            found = overload_result(self, syms[0].id, positional, keywords) or found  # `@overload` signatures before it
        return ("inst", (found[1],)) if found[0] == "this" and cur[0] == "sym" and syms[0].kind == "function" else found

    def awaited(self, cur: tuple) -> tuple:
        """What `await` gives of a value: a coroutine's result is read as the function's (the
        value itself), an object whose type defines the language's ``await_method`` is not
        known (`await session.get()` of an object that is also a context manager)."""
        if cur[0] == "inst" and self.member(cur[1], self.spec.await_method, True, False)[0] == "method":
            return UNKNOWN
        return cur

    def items(self, text: str, qual: str) -> tuple:  # a literal container: its entries by key, evaluated here
        return ("items", tuple((key, self.value(value, qual)) for key, value in literal_items(text)))

    def element(self, cur: tuple, step: str) -> tuple:
        """An element of ``cur`` by a literal key (``[i:0]``, ``[s:k]``), by any (``[]``), a loop's (``[*]``)."""
        if cur[0] == "method":
            cur = self.read(cur)
        if step == SLICE:  # a declared sequence's slice is one; a literal's entries move
            return cur if cur[0] == "iter" or cur == BUILTIN else UNKNOWN
        if step == EACH and cur[0] == "items" and not keyed_by_position(cur[1]):
            return UNKNOWN  # a loop over a mapping's literal binds its keys
        step = ELEMENT if step == EACH else step
        if cur[0] == "items":  # by its key; by any, what every entry agrees on
            key, values = step[1:-1], {v for _, v in cur[1]}
            return next((v for k, v in cur[1] if k == key), UNKNOWN) if key else values.pop() if len(values) == 1 else UNKNOWN
        if step == ELEMENT and cur[0] == "sym" and all(
                getattr(self.table.symbols.get(i), "kind", "") in _GENERIC_KINDS for i in cur[1]):
            return cur  # `Box[int]`, `New[T]`: a generic type or function given type arguments
        if step != ELEMENT:
            # A declared sequence has one element type at every position (a tuple's are
            # `items`); a declared container's by a name key is no element (but in Go).
            keyed = cur[0] == "map" or cur[0] == "iter" and (step.startswith("[i:") or self.spec.keyed_elements)
            return cur[1] if keyed else UNKNOWN  # `m["k"]`: a value of a mapping
        if cur[0] == "inst" and len(cur[1]) == 1 and getattr(self.table.symbols.get(cur[1][0]), "kind", "") == "type_alias":
            under = self.result(cur[1][0])  # `type Hooks []Hook`: what the alias stands for
            cur = under if under[0] == "iter" else cur
        return cur[1] if cur[0] == "iter" else self.iterated(cur)[-1]

    def iterated(self, cur: tuple) -> list[tuple]:
        """What a loop over an instance calls, in order (the language's iteration methods,
        each a ``method`` value), then the element; [UNKNOWN] when the loop is not known."""
        methods = self.spec.iteration_methods
        if not methods or cur[0] != "inst":
            return [UNKNOWN]
        first = self.attribute(cur, methods[0])
        iterator = self.call(first) if first[0] == "method" else UNKNOWN
        then = self.attribute(iterator, methods[1]) if iterator[0] == "inst" else UNKNOWN
        if then[0] != "method":
            return [first, UNKNOWN] if first[0] == "method" else [UNKNOWN]
        return [first, then, self.call(then)]

    def member(self, type_ids: tuple, name: str, instance: bool, skip_self: bool) -> tuple:
        """A member of a type through its bases: methods and nested types as symbols,
        fields as the value they are bound to."""
        if len(type_ids) != 1:
            return self.alternatives(type_ids, name, instance, skip_self)
        tid = type_ids[0]
        r = self.r
        if instance and name == self.spec.class_of[1] and not r.members_of(tid).get(name):
            return ("sym", type_ids)  # `self.__class__()`: the instance's class, as `self.m()` is its method
        order = r.linearization(tid)
        if skip_self:
            order = order[1:]
        for t in order:
            ids = r.members_of(t).get(name)
            if ids:
                if (instance or self.spec.class_methods) and all(
                        self.table.symbols[i].kind in _FUNCTION_KINDS for i in ids):  # bound to the receiver
                    return ("method", tuple(ids), type_ids)
                return ("sym", tuple(ids))
            binds = self.table.bindings(t, name)
            if binds:
                found = self.field(t, name)
                return ANONYMOUS if found[0] == "unknown" and holds_function(self.spec.function_type, binds) else found
        for t in order:
            members = r.members_of(t)
            if any(m in members for m in self.spec.dynamic_members):
                # What `__getattr__` gives an instance, when it says (not `__getattribute__`).
                fallback = self.spec.attribute_fallback
                return self.call(("method", tuple(members[fallback]), type_ids)) \
                    if instance and fallback in members and name != fallback else UNKNOWN
        return self.missing(order, name)

    def alternatives(self, type_ids: tuple, name: str, instance: bool, skip_self: bool) -> tuple:
        """A member of one of several alternative types (one type declared in files selected
        by build tags): their methods together, or the value they all agree on."""
        found = [self.member((t,), name, instance, skip_self) for t in type_ids]
        if all(f[0] == "method" for f in found):
            return ("method", tuple(dict.fromkeys(i for f in found for i in f[1])), type_ids)
        values = set(found)
        return values.pop() if len(values) == 1 and found[0][0] != "missing" else UNKNOWN

    def missing(self, order: list[str], name: str) -> tuple:
        """A member none of the workspace types has: in an external base, if one may have it."""
        if any(self.table.symbols[t].kind == "type_alias" for t in order):
            return UNKNOWN
        for t in order:
            for base in self.r.open_bases(t):
                if base is None:
                    return UNKNOWN  # a base we cannot see: it may have anything
                return ("missing", self.r.member(base, name))
        return ("missing", None)

    # -- bindings (cached table-wide) ----------------------------------------------------

    def bound(self, scope: str, name: str, block: str | None = "") -> tuple:
        """What every binding of ``name`` in ``scope`` (a function, a file) directly in
        ``block`` agrees on; None: in any block."""
        key = ("bound", scope, name, block)
        found = self.table.recursive.values.get(key)  # `_cached`'s first look, without its closure
        if found is not None:
            return found
        return self._cached(key, lambda: self._agree(in_block(self.table.bindings(scope, name), block), scope, key,
                                                      parameter=name))

    def field(self, type_id: str, name: str) -> tuple:
        key = ("bound", type_id, name)
        found = self.table.recursive.values.get(key)
        if found is not None:
            return found
        return self._cached(key, lambda: self._agree(self.table.bindings(type_id, name), type_id))

    def _default_export(self, sym) -> bool:
        """Whether a function is what its module exports (`module.exports = Base`): its
        properties are then the module's exports (`exports.color = ...` is `Base.color`)."""
        ext = self.table.files.get(sym.file)
        return ext is not None and any(i.export and i.alias == "default" and i.name == sym.name and not i.module
                                       for i in ext.imports)

    def result(self, func_id: str) -> tuple:
        return self.bound(func_id, RESULT)  # a `return` inside a closure is the closure's

    def decorated(self, func_id: str) -> tuple:
        """What a function's outermost decorator makes of it (``DECORATED``): the decorator
        called with the function, its one positional argument (which of its overloads)."""
        made = self.bound(func_id, DECORATED, None)
        binds = self.table.bindings(func_id, DECORATED) if made[0] == "unknown" else ()
        if len(binds) != 1 or not (binds[0].value or "").endswith("()"):
            return made
        return self._cached(("decorated", func_id), lambda: self.call(self._decorator(func_id, binds[0]), 1))

    def _decorator(self, func_id: str, bind: Binding) -> tuple:
        """A function's outermost decorator: a factory's call by the arguments it passes
        (``@app.task(retries=3)``: no positional one), when it says."""
        decorator = bind.value[:-2]
        passed = self.table.bindings(func_id, FACTORY_ARGUMENTS)
        if len(passed) == 1 and decorator.endswith("()"):  # ("2", or "0:chain,name" with the keywords passed)
            count, _, names = passed[0].value.partition(":")
            maker = self._in_file_of(func_id, "value", decorator[:-2], bind.block)
            return self.call(maker, int(count), frozenset(names.split(",")) if names else frozenset())
        return self._in_file_of(func_id, "value", decorator, bind.block)

    def _cached(self, key: tuple, compute) -> tuple:
        recursive = self.table.recursive
        found = recursive.values.get(key)
        if found is not None:
            return found
        if self.depth >= MAX_DEPTH:
            return UNKNOWN
        self.depth += 1
        try:
            return recursive.get(key, UNKNOWN, compute)
        finally:
            self.depth -= 1

    def _agree(self, binds: list[Binding], scope: str, key: tuple | None = None, parameter: str = "") -> tuple:
        if not binds:
            return UNKNOWN
        declared = [b for b in binds if b.type is not None]
        if not declared or self.spec.bindings_declare:
            declared = None
            if any(b.value is None and b.type is None for b in binds):
                # Bound to something unknown (unless a parameter a test fixture gives, or its callers, returned).
                found = (fixture_value(self, scope, parameter) or returned_parameter(self, scope, parameter)
                         if parameter and len(binds) == 1 else None)
                return UNKNOWN if found is None or found[0] in ("unknown", "missing") else found
            if key is not None and len(binds) > 1:
                own = [b for b in binds if b.value and (Types.split_chain(b.value) or ("",))[0] == b.name]
                if own and len(own) < len(binds):
                    return self._agree_with_itself(binds, own, scope, key)
        value = None
        # One unknown (or missing) value, or two that differ, leave the name unknown: stop there.
        for b in declared or binds:
            if b.type is not None and b.type[:1] == EXCLUDED:
                found = self._excluded(b, scope)
            elif b.type is None:
                found = self._in_file_of(b.context or scope, "value", b.value, reading_block(b, binds))
                if found[0] == "unknown" and b.context is None:  # `alias = wrap("alias", method)`, wrap an identity
                    found = identity_value(self, b, scope) or found
                found = found if b.context else defined_before(found, b.line, scope, self.table.symbols)
            else:
                found = self._in_file_of(b.context or scope, "type", b.type, "" if declared is not None else b.block)
                if b.name == RESULT and defined_in(found, scope):  # `-> T` never names a class of the body
                    path, _, qual = scope.partition("#")
                    found = self._in_file_of(f"{path}#{qual.rpartition('.')[0]}", "type", b.type)
            if found[0] == "unknown" or found[0] == "missing":
                return UNKNOWN
            if value is not None and found != value and (found := self._joined(value, found)) is None:
                return UNKNOWN
            value = found
        if value[0] == "items" and binds[0].name in self.table.changed(scope.partition("#")[0]):
            return UNKNOWN
        return value

    def _joined(self, one: tuple, other: tuple) -> tuple | None:
        """Instances of a class and of subclasses of it (``_Local() if threads else _State()``,
        ``_Local`` a ``_State``): an instance of one of them, that class first (a method none
        of them overrides is the one called); else None."""
        if one[0] != "inst" or other[0] != "inst":
            return None
        ids = tuple(dict.fromkeys(one[1] + other[1]))
        lines = [self.r.linearization(t) for t in ids]
        base = next((t for t in ids if all(t in line for line in lines)), None)
        return None if base is None else ("inst", (base, *sorted(t for t in ids if t != base)))

    def _excluded(self, b: Binding, scope: str) -> tuple:
        """A name where type tests failed (`EXCLUDED`; the tests around too): the type its
        declaration around says (``x: A | B | None``) without the members a test named
        (``A``, by its text or its known type); else what the name is around the block."""
        path, _, qual = scope.partition("#")
        if path != self.r.ext.path:
            return self.r.other(path).types._excluded(b, scope)
        named, cur = b.type[1:].split(" | "), b
        while True:
            where = self.binder(b.name, qual, cur.block.rpartition("/")[0])
            outer = in_block(self.table.bindings(where[0], b.name), where[1]) if where else ()
            if len(outer) != 1 or (outer[0].type or "")[:1] != EXCLUDED or len(outer[0].block) >= len(cur.block):
                break  # (a test around, in a block around: never the same binding again)
            cur = outer[0]
            named += cur.type[1:].split(" | ")
        texts = {o.type for o in outer}
        if len(texts) != 1 or None in texts:
            return self.raw(b.name, qual, b.block.rpartition("/")[0])
        written = texts.pop()
        known = {v for v in (self.declared(t, qual) for t in named) if v is not UNKNOWN}
        kept = [t for t in union_parts(written) or [written]
                if t.strip() not in named and self.declared(t, qual) not in known]
        return self.declared(" | ".join(kept), qual) if kept else UNKNOWN

    def _agree_with_itself(self, binds: list[Binding], own: list[Binding], scope: str, key: tuple) -> tuple:
        """A name some bindings rebind from itself (`node = node.child()` in a loop): what the
        others agree on, when each of those, read with the name as that, gives it again."""
        value = self._agree([b for b in binds if b not in own], scope)
        active = self.table.recursive.active.get(key)
        if value == UNKNOWN or active is None:
            return UNKNOWN
        # Read meanwhile as the provisional answer of this lookup (nothing read from it is kept).
        self.table.recursive.active[key] = (active[0], value)
        for b in own:
            if self._in_file_of(b.context or scope, "value", b.value, b.block) != value:
                return UNKNOWN
        return value

    def _in_file_of(self, scope: str, what: str, text: str, block: str = "") -> tuple:
        path, _, qual = scope.partition("#")
        types = self if path == self.r.ext.path else self.r.other(path).types
        return types.raw(text, qual, block) if what == "value" else types.declared(text, qual)

    def declared(self, text: str, qual: str) -> tuple:
        """An instance of the type written ``text`` in the scope ``qual``; a container of
        them, or the class itself, for the language's container and class types."""
        if self.spec.result_lists and text[:1] == "(":  # Go's several results: a tuple of them
            return ("items", tuple((f"i:{k}", self.declared(t, qual)) for k, t in enumerate(split_top(text[1:-1], ","))))
        syntax = self.spec.container_syntax and self.spec.container_syntax.match(text.strip())
        if syntax:
            element = self.declared(syntax.group(1), qual)
            return ("iter", element) if element is not UNKNOWN else UNKNOWN
        parts = union_parts(text) if "|" in text or "Union[" in text else ()
        parts = [p for p in parts if p.strip() not in self.spec.null_literals]
        if len(parts) > 1:  # `A | B`: an instance of one of them, or a builtin of any
            found = [self.declared(p, qual) for p in parts]
            if all(f is BUILTIN for f in found):
                return BUILTIN
            return ("inst", tuple(dict.fromkeys(t for f in found for t in f[1]))) \
                if all(f[0] == "inst" for f in found) else UNKNOWN
        queries = self.spec.type_queries
        # A type written after a value says what kind of value, not which: a class or function
        # named so is any of that type (`ctor: typeof Action` holds a subclass of Action).
        if queries and text.startswith(queries[0]):  # `typeof conn`: of the type conn's value is
            return _data(self.value(text[len(queries[0]):].strip(), qual))
        indexed = self.spec.indexed_access_type and self.spec.indexed_access_type.match(text.strip())
        if indexed:  # `Opts<T>['form']`: what an instance's property is declared to hold
            return _data(self.attribute(self.declared(indexed.group(1), qual), indexed.group(3)))
        found = parse_type(text, self.spec.null_literals)
        if found is None:
            return self.type_literal(text, qual)
        name, argument = found
        if argument is not None:
            generic = SPLIT.split(name)[-1]
            if generic in queries[1:]:  # `ReturnType<typeof make>`, `InstanceType<typeof C>`: what calling it gives
                return _data(self.call(self.value(argument[len(queries[0]):].strip(), qual))
                             if argument.startswith(queries[0]) else UNKNOWN)
            if generic in self.spec.tuple_types:
                parts = type_arguments(text, self.spec.null_literals)
                if len(parts) > 1 and parts[-1] != "...":  # `Tuple[A, B]`: an element per position
                    return ("items", tuple((f"i:{k}", self.declared(t, qual)) for k, t in enumerate(parts)))
            if generic in self.spec.container_types:
                element = self.declared(argument, qual)
                return ("iter", element) if element is not UNKNOWN else UNKNOWN
            if generic in self.spec.class_types:
                cls = self.declared(argument, qual)
                return ("sym", cls[1]) if cls[0] == "inst" else UNKNOWN
            if generic in self.spec.callable_types:  # a function giving what its last argument says
                parts = type_arguments(text, self.spec.null_literals)
                result = self.declared(parts[-1], qual) if len(parts) == 2 else UNKNOWN
                return UNKNOWN if result[0] in ("unknown", "missing") else ("returns", result)
            if generic in self.spec.mapping_types:
                values = type_arguments(text)
                return ("map", self.declared(values[-1], qual) if len(values) == 2 else UNKNOWN)
        if name in self.spec.builtins:
            return BUILTIN
        if self.spec.self_types and SPLIT.split(name)[-1] in self.spec.self_types:
            owner = self.r.enclosing_type(qual + ".?")  # `-> Self`: whatever the receiver is
            return ("this", owner) if owner is not None else UNKNOWN
        found = self.r.resolve_type(name, qual)
        if found is None or found[2] < 1.0 or found[1] == Reason.CANDIDATE:  # a type parameter: its constraint
            bound = type_parameter_bound(self.table.bindings, self.r.ext.path, qual, name)  # (`<A extends B<A>>`: once)
            return self._cached(("bound", self.r.ext.path, *bound), lambda: self.declared(*bound)) if bound else UNKNOWN
        ent, reason, conf = found
        if ent[0] == "sym" and all(self.table.symbols[i].kind in VARIABLE_KINDS for i in ent[1]):
            if receiver_typed(self.table.bindings, self.r.ext.path, qual, name, self.spec.self_names):
                owner = self.r.enclosing_type(qual)  # `def bind(self: T) -> T`: the receiver's type
                return ("this", owner) if owner is not None else UNKNOWN
            var = self.table.symbols[ent[1][0]]  # `T = TypeVar("T", bound=B)`, maybe imported: its bound
            if (bound := type_parameter_bound(self.table.bindings, var.file, "", var.name)) is not None:
                return self._in_file_of(var.file, "type", bound[0])
            ent = self.entity(ent)  # an alias (`Req = Base[Resp]`): the type it is bound to
        if ent[0] == "ext":
            # An external class has members of its own; a generic one or a typing construct
            # (`Union[A, B]`, `Any`, `Callable[...]`) says nothing about them.
            return UNKNOWN if argument is not None or ent[1] in self.spec.typing_modules else ent
        if ent[0] == "sym" and len(ent[1]) == 1 and self.table.symbols[ent[1][0]].kind == "type_alias":
            under = self.result(ent[1][0])  # `type AnyRouter = RouterCore<any>`: what the alias stands for
            if under[0] in ("inst", "items", "fields"):
                return under
        if ent[0] == "sym" and all(self.table.symbols[i].kind in _INSTANCE_KINDS or self.r.constructs(i) for i in ent[1]):
            return ("inst", ent[1])  # (a constructor function's, in JavaScript: `Foo.prototype[name] = function`)
        return UNKNOWN

    def type_literal(self, text: str, qual: str) -> tuple:
        """An object of a type written out (``{ buffer: T[]; subs: Subscription }``): each
        property as its declared type says; UNKNOWN for any other type text."""
        member = self.spec.type_literal_member
        text = text.strip().removeprefix(self.spec.type_literal_keyword).lstrip()  # Go's `struct { ... }`
        if member is None or text[:1] != "{" or text[-1:] != "}":
            return UNKNOWN
        entries = []
        for part in type_members(text[1:-1]):
            m = member.match(part)
            if m is None:
                continue  # a method, an index signature: not a property read here
            entries.append((m.group(1), self.declared(m.group(2), qual)))
        return ("fields", tuple(entries)) if entries else UNKNOWN


def _data(found: tuple) -> tuple:
    """A value a type names (`Opts['form']`, `typeof conn`): an instance or container of a
    type, or an object's members; a function or class it names is any of that type (unknown)."""
    return found if found[0] in ("inst", "iter", "map", "fields", "items") else UNKNOWN
