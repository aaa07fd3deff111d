"""One file's references resolved against the symbol table, in the order the package
docstring states: scopes, ``self``, imports, star imports, the same package, unique names."""

from __future__ import annotations

import posixpath
import re

from graphsvc import model
from graphsvc.model import external_symbol_id
from indexers.bindings import DEFINED
from indexers.extract import RECEIVER_EXPR, RECEIVER_NAME, RECEIVER_NONE, RECEIVER_SELF, RECEIVER_SUPER, CallRef, FileExtraction
from indexers.languages import LANGUAGES
from indexers.records import EdgeRecord
from indexers.resolve.common import (MAX_CANDIDATES, MAX_HIERARCHY, MAX_REEXPORT_HOPS, METHOD_NAME_CONFIDENCE, SPLIT,
    TYPE_KIND_NAMES, Entity, ImportContext, Prov, Reason, Rel, ResolveStats, base_qual, branch_alternatives,
    built_by_default, c3_merge, imported_in_bodies, imported_in_functions, merge_entities, VARIABLE_KINDS, record_rows)
from indexers.resolve.items import literal_methods
from indexers.resolve.parameters import parameter_values
from indexers.resolve.possible import (MAX_FIELD_VALUES, assigned_over, defined_above, held, held_classes, in_effect,
                                      order_unproven, possible_call, variant_only, written_here)
from indexers.resolve.table import SymbolTable, ids as ids_of
from indexers.resolve.types import ANONYMOUS, BUILTIN, UNKNOWN, Types, chain_of

_PLAIN = {m: m.value for enum in (model.Rel, model.Prov, model.Reason) for m in enum}
_LOCAL_REASONS = frozenset({Reason.SCOPE, Reason.SELF, Reason.SYNTAX})
_CALLEE_KINDS = frozenset({"function", "method"})
_HEAD = re.compile(r"[^.:>(\[-]*")
_SCOPE_KINDS = frozenset({"function", "method", "module"})  # definitions whose bodies are scopes of names


class Resolver:
    def __init__(self, ext: FileExtraction, table: SymbolTable, stats: ResolveStats):
        self.ext, self.table, self.stats = ext, table, stats
        self.spec = LANGUAGES[ext.lang]
        self.system = self.spec.module_system
        self.edges: dict[tuple[str, str, str], list] = {}  # (src, dst, type) -> [prov, conf, reason, line, count]
        self._chains: dict[str, list] = {}
        self.prefix = ext.path + "#"
        self.quals = table.quals_in(ext.path)
        self._nested: set[str] | None = None  # names defined below the top level
        self._redefined: frozenset[str] = frozenset()  # names of functions defined again below
        self._resolved: dict[tuple, object] = {}  # memo_key -> resolve_call's answer
        self.variant_targets: dict[tuple, frozenset[str]] = {}  # memo_key -> `variant_only` of its answer
        self._lookups: dict[tuple[str, str], tuple | None] = {}  # (name, scope) -> lookup's answer
        self._outside: dict[str, tuple | None] = {}  # name -> `_lookup_outside`'s answer
        self._enclosing: dict[str, str | None] = {}  # scope -> enclosing_type's answer
        # Calls left unresolved, in source order, as rows of CallRef's fields: most are only
        # counted (`unresolved_calls` writes out a few per caller).
        self.missed: list[tuple] = []
        self.reading_values = False  # while `references` reads values: no candidates are worked out
        self.types = Types(self)

    def other(self, path: str) -> Resolver:
        """The resolver of another file of the table, to evaluate what is written there."""
        if path == self.ext.path:
            return self
        found = self.table.resolvers.get(path)
        if found is None:
            found = self.table.resolvers[path] = Resolver(self.table.files[path], self.table, ResolveStats())
        return found

    # edges
    def edge(self, src: str, dst: str, rel: str, prov: str, conf: float, reason: str, line: int | None) -> None:
        """Add an edge; repeats of (src, dst, type) are counted and keep the best confidence."""
        key = (src, dst, rel)
        old = self.edges.get(key)
        if old is None:
            self.edges[key] = [prov, conf, reason, line, 1]
            return
        old[4] += 1
        if conf > old[1]:
            old[0], old[1], old[2] = prov, conf, reason

    def unresolved(self, row: tuple) -> None:
        """A call (a row of CallRef's fields) no target was found for."""
        self.stats.unresolved += 1
        self.missed.append(row)

    def records(self) -> list[EdgeRecord]:
        # Plain strings (not enum members) for the writer and pickling: the members' own values,
        # shared (`str(member)` made three strings per edge, a quarter of the memory on fs/).
        return [
            EdgeRecord(src, dst, _PLAIN.get(rel, rel), _PLAIN.get(prov, prov),
                       conf if conf == 1.0 else round(conf, 4), _PLAIN.get(reason, reason), line, n)
            for (src, dst, rel), (prov, conf, reason, line, n) in self.edges.items()
        ]

    def prov_for(self, dst: str, reason: str) -> str:
        return Prov.EXTRACTED if reason in _LOCAL_REASONS and dst.startswith(self.prefix) else Prov.INFERRED

    # entity helpers
    def context(self, path: str) -> ImportContext:
        return self.table.import_context(path)

    def module_member(self, files: tuple[str, ...], name: str, hops: int = 0) -> Entity | None:
        # Asked per name against each star import and include: most answers are None, found lean.
        table = self.table
        ids = table.defs_in(files[0], name) if len(files) == 1 else [i for f in files for i in table.defs_in(f, name)]
        if ids and not (table.renamed_exports and any(table.exports_other(f, name) for f in files)):
            return ("sym", tuple(ids))
        modules = table.modules(self.system)
        if hops >= MAX_REEXPORT_HOPS:
            sub = modules.submodule(files, name)
            return ("mod", sub) if sub else None
        contexts = [table.import_context(f) for f in files]
        sub = modules.submodule(files, name)
        # `from .impl import name` in __init__: what it imports, also over a submodule of that
        # name (`from .actor import actor`), unless one of its imports is the submodule.
        for ctx in contexts if modules.imports_are_members else ():
            ents = [self.realize(b, hops + 1) for b in ctx.names.get(name, ())]
            ent = ("mod", sub) if sub and ("mod", sub) in ents else next(filter(None, ents), None)
            if ent is not None:
                return ent
        if sub:
            return ("mod", sub)
        for f, ctx in zip(files, contexts):  # exports: `export {impl as name} from "./impl"`, `export * from "./impl"`
            for ent in ctx.exports.get(name, ()):
                if ent[0] == "member" and ent[1] == (f,) and not table.defs_in(f, ent[2]):
                    # `import * as z from "./external"; export { z }`: what the import binds
                    ent = next(iter(ctx.names.get(ent[2], ())), ent)
                found = self.realize(ent, hops + 1)
                if found is not None:
                    return found
            if name != "default":  # `export *` passes on every name but the default
                for star in ctx.export_stars:
                    found = self.module_member(star[1], name, hops + 1) if star[0] == "mod" else None
                    if found is not None:
                        return found
        if modules.star_reexports:
            return self.star_member(files, name, hops + 1)
        return None

    def rebound(self, result):
        """An answer with what the module of its target also assigns to the target's name at
        its top level (`if ...: class X` / `else: X = Y`): either may be the one in effect.
        Only for what a call or a value names; a base class stays the definition."""
        if result is None or result == "builtin" or result[0][0] != "sym":
            return result
        ids, symbols = result[0][1], self.table.symbols
        first = symbols[ids[0]]
        if "." in first.qualified_name or first.name not in self.table.rebound_names(first.file) or any(
                symbols[i].kind in VARIABLE_KINDS for i in ids):
            return result  # a variable's own value is followed where it is used
        value = self.types.entity(self.types.bound(first.file, first.name))
        if value[0] != "sym" and any(b.value and b.value[0] != DEFINED and "(" not in b.value
                                     for b in self.table.bindings(first.file, first.name)):
            # An alias of something else (`anext = builtins.anext`; not `f = cache(f)`): either may be called.
            return ("sym", ids), Reason.CANDIDATE, 1.0 / (len(ids) + 1)
        more = tuple(dict.fromkeys((*ids, *value[1]))) if value[0] == "sym" else ids
        return result if len(more) == len(ids) else (("sym", more), *result[1:])

    def star_member(self, files: tuple[str, ...], name: str, hops: int) -> Entity | None:
        """``name`` given by a star import of the module (``from .impl import *``); a
        submodule only when ``__all__`` lists it."""
        for f in files:
            for star, provides in reversed(self.context(f).stars):  # the last one binds
                if star[0] == "mod" and (provides is None or name in provides):
                    ent = self.module_member(star[1], name, hops)
                    if ent is not None and (ent[0] != "mod" or provides is not None):
                        return ent
        return None

    def realize(self, ent: Entity, hops: int = 0) -> Entity | None:
        kind = ent[0]
        if kind == "member":
            return self.module_member(ent[1], ent[2], hops)
        if kind == "path":
            cur: Entity | None = ("mod", ent[1])
            for seg in ent[2]:
                cur = self.member(cur, seg, hops) if cur is not None else None
            return cur
        return ent

    def member(self, ent: Entity, name: str, hops: int = 0) -> Entity | None:
        kind = ent[0]
        if kind == "mod":
            found = self.module_member(ent[1], name, hops)
            return found if found is not None else self.table.modules(self.system).outside(ent[1], name)
        if kind == "ext":
            module, sub = ent[1], ent[2]
            sep = "::" if "::" in module else "."
            return ("ext", f"{module}{sep}{sub}" if sub else module, name)
        if kind == "sym":
            ids = []
            for tid in ent[1]:
                sym = self.table.symbols.get(tid)
                if sym is None:
                    continue
                if sym.kind in TYPE_KIND_NAMES:
                    ids.extend(self.find_in_hierarchy(tid, name, include_self=True))
                elif sym.kind == "module":
                    # Namespaces reopen across files: look in every one with this name.
                    for mid in self.table.types_named(self.system, base_qual(sym.qualified_name)) or [tid]:
                        ids.extend(self.table.members_of(mid).get(name, ()))
                elif sym.kind in VARIABLE_KINDS and self.spec.literal_keys:
                    ids.extend(literal_methods(self.table, sym, name))
            return ("sym", tuple(dict.fromkeys(ids))) if ids else None
        return None

    def bases(self, type_id: str) -> list[tuple[str, str]]:
        """Resolved base types of a type: (base id, reason)."""
        recursive, key = self.table.recursive, ("bases", type_id)
        found = recursive.values.get(key)
        if found is not None:
            return found
        return recursive.get(key, [], lambda: self._bases(type_id))

    def _bases(self, type_id: str) -> list[tuple[str, str]]:
        sym = self.table.symbols.get(type_id)
        out: list[tuple[str, str]] = []
        ext = self.table.files.get(sym.file) if sym else None
        if ext is not None:
            resolver = self.other(ext.path)
            for ref in ext.inherits:
                if ref.type_id == type_id or (ref.type_id is None and ref.subject == sym.qualified_name):
                    found = resolver.resolve_type(ref.base, resolver.bases_scope(sym.qualified_name), guesses=False)
                    if found is not None and found[0][0] == "sym":
                        out.extend((b, found[1]) for b in held_classes(self, found[0][1]) if b != type_id)
        return out

    def open_bases(self, type_id: str) -> list[Entity | None]:
        """The bases of a type that are not workspace types: external entities, or None for
        a base that resolves to nothing known. Builtin bases (``object``) are left out."""
        recursive, key = self.table.recursive, ("open", type_id)
        found = recursive.values.get(key)
        if found is not None:
            return found
        return recursive.get(key, [], lambda: self._open_bases(type_id))

    def _open_bases(self, type_id: str) -> list[Entity | None]:
        sym = self.table.symbols.get(type_id)
        ext = self.table.files.get(sym.file) if sym else None
        out: list[Entity | None] = []
        if ext is None:
            return out
        resolver = self.other(ext.path)
        for ref in ext.inherits:
            if ref.type_id == type_id or (ref.type_id is None and ref.subject == sym.qualified_name):
                if ref.base in self.spec.builtins:
                    continue
                found = resolver.resolve_type(ref.base, resolver.bases_scope(sym.qualified_name), guesses=False)
                if found is None or found[0][0] != "sym":
                    ent = found[0] if found is not None and found[0][0] == "ext" else None
                    if ent is not None and ent[1] in self.spec.typing_modules and ent[2] in self.spec.memberless_bases:
                        continue  # `Generic[T]`, `Protocol`: no members of their own to call
                    out.append(ent)
        return out

    def linearization(self, type_id: str) -> list[str]:
        """The type and its workspace bases in lookup order: Python's C3 linearisation where
        the language says so, else level by level."""
        recursive, key = self.table.recursive, ("mro", type_id)
        found = recursive.values.get(key)
        if found is not None:
            return found
        return recursive.get(key, [type_id], lambda: self._linearization(type_id))

    def _linearization(self, type_id: str) -> list[str]:
        bases = list(dict.fromkeys(b for b, _ in self.bases(type_id)))
        if self.spec.linear_mro:
            merged = c3_merge([self.linearization(b) for b in bases] + [bases])
            if merged is not None:
                return [type_id, *merged]
        order = [type_id]
        seen = {type_id}
        frontier = bases
        for _ in range(MAX_HIERARCHY):
            nxt = []
            for t in frontier:
                if t not in seen:
                    seen.add(t)
                    order.append(t)
                    nxt.extend(b for b, _ in self.bases(t))
            if not nxt:
                break
            frontier = nxt
        return order

    def find_in_hierarchy(self, type_id: str, name: str, include_self: bool) -> list[str]:
        if self.spec.linear_mro:
            order = self.linearization(type_id)
            for t in order if include_self else order[1:]:
                ids = self.members_of(t).get(name)
                if ids:
                    return ids
            return []
        seen = {type_id}
        frontier = [type_id] if include_self else [b for b, _ in self.bases(type_id)]
        for _ in range(MAX_HIERARCHY):
            found: list[str] = []
            nxt: list[str] = []
            for t in frontier:
                ids = self.members_of(t).get(name)
                if ids:
                    found.extend(ids)
                elif not self.table.bindings(t, name):  # a field of that name hides the bases' methods
                    for b, _ in self.bases(t):
                        if b not in seen:
                            seen.add(b)
                            nxt.append(b)
            if found:
                return found
            if not nxt:
                return []
            frontier = nxt
        return []

    def members_of(self, type_id: str) -> dict[str, list[str]]:
        """The type's members; where the language allows them anywhere (Rust `impl` blocks,
        C++ out-of-line definitions), also those of other files whose owner resolves to this
        type for certain (through scope or imports, not a guess by name)."""
        recursive, key = self.table.recursive, ("members", type_id)
        found = recursive.values.get(key)
        if found is not None:
            return found
        own = self.table.members_of(type_id)
        # While the owners below are resolved, a lookup of this type sees its own members.
        return recursive.get(key, own, lambda: self._members_anywhere(type_id, own))

    def _members_anywhere(self, type_id: str, own: dict[str, list[str]]) -> dict[str, list[str]]:
        merged = own
        for ext, owner, members in self.table.members_elsewhere(type_id):
            resolver = self.other(ext.path)
            target = resolver.resolve_type(owner, "")
            if target is None or target[0] != ("sym", (type_id,)) or target[2] < 1.0:
                continue
            if merged is own:
                merged = {name: list(ids) for name, ids in own.items()}
            for name, ids in members.items():
                have = merged.setdefault(name, [])
                have.extend(i for i in ids if i not in have)
        return merged

    def enclosing_type(self, qual: str) -> str | None:
        """The type (or Rust impl / Go receiver type) a qualified caller name belongs to (once)."""
        found = self._enclosing.get(qual, self._enclosing)
        if found is self._enclosing:
            found = self._enclosing[qual] = self._enclosing_type(qual)
        return found

    def _enclosing_type(self, qual: str) -> str | None:
        own = ids_of(self.quals.get(qual))
        if len(own) == 1 and self.constructs(own[0]):
            return own[0]  # `this` in a constructor function's own body
        parts = qual.split(".")
        for i in range(len(parts) - 1, 0, -1):
            owner = ".".join(parts[:i])
            for tid in ids_of(self.quals.get(base_qual(owner))):
                if self.table.symbols[tid].kind in TYPE_KIND_NAMES or self.constructs(tid):
                    return tid
            if self.spec.types_apart and (tid := self.table.shadowed_type(self.ext.path, base_qual(owner))):
                return tid  # `interface A { m(): this }` beside `const A`
            if self.spec.directory_scope:
                for f in sorted(self.table.files_in_dir(posixpath.dirname(self.ext.path))):
                    for tid in self.table.defs_in(f, base_qual(owner)):
                        if self.table.symbols[tid].kind in TYPE_KIND_NAMES:
                            return tid
            # A Rust impl or a method qualified by a type defined elsewhere.
            if i == len(parts) - 1:
                found = self.resolve_type(owner, "")
                if found is not None and found[0][0] == "sym" and len(found[0][1]) == 1:
                    tid = found[0][1][0]
                    if self.spec.self_in_nested_functions and self.table.symbols[tid].kind not in TYPE_KIND_NAMES \
                            and not self.constructs(tid):  # (`Client.prototype.m = ...` of a required Client: it)
                        continue  # a function around the caller: the type is further out
                    return tid
                # `void geo::Circle::m()` in a .cpp, the class in a header: by full name.
                ids = [t for t in self.table.types_named(self.system, base_qual(owner)) if self.table.symbols[t].kind in TYPE_KIND_NAMES]
                if len(ids) == 1:
                    return ids[0]
        return None

    def constructs(self, func_id: str) -> bool:
        """Whether a function is a constructor function: one with methods of its own
        (``Router.prototype.use = function``) where the language calls constructors with ``new``."""
        symbols = self.table.symbols
        return bool(self.spec.new_operator) and symbols[func_id].kind == "function" \
            and any(symbols[i].kind == "method" for ids in self.members_of(func_id).values() for i in ids)

    def scope_chain(self, qual: str) -> list[tuple[str, bool, str | None, list[str]]]:
        """Enclosing scopes of ``qual``, innermost first, to the top: (prefix, names visible inside, owner kind, ids)."""
        chain = self._chains.get(qual)
        if chain is None:
            if not qual:
                chain = [("", True, None, [])]
            else:  # this scope, then the enclosing one's chain (kept from its own lookups)
                outer = qual.rpartition(".")[0]
                # `.a`: an empty first segment is a scope of its own
                rest = self.scope_chain(outer) if outer or "." not in qual else [self._scope_entry(""), *self.scope_chain("")]
                chain = [self._scope_entry(qual), *rest]
            self._chains[qual] = chain
        return chain

    def _scope_entry(self, prefix: str) -> tuple[str, bool, str | None, list[str]]:
        owner_ids = ids_of(self.quals.get(base_qual(prefix)))
        owner_kind = self.table.symbols[owner_ids[0]].kind if owner_ids else None
        return (prefix, owner_kind in _SCOPE_KINDS, owner_kind, owner_ids)

    def lookup(self, name: str, qual: str) -> tuple[Entity, str, float] | None:
        """An unqualified name as seen from the scope ``qual`` of this file (answered once)."""
        key = (name, qual)
        found = self._lookups.get(key, self._lookups)
        if found is self._lookups:
            found = self._lookups[key] = self._lookup(name, qual)
        return found

    def _lookup(self, name: str, qual: str) -> tuple[Entity, str, float] | None:
        table = self.table
        path = self.ext.path
        spec = self.spec
        # 1. this scope and the enclosing ones
        for prefix, is_scope, owner_kind, owner_ids in self.scope_chain(qual):
            if not is_scope:
                # A type, or a scope without a definition here (impl block, receiver type, `A::m`): its
                # members are visible only in some languages, and to code run in its body (Python's).
                own = self.quals.get(f"{prefix}.{name}") if spec.body_scope and prefix == qual else None
                if own:
                    return ("sym", tuple(ids_of(own))), Reason.SCOPE, 1.0
                if spec.members_visible:
                    ids = ids_of(self.quals.get(f"{prefix}.{name}"))
                    tid = owner_ids[0] if owner_kind in TYPE_KIND_NAMES else self.enclosing_type(prefix + ".?")
                    if not ids and tid is not None:
                        ids = self.find_in_hierarchy(tid, name, include_self=True)
                    if ids:
                        return ("sym", tuple(ids)), Reason.SELF, 1.0
                continue
            key = f"{prefix}.{name}" if prefix else name
            ids = ids_of(self.quals.get(key))
            if ids and prefix and not spec.members_visible and all(table.symbols[i].kind == "method" for i in ids):
                ids = None  # a method (of an object literal in a function) is no name there
            if ids:
                bound = None if prefix else self.context(path).names.get(name)
                if not bound:
                    return ("sym", tuple(ids)), Reason.SCOPE, 1.0
                if all(table.symbols[i].kind in ("variable", "constant") for i in ids):
                    break  # `const util = require("./util")`: the import says more than the variable
                inside = imported_in_functions(self.ext, name)
                if inside is not None and not any(qual == f or qual.startswith(f + ".") for f in inside):
                    return ("sym", tuple(ids)), Reason.SCOPE, 1.0  # imported only in other functions
                # Bound twice at top level (`try: from _c import f` / `except: def f()`):
                # either may be the one in effect.
                others = [e for e in (self.realize(b) for b in bound) if e is not None]
                targets = list(ids) + [i for e in others if e[0] == "sym" for i in e[1] if i not in ids]
                k = len(targets) + sum(1 for e in others if e[0] != "sym")
                return ("sym", tuple(targets)), Reason.CANDIDATE, 1.0 / k
        found = self._outside.get(name, self._outside)
        if found is self._outside:
            found = self._outside[name] = self._lookup_outside(name)
        return found

    def _lookup_outside(self, name: str) -> tuple[Entity, str, float] | None:
        """A name no scope of the file defines, as imports and the package give it: the same
        answer from every scope, so asked once per name (a C file's includes are read for
        each name, from each function that calls it, otherwise)."""
        table = self.table
        path = self.ext.path
        spec = self.spec
        # 2. explicit imports
        ctx = self.context(path)
        bound = ctx.names.get(name)
        if bound:
            ents = [e for e in (self.realize(b) for b in bound) if e is not None]
            if ents:
                return merge_entities(ents), Reason.IMPORT, 1.0
            return ("unresolved",), Reason.IMPORT, 0.0
        # 3. star imports, includes, wildcard imports
        found: list[Entity] = []
        for (star, provides), definitions in zip(ctx.stars, table.star_definitions(path)):
            if provides is not None and name not in provides:
                continue
            if definitions is not None:  # a header: what `member` finds, found without it
                ids = [i for quals in definitions for i in ids_of(quals.get(name))]
                if ids:
                    found.append(("sym", tuple(ids)))
                continue
            ent = self.realize(star)
            if ent is None:
                continue
            if ent[0] == "ext":
                continue
            m = self.member(ent, name)
            if m is not None and m[0] != "mod":
                found.append(m)
        if found:
            return merge_entities(found), Reason.IMPORT, 1.0
        implicit = table.modules(self.system).implicit(path, name)
        if implicit is not None:
            return implicit, Reason.IMPORT, 1.0
        # 4. the same package (Go's `package x_test` beside `package x` is another one)
        if spec.directory_scope:
            package = self.ext.package
            ids = [i for f in sorted(table.files_in_dir(posixpath.dirname(path)))
                   if f != path and table.files[f].lang == self.ext.lang and table.files[f].package == package
                   for i in table.defs_in(f, name)]
            if ids:
                return ("sym", tuple(ids)), Reason.SCOPE, 1.0
        return None

    def bases_scope(self, subject: str) -> str:
        """Where a type's bases are looked up: around it, or in it where members are visible."""
        return subject if self.spec.members_visible else subject.rpartition(".")[0]

    def resolve_type(self, written: str, qual: str, guesses: bool = True) -> tuple[Entity, str, float] | None:
        """A type name as written in a base list or receiver: ``Base``, ``mod.Base``, ``a::B``.
        ``guesses=False``: a name found nowhere in scope is guessed only when one type has it."""
        segs = [s for s in SPLIT.split(written) if s]
        if not segs:
            return None
        head = self.lookup(segs[0], qual)
        if head is None or head[0][0] == "unresolved":
            if len(segs) == 1 and segs[0] not in self.spec.builtins:  # `class W(Warning)`: no guess
                head = self.unique(segs[0], "type")
                if head is not None and not guesses and head[1] == Reason.CANDIDATE:
                    return None
            if head is None:
                return None
        ent, reason, conf = head
        for seg in segs[1:]:
            ent = self.member(ent, seg)
            if ent is None:
                return None
        if self.spec.types_apart and ent[0] == "sym":  # `interface A` beside a later `const A`
            ent = ("sym", self.table.types_among(ent[1]) or ent[1])
        return ent, reason, conf

    def unique(self, name: str, group: str) -> tuple[Entity, str, float] | None:
        ids = self.table.by_name(self.system, group, name)
        if not ids:
            return None
        if len(ids) == 1:
            return ("sym", tuple(ids)), Reason.UNIQUE_NAME, self.spec.unique_name_confidence
        if len(ids) > MAX_CANDIDATES:
            return None
        return ("sym", tuple(ids)), Reason.CANDIDATE, 1.0 / len(ids)

    # the three kinds of references
    def memo_key(self, call: CallRef) -> tuple:
        """What the resolution of ``call`` depends on: calls with equal keys share one answer."""
        return self.key_of(call.caller, call.name, call.receiver_kind, call.receiver, call.local, call.block, call.line)

    def key_of(self, caller: str, name: str, rkind: str, receiver: str | None, local: bool, block: str, line: int) -> tuple:
        """`memo_key` of a call given by its fields (the loop over every call reads rows)."""
        if rkind == RECEIVER_SELF or rkind == RECEIVER_SUPER:
            return (caller.rpartition(".")[0], name, rkind, None, False)
        nested = self._nested
        if nested is None:
            # Names defined (or imported) below the top level of this file are the only ones whose
            # meaning depends on where the call is; every other call can share one answer per file.
            nested = self._nested = {s.name for s in self.ext.symbols if "." in s.qualified_name} | imported_in_bodies(self.ext)
            self._redefined = self.table.earlier_names(self.ext.path)
        if receiver is None and name in self._redefined:  # `def f` ... `f()` ... `def f`: by the line
            return (caller, name, rkind, None, local, block, line)
        # Locals, the receiver and chains are evaluated in the caller's scope.
        head = name if receiver is None else _HEAD.match(receiver).group(0)
        if local or rkind == RECEIVER_EXPR or self.spec.members_visible or head in nested or (
                receiver is not None and name in nested) or head in self.spec.self_names:
            return (caller, name, rkind, receiver, local, block)
        return ("", name, rkind, receiver, local)

    def resolved(self, call: CallRef, key: tuple):
        """``resolve_call``, once per memo key: calls and values share the answers."""
        memo = self._resolved
        result = memo.get(key, memo)
        if result is memo:
            try:  # (a type no rule bounds must not stop the file's resolution: left unresolved)
                result = self.rebound(self.resolve_call(call))
            except RecursionError:
                result = None
            memo[key] = result
        return result

    def calls(self) -> None:
        stats = self.stats
        memo, key_of = self._resolved, self.key_of
        # Rows, not records: only calls with a new memo key (or left unresolved) need one.
        rows = record_rows(self.ext.calls)
        stats.calls += len(rows)
        for row in rows:
            caller, name, rkind, receiver, line, local, _, block = row  # CallRef's fields in order
            key = key_of(caller, name, rkind, receiver, local, block, line)
            result = memo.get(key, memo)  # `resolved`, inline: this loop runs for every call
            if result is memo:
                result = self.resolved(CallRef(*row), key)
            if result is None:
                self.unresolved(row)
                continue
            if result == "builtin":
                stats.builtin += 1
                continue
            ent, reason, conf = result
            if ent[0] == "ext":
                module, name = ent[1], ent[2]
                dst = external_symbol_id(module, name) if name else None
                if dst is None:
                    self.unresolved(row)
                    continue
                stats.external += 1
                self.edge(caller, dst, Rel.CALLS, Prov.INFERRED, 1.0, Reason.EXTERNAL, line)
                continue
            if ent[0] != "sym" and ent[0] != "each":
                self.unresolved(row)
                continue
            ids = ent[1]
            if len(ids) > 1 and reason != Reason.CANDIDATE and ent[0] == "sym":
                only = self.variant_targets.get(key, ())
                built = built_by_default(self.table.files, self.table.symbols, tuple(i for i in ids if i not in only))
                for dst in ids if len(built) < len(ids) else ():  # variants stay candidates
                    if dst not in built:
                        self.edge(caller, dst, Rel.CALLS, Prov.INFERRED, conf / len(ids), Reason.CANDIDATE, line)
                ids = built
            if reason == Reason.ARGUMENT:  # each one is passed by some caller
                stats.by_reason[reason] += 1
                for dst in ids:
                    self.edge(caller, dst, Rel.CALLS, Prov.INFERRED, conf, reason, line)
                continue
            if ent[0] == "each" or len(ids) > 1 and reason != Reason.CANDIDATE and branch_alternatives(
                    self.spec, self.table.symbols, ids):  # a loop over a literal, a name on each branch: each is called
                stats.by_reason[reason] += 1
                for dst in ids:
                    self.edge(caller, dst, Rel.CALLS, self.prov_for(dst, reason), conf, reason, line)
                continue
            if len(ids) > 1:
                # (candidates are capped where they are found: a field's assigned methods, more)
                if len(ids) > (MAX_FIELD_VALUES if reason == Reason.CANDIDATE else MAX_CANDIDATES):
                    self.unresolved(row)
                    continue
                stats.candidate_calls += 1
                stats.by_reason[Reason.CANDIDATE] += 1
                each = conf if reason == Reason.CANDIDATE else conf / len(ids)  # candidates are already split
                for dst in ids:
                    self.edge(caller, dst, Rel.CALLS, Prov.INFERRED, each, Reason.CANDIDATE, line)
                continue
            stats.by_reason[reason] += 1
            self.edge(caller, ids[0], Rel.CALLS, self.prov_for(ids[0], reason), conf, reason, line)

    def resolve_call(self, call: CallRef):
        qual = call.caller.partition("#")[2]
        name = call.name
        kind = call.receiver_kind
        if kind == RECEIVER_NONE and call.local:
            # A parameter or local variable: a nested definition of that name, or what the
            # variable holds (`a = func; a()`).
            found = UNKNOWN
            for prefix, is_scope, _, _ in self.scope_chain(qual):
                if prefix and is_scope:
                    ids = ids_of(self.quals.get(f"{prefix}.{name}"))
                    if ids and (self.spec.members_visible
                                or not all(self.table.symbols[i].kind == "method" for i in ids)):
                        if len(ids) == 1:
                            return ("sym", defined_above(self, tuple(ids), call)), Reason.SCOPE, 1.0
                        # Defined in several closures: the one whose name is bound around the call.
                        found = self.callee(self.types.value(name, qual, call.block))
                        if found is UNKNOWN or found is None or found[0][0] != "sym" or not set(found[0][1]) <= set(ids):
                            return ("sym", tuple(ids)), Reason.SCOPE, 1.0
                        return found[0], Reason.SCOPE, 1.0
            found = self.callee(self.types.value(name, qual, call.block))
            if found is UNKNOWN and self.ext.params:
                # A parameter (of this function or of one around it): what the callers pass for it.
                where = self.types.binder(name, qual, call.block)
                passed = parameter_values(self, where[0] if where else call.caller, name)
                if passed:
                    return ("sym", passed), Reason.ARGUMENT, 1.0
            return found if found is not UNKNOWN else possible_call(self, call)
        if kind == RECEIVER_NONE:
            found = in_effect(self, self.lookup(name, qual), call)  # `def f` ... `f()` ... `def f`
            if found is not None:
                if found[0][0] == "unresolved":
                    return None
                return held(self, found)
            bound = self.callee(self.types.value(name, qual, call.block))
            if bound is not UNKNOWN:
                return bound
            if name in self.spec.builtins:
                return "builtin"
            return self.unique(name, "callable")
        if kind in (RECEIVER_SELF, RECEIVER_SUPER):
            return self._self_call(call, qual, name, kind)
        if kind == RECEIVER_EXPR or (kind == RECEIVER_NAME and (call.local or _HEAD.match(call.receiver).group(0)
                                                                 in self.spec.self_names)):
            found = self.callee(self.types.value(chain_of(call.receiver, name), qual, call.block))
            if found is not UNKNOWN:
                return found
        elif kind == RECEIVER_NAME and call.receiver:
            known = False
            target = self.resolve_receiver(call.receiver, qual)
            if target is not None:
                ent, reason, conf = target
                if ent[0] == "unresolved":
                    return None
                m = self.member(ent, name)
                if m is not None and m[0] == "sym" and all(
                        "." not in getattr(self.table.symbols.get(i), "qualified_name", ".") for i in m[1]):
                    return held(self, (m, reason, conf))  # a module's variable: what it holds (`mod.handler()`)
                if m is not None and m[0] in ("sym", "ext"):
                    return m, (Reason.EXTERNAL if m[0] == "ext" else reason), conf
                if ent[0] in ("mod", "ext"):
                    return None  # a module we know that lacks the name: do not guess
                # A known type or namespace without the member as a symbol: its value below, else no guess.
                known = ent[0] == "sym" and all(
                    self.table.symbols[i].kind in TYPE_KIND_NAMES or self.table.symbols[i].kind == "module"
                    for i in ent[1] if i in self.table.symbols)
            # A chain through a module-level variable (`x = C()` then `x.m()`).
            found = self.callee(self.types.value(chain := chain_of(call.receiver, name), qual, call.block))
            if found is not UNKNOWN:
                if found is not None and (only := variant_only(self, chain, qual, found[0])):
                    self.variant_targets[self.memo_key(call)] = only
                return found
            if known:
                return None
        # An object of unknown type: match the method name alone, weakly.
        ids = self.table.by_name(self.system, "method", name)
        if (here := written_here(self, call)) is not None and len(ids) < MAX_CANDIDATES:  # the file's own too
            return ("sym", tuple(dict.fromkeys([*ids, *here[0][1]]))), Reason.CANDIDATE, 1.0 / (len(ids) + 2)
        if not ids or len(ids) > MAX_CANDIDATES:
            return possible_call(self, call)  # what the receiver may be, when its name says nothing
        if len(ids) == 1:
            return ("sym", tuple(ids)), Reason.UNIQUE_NAME, METHOD_NAME_CONFIDENCE
        return ("sym", tuple(ids)), Reason.CANDIDATE, 1.0 / len(ids)

    def callee(self, value: tuple):
        """What a call of a value calls: UNKNOWN when the value is not known."""
        kind = value[0]
        if kind == "method":
            return ("sym", value[1]), Reason.TYPE, 1.0
        if kind == "sym":
            syms = [self.table.symbols.get(i) for i in value[1]]
            if all(s is not None and (s.kind in _CALLEE_KINDS or s.kind in TYPE_KIND_NAMES) for s in syms):
                return value, Reason.TYPE, 1.0
            return UNKNOWN
        if kind == "ext":
            return (value, Reason.EXTERNAL, 1.0) if value[2] else UNKNOWN
        if kind == "missing":
            ext = value[1]
            return (ext, Reason.EXTERNAL, 1.0) if ext is not None and ext[0] == "ext" and ext[2] else None
        if value is BUILTIN:
            return "builtin"
        if value is ANONYMOUS:
            return None  # a lambda: no symbol to call
        return UNKNOWN

    def _self_call(self, call: CallRef, qual: str, name: str, kind: str):
        """``resolve_call`` of ``self.m()`` and ``super().m()``."""
        owner = qual.rpartition(".")[0]
        if kind == RECEIVER_SELF and owner:
            # A sibling member defined next to the caller (out-of-line C++, Go, Rust impls).
            ids = ids_of(self.quals.get(f"{owner}.{name}"))
            if ids and self.table.symbols[ids[0]].kind == "method" and not assigned_over(self, ids, name):
                return ("sym", tuple(ids)), Reason.SELF, 1.0
        tid = self.enclosing_type(qual)
        if tid is None and getattr(self.table.symbols.get(call.caller), "kind", "") in TYPE_KIND_NAMES:
            tid = call.caller  # in a field's initializer (`handler = () => this.run()`): the type's own
        if tid is None:
            # A function outside a type that declares what its receiver is (`this: Foo`).
            for self_name in sorted(self.spec.self_names) if kind == RECEIVER_SELF else ():
                bound = self.types.local(self_name, qual, call.block)
                if bound is not None and bound[0] == "inst":
                    found = self.callee(self.types.attribute(bound, name))
                    return found if found is not UNKNOWN else None
            return None
        ids = self.find_in_hierarchy(tid, name, include_self=kind == RECEIVER_SELF)
        if ids and (kind == RECEIVER_SELF and assigned_over(self, ids, name, tid) or order_unproven(self, tid, name)):
            return ("sym", tuple(ids)), Reason.CANDIDATE, 1.0 / (len(ids) + 1)  # or what was assigned, or another
        if ids:
            return ("sym", tuple(ids)), Reason.SELF, 1.0
        # A field holding a function, or a member an external base provides.
        member = self.types.member((tid,), name, instance=True, skip_self=kind == RECEIVER_SUPER)
        if member == ("missing", None) and kind == RECEIVER_SELF and (below := self.types.below(tid, name)):
            return ("sym", below), Reason.CANDIDATE, 1.0 / (len(below) + 1)  # what subclasses define
        found = self.callee(member)
        return found if found is not UNKNOWN else possible_call(self, call)

    def resolve_receiver(self, receiver: str, qual: str):
        ctx = self.context(self.ext.path)
        segs = [s for s in SPLIT.split(receiver) if s]
        # The longest dotted prefix bound by an import (`import a.b.c` binds "a.b.c").
        for i in range(len(segs), 0, -1):
            key = ".".join(segs[:i])
            if i > 1 and key not in ctx.names:
                continue
            if i == 1:
                head = self.lookup(key, qual)
            else:
                ents = [e for e in (self.realize(b) for b in ctx.names[key]) if e is not None]
                head = (merge_entities(ents) if ents else ("unresolved",)), Reason.IMPORT, 1.0
            if head is None:
                if i == 1 and segs[0][:1].isupper():
                    head = self.unique(segs[0], "type")
                if head is None:
                    return None
            ent, reason, conf = head
            if ent[0] == "unresolved":
                return head
            for seg in segs[i:]:
                nxt = self.member(ent, seg)
                if nxt is None:
                    return None if ent[0] == "sym" else (("unresolved",), reason, conf)
                ent = nxt
            return ent, reason, conf
        return None
