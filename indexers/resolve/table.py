"""The symbol table: every file's symbols and references, indexed for resolution, kept up
to date one file at a time."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from itertools import chain, starmap
from typing import Callable, Collection, Iterable, Sequence

from graphsvc.model import SymbolKind
from indexers.bindings import DEFINED, ELEMENT
from indexers.extract import RECEIVER_NAME, Binding, FileExtraction
from indexers.languages import LANGUAGES, LanguageSpec
from indexers.module_config import GoModules, JsPaths
from indexers.records import SymbolRecord
from indexers.referenced import referenced_names
from indexers.resolve.common import (
    TYPE_KIND_NAMES, TYPE_OR_ALIAS, ImportContext, base_qual, last_segment, paused_gc, record_fields, record_rows,
)
from indexers.resolve.modules import MODULE_SYSTEMS, ModuleSystem

# What a value can refer to (REFERENCES edges).
REFERABLE_KINDS = TYPE_KIND_NAMES | {"function", "method"}
# Files whose bindings are indexed by (scope, name) at a time; the others are indexed again
# when they are looked at. Each index holds its file's bindings decoded, tens of kilobytes
# for a C file: four times as many made most of resolution's memory, for no measurable time.
BINDINGS_INDEXED = 1024
# Files whose import contexts are kept, the last ones built: resolution reads a file's own again
# and again while it resolves, and a few others' (the modules it imports); kept for every file
# they grew with the workspace (about 50 bytes per symbol on the kernel's drivers/net).
CONTEXTS_KEPT = 1024
_CALLABLE_KINDS = frozenset({"function", "class", "struct"})
# An include names a header with its extension; the file's stem is what other files name.


def _module_shape(ext: FileExtraction) -> tuple:
    """What module systems build their index from besides a file's path."""
    return ext.lang, ext.package


_PROPERTY_ACCESSORS = frozenset({"setter", "deleter", "getter"})  # `@name.setter` and the like


class SymbolTable:
    """Every file's symbols, indexed for resolution; add and remove files one at a time."""

    def __init__(self, exts: Iterable[FileExtraction] = ()):
        self.files: dict[str, FileExtraction] = {}
        # Files relating a type from outside it (Rust's `impl Trait for Type`): an incremental
        # run looks at these (`with_shared_sources`) instead of at every file's relations.
        self.relating_files: set[str] = set()
        self.symbols: dict[str, SymbolRecord] = {}
        # Ids under one key are kept as `_StoredIds`: nearly every key has a single one.
        self._quals: dict[str, dict[str, _StoredIds]] = {}  # file -> base qual -> ids
        # (module system, name group) -> name -> ids; groups: _name_groups()
        self._by_name: dict[tuple[str, str], dict[str, _StoredIds]] = {}
        # referenced name -> the file referring to it, or a set of them when more than one: most
        # names are referred to from one file, and an empty set alone takes 216 bytes
        self._refs: dict[str, str | set[str]] = {}
        self._dirs: dict[str, set[str]] = defaultdict(set)  # directory -> files
        self._members: dict[tuple[str, str], dict[str, list[str]]] = {}
        # (system, last segment of an owner's qualified name) -> {(scope key, owner)}: where
        # members of a type of that name are defined, for languages with members_anywhere.
        self._owners: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
        self.js_paths = JsPaths()  # import aliases of tsconfig/jsconfig files (set by the job)
        self.go_modules = GoModules()  # module paths of go.mod files (set by the job)
        self._types: dict[tuple[str, str], _StoredIds] = {}  # (system, qual) -> type ids
        # file -> base qual -> a type a later value of its name shadows (`interface A` before
        # `const A`), for languages whose types are apart from values (`LanguageSpec.types_apart`)
        self._shadowed_types: dict[str, dict[str, str]] = {}
        # file -> base qual -> functions a later definition of the name in the same statement
        # list shadows, in source order (`def f` ... `def f` in one body)
        self._earlier: dict[str, dict[str, list[str]]] = {}
        # file -> what `file_index` derived from its extraction alone, kept until it changes
        self._file_indexes: dict[str, dict[str, object]] = {}
        self._referable: dict[str, int] = {}  # name -> how many functions, methods and types have it
        self._module_index: dict[str, ModuleSystem] = {}
        # Module systems read the set of paths and each file's _module_shape(): they are built
        # again only when that changed. path -> its shape when the index was built (None: no
        # such file then), for the paths added or removed since.
        self._reshaped: dict[str, tuple | None] = {}
        self._ctx_cache: dict[str, ImportContext] = {}
        self._module_definitions: dict[tuple[str, tuple[str, ...]], list | None] = {}  # (system, files) -> answer
        self._bindings: dict[str, dict[tuple[str, str], list[Binding]]] = {}  # file -> (scope, name) -> bindings
        self._properties: dict[str, dict[str, str]] = {}  # file -> its methods read as attributes
        self._rebound: dict[str, frozenset[str]] = {}  # file -> `rebound_names`
        self.renamed_exports: dict[str, frozenset[str]] = {}  # file -> names it exports another of its names as
        # Field name -> the types whose body binds it, for `types_binding`; kept up to date a
        # file at a time: the files added since the last question are read at the next.
        self._fields_index: dict[str, set[str]] = defaultdict(set)
        self._fields_of: dict[str, list[tuple[str, str]]] = {}  # file -> its (name, type) entries
        self._fields_pending: set[str] = set()
        self.resolvers: dict[str, object] = {}  # file -> its resolver, for lookups from other files
        self.recursive = RecursiveCache()  # base types and members found anywhere
        with paused_gc():
            for ext in exts:
                self.add_file(ext)

    # -- maintenance -------------------------------------------------------------------

    def add_file(self, ext: FileExtraction) -> None:
        if ext.path in self.files:
            self.remove_file(ext.path)
        self._reshaped.setdefault(ext.path, None)
        self.files[ext.path] = ext
        if any(ref.type_id is None for ref in ext.inherits):
            self.relating_files.add(ext.path)
        self._bindings.pop(ext.path, None)
        self._properties.pop(ext.path, None)
        self._rebound.pop(ext.path, None)
        self._file_indexes.pop(ext.path, None)
        self._fields_pending.add(ext.path)
        renamed = {i.alias for i in ext.imports if i.export and not i.module and i.alias and i.name != i.alias}
        if renamed:  # `module.exports = {clone: convenienceClone}`: its `clone` is not its own `clone`
            self.renamed_exports[ext.path] = frozenset(renamed)
        self._dirs[posixpath.dirname(ext.path)].add(ext.path)
        spec = LANGUAGES.get(ext.lang) if ext.lang else None
        system = spec.module_system if spec else ""
        quals: dict[str, _StoredIds] = {}
        scope_key = self._scope_key(ext.path, spec)
        symbols, members, types = self.symbols, self._members, self._types
        groups = {group: self._by_name.setdefault((system, group), {}) for group in _ALL_GROUPS}
        shadowed = set(ext.shadowed)
        referable = self._referable
        for sym in ext.symbols:
            sid, kind, qual = sym.id, sym.kind, sym.qualified_name
            symbols[sid] = sym
            if kind in REFERABLE_KINDS:
                referable[sym.name] = referable.get(sym.name, 0) + 1
            if sid in shadowed:
                if kind in TYPE_OR_ALIAS:
                    self._shadowed_types.setdefault(ext.path, {})[base_qual(qual)] = sid
                elif kind == "function" or kind == "method":
                    self._earlier.setdefault(ext.path, {}).setdefault(base_qual(qual), []).append(sid)
                continue  # a node, but never what the name resolves to
            base = base_qual(qual)
            _add_id(quals, base, sid)
            for group in _name_groups(kind):
                _add_id(groups[group], sym.name, sid)
            if kind in TYPE_KIND_NAMES or kind == "module":
                _add_id(types, (system, base), sid)
            if "." in qual and kind != "constant" and kind != "variable":
                key = (scope_key, qual.rpartition(".")[0])
                members.setdefault(key, {}).setdefault(sym.name, []).append(sid)
                if spec is not None and spec.members_anywhere:
                    self._owners[(system, last_segment(key[1]))].add(key)
        self._quals[ext.path] = quals
        refs, path = self._refs, ext.path
        names = _referenced_names(ext)
        # Indexed now, they are not kept (the kernel's would hold a tuple for each of 60,000
        # files all run long); `remove_file` reads them from the records, as equal.
        ext.referenced = None
        for name in names:
            files = refs.get(name)
            if files is None:
                refs[name] = path
            elif type(files) is str:
                if files != path:
                    refs[name] = {files, path}
            else:
                files.add(path)
        self._touch()

    def remove_file(self, path: str) -> FileExtraction | None:
        ext = self.files.pop(path, None)
        if ext is None:
            return None
        self.relating_files.discard(path)
        self._reshaped.setdefault(path, _module_shape(ext))
        self._bindings.pop(path, None)
        self._properties.pop(path, None)
        self._rebound.pop(path, None)
        self._file_indexes.pop(path, None)
        self.renamed_exports.pop(path, None)
        self._fields_pending.discard(path)
        for name, scope in self._fields_of.pop(path, ()):
            self._fields_index[name].discard(scope)
        self._dirs[posixpath.dirname(path)].discard(path)
        spec = LANGUAGES.get(ext.lang) if ext.lang else None
        system = spec.module_system if spec else ""
        for sym in ext.symbols:
            self.symbols.pop(sym.id, None)
            if sym.kind in REFERABLE_KINDS:
                left = self._referable[sym.name] - 1
                if left:
                    self._referable[sym.name] = left
                else:
                    del self._referable[sym.name]
            if sym.kind in TYPE_KIND_NAMES or sym.kind == "module":
                _remove_id(self._types, (system, base_qual(sym.qualified_name)), sym.id)
            for group in _name_groups(sym.kind):
                _remove_id(self._by_name.get((system, group), {}), sym.name, sym.id)
            owner = sym.qualified_name.rpartition(".")[0]
            if owner:
                key = (self._scope_key(path, spec), owner)
                members = self._members.get(key)
                if members is not None and sym.name in members:
                    _discard(members[sym.name], sym.id)
                    if not members[sym.name]:
                        del members[sym.name]
                    if not members:
                        self._owners.get((system, last_segment(owner)), set()).discard(key)
        self._quals.pop(path, None)
        self._shadowed_types.pop(path, None)
        self._earlier.pop(path, None)
        refs = self._refs
        for name in _referenced_names(ext):
            files = refs.get(name)
            if files is None:
                continue
            if type(files) is str:
                if files == path:
                    del refs[name]
            else:
                files.discard(path)
        self._touch()
        return ext

    def set_js_paths(self, js_paths: JsPaths) -> None:
        if js_paths != self.js_paths:
            self.js_paths = js_paths
            self._module_index.clear()
            self._touch()

    def set_go_modules(self, go_modules: GoModules) -> None:
        if go_modules != self.go_modules:
            self.go_modules = go_modules
            self._module_index.clear()
            self._touch()

    def _touch(self) -> None:
        self._ctx_cache.clear()
        self._module_definitions.clear()
        self.resolvers.clear()
        self.recursive = RecursiveCache()

    @staticmethod
    def _scope_key(path: str, spec: LanguageSpec | None) -> str:
        # Go methods and Java package members may live in another file of the same directory.
        return posixpath.dirname(path) + "/" if spec is not None and spec.directory_scope else path

    def modules(self, system: str) -> ModuleSystem:
        if self._reshaped:
            files = self.files
            if any(_module_shape(files[p]) != shape if p in files else shape is not None
                   for p, shape in self._reshaped.items()):
                self._module_index.clear()
            else:
                # Same paths, same shapes: only what the systems read of contents is stale.
                for index in self._module_index.values():
                    index.forget_contents()
            self._reshaped.clear()
        if not self._module_index:
            self._module_index = {name: cls(self) for name, cls in MODULE_SYSTEMS.items()}
        return self._module_index[system]

    # -- lookups -----------------------------------------------------------------------

    def import_context(self, path: str) -> ImportContext:
        """What the imports of a file bind, as its module system reads them."""
        cache = self._ctx_cache
        ctx = cache.get(path)
        if ctx is None:
            ext = self.files.get(path)
            ctx = ImportContext()
            if ext is not None and ext.lang:
                modules = self.modules(LANGUAGES[ext.lang].module_system)
                for imp in ext.imports:
                    modules.bind(ext, imp, ctx)
            if len(cache) >= CONTEXTS_KEPT:
                del cache[next(iter(cache))]  # the oldest
            cache[path] = ctx
        return ctx

    def module_definitions(self, system: str, files: tuple[str, ...]) -> list[dict[str, _StoredIds]] | None:
        """The definitions (`quals_in`) of the files of a module whose members are those and
        nothing else: no submodule, nothing outside the workspace, nothing imported, exported
        or re-exported as a member; None for any other module. Looking a name up in such a
        module is looking at its definitions (a kernel file looks each name it calls up in
        the dozens of headers it includes)."""
        key = (system, files)
        found = self._module_definitions.get(key, key)
        if found is key:
            modules = self.modules(system)
            contexts = [self.import_context(f) for f in files]
            plain = (modules.members_are_files and not modules.star_reexports
                     and not any((c.names and modules.imports_are_members) or c.exports or c.export_stars for c in contexts))
            found = self._module_definitions[key] = [self.quals_in(f) for f in files] if plain else None
        return found

    def star_definitions(self, path: str) -> list[list[dict[str, _StoredIds]] | None]:
        """`module_definitions` of each star import of a file, in the order of its import
        context's stars (None for a star that is no such module): every name the file looks
        up outside its scopes is looked for in each of them."""
        ctx = self.import_context(path)
        if ctx.star_definitions is None:
            system = LANGUAGES[self.files[path].lang].module_system
            ctx.star_definitions = [self.module_definitions(system, star[1]) if star[0] == "mod" else None
                                    for star, _ in ctx.stars]
        return ctx.star_definitions

    def types_binding(self, name: str) -> Collection[str]:
        """The types whose body binds a field ``name`` (``model = Other``; not ``self.x = ...``
        in a method, as a test's stand-in does), in the languages whose subclasses may bind a
        base's field again."""
        if self._fields_pending:
            index, symbols = self._fields_index, self.symbols
            for path in self._fields_pending:
                ext = self.files.get(path)
                spec = LANGUAGES.get(ext.lang) if ext is not None and ext.lang else None
                if spec is None or not spec.fields_overridable:
                    continue
                entries = self._fields_of[path] = [
                    (field_name, scope)
                    for scope, field_name, context in set(record_fields(ext.bindings, "scope", "name", "context"))
                    if context is None and (sym := symbols.get(scope)) is not None and sym.kind in TYPE_KIND_NAMES]
                for field_name, scope in entries:
                    index[field_name].add(scope)
            self._fields_pending.clear()
        return self._fields_index.get(name, ())

    def property_role(self, method_id: str) -> str | None:
        """"get" for a method decorated as a property (the language's ``property_decorators``),
        "set" for its setter or deleter (``@name.setter``), None for any other."""
        path = method_id.partition("#")[0]
        found = self._properties.get(path)
        if found is None:
            found = self._properties[path] = _properties(self.files.get(path))
        return found.get(method_id)

    def bindings(self, scope: str, name: str) -> Sequence[Binding]:
        """The bindings of ``name`` in a scope (a function, type or file id); not to be changed."""
        path = scope.partition("#")[0]
        index = self._bindings.get(path)
        if index is None:
            if len(self._bindings) >= BINDINGS_INDEXED:
                # The oldest index goes: kept for every file, they held all the bindings of
                # the workspace twice over (gigabytes for the Linux kernel).
                del self._bindings[next(iter(self._bindings))]
            index = self._bindings[path] = {}
            ext = self.files.get(path)
            # Rows, made records when their key is first asked for: most keys never are.
            for row in record_rows(ext.bindings) if ext is not None else ():
                key = row[:2]  # (scope, name), a Binding's first fields
                found = index.get(key)
                if found is None:
                    index[key] = [row]
                else:
                    found.append(row)
        found = index.get((scope, name))
        if found is None:
            return ()
        if type(found[0]) is tuple:
            found[:] = starmap(Binding, found)
        return found

    def rebound_names(self, path: str) -> frozenset[str]:
        """The names a file assigns a value to at its top level (`X = Y`, also in an ``if`` or
        ``try`` there): a definition of one of them is not all that the name may be
        (`if ...: class X` / `else: X = Y`). Read from the encoded columns when first asked."""
        found = self._rebound.get(path)
        if found is None:
            ext = self.files.get(path)
            rows = record_fields(ext.bindings, "scope", "name", "value") if ext is not None else ()
            found = self._rebound[path] = frozenset(
                name for scope, name, value in rows if scope == path and value and value[0] != DEFINED)
        return found

    def referable_names(self) -> Collection[str]:
        """The names of every function, method and type of the workspace: a value of another
        name refers to none of them."""
        return self._referable.keys()

    def quals_in(self, path: str) -> dict[str, _StoredIds]:
        """A file's definitions by qualified name (redefinition suffixes removed), each read
        with `ids`."""
        return self._quals.get(path, {})

    def shadowed_type(self, path: str, qual: str) -> str | None:
        """The type of a file that a later value of its (base) qualified name shadows."""
        return self._shadowed_types.get(path, {}).get(qual)

    def changed(self, path: str, keyed: bool = True) -> frozenset[str]:
        """Names of a file (variables, and fields by their last name) whose contents may change
        after a literal is bound to them: an item assigned (without ``keyed``, by a key no
        literal) or deleted (``@contents``), a method called on them (``d.update()``; not where
        an object's members are its keys, JS's), passed to a call or bound to another name (in
        JS, to one whose contents change)."""
        return self.file_index(path, "changed" if keyed else "changed-unkeyed", lambda: self._changed(path, keyed))

    def _changed(self, path: str, keyed: bool) -> frozenset[str]:
        ext = self.files.get(path)
        spec = LANGUAGES.get(ext.lang) if ext is not None and ext.lang else None
        # Read from the encoded columns: no record is built.
        binds = record_fields(ext.bindings, "name", "value") if ext is not None else ()
        calls = record_fields(ext.calls, "receiver_kind", "receiver", "args") if ext is not None else ()
        names = {name.partition("[")[0] for name, _ in binds if name[-1] == "]" and (keyed or name.endswith(ELEMENT))}
        members = bool(spec and spec.literal_keys)  # JS: members called are read, an alias changed changes
        names.update(receiver.rpartition(".")[2] for kind, receiver, _ in calls  # `self.table.update()`: table
                     if kind == RECEIVER_NAME and receiver and not members)
        names.update(v.rpartition(".")[2] for _, _, args in calls if args for _, v in args)
        names.update(value.rpartition(".")[2] for name, value in binds  # aliases: `t = table`
                     if value and value[-1] not in ")]" and value[0] != "{" and (not members or name in names))
        return frozenset(names)

    def file_index(self, path: str, kind: str, build: Callable[[], object]):
        """An index of ``kind`` that ``build`` derives from one file's extraction alone (its
        calls by name, its parameters by function): kept until that file is added or removed
        again, not dropped with the answers that depend on other files (an edit's resolution
        reads those of every file naming what it changed)."""
        per = self._file_indexes.setdefault(path, {})
        found = per.get(kind)
        if found is None:
            found = per[kind] = build()
        return found

    def earlier_functions(self, path: str, qual: str) -> list[str]:
        """Functions of a file under a (base) qualified name that a later definition shadows."""
        return self._earlier.get(path, {}).get(qual, [])

    def earlier_names(self, path: str) -> frozenset[str]:
        """The names of a file's `earlier_functions`."""
        return self.file_index(path, "earlier-names",
                               lambda: frozenset(q.rpartition(".")[2] for q in self._earlier.get(path, ())))

    def types_among(self, found: Ids) -> tuple[str, ...]:
        """What a name written as a type names, where types are apart from values, of the
        definitions `found` for it: the types among them, else the types their values
        shadow (`interface A` beside a later `const A`); () for none."""
        symbols = self.symbols
        types = tuple(i for i in found if symbols[i].kind in TYPE_OR_ALIAS)
        return types or tuple(t for t in (self.shadowed_type(symbols[i].file, base_qual(symbols[i].qualified_name))
                                          for i in found) if t is not None)

    def defs_in(self, path: str, qual: str) -> Ids:
        return ids(self._quals.get(path, {}).get(qual))

    def exports_other(self, path: str, name: str) -> bool:
        """Whether the module exports another of its names as ``name`` (JavaScript's
        ``module.exports = {clone: convenienceClone}``, ``export {a as b}``)."""
        return name in self.renamed_exports.get(path, ())

    def by_name(self, system: str, group: str, name: str) -> Ids:
        """Definitions named ``name`` in a group: "callable", "type" or "method"."""
        return ids(self._by_name.get((system, group), {}).get(name))

    def types_named(self, system: str, qual: str) -> Ids:
        """Types and namespaces with this qualified name anywhere in the workspace."""
        return ids(self._types.get((system, qual)))

    def members_of(self, type_id: str) -> dict[str, list[str]]:
        """Members defined with the type (in its file, or its directory where that is the scope)."""
        sym = self.symbols.get(type_id)
        if sym is None:
            return {}
        spec = LANGUAGES.get(sym.lang)
        return self._members.get((self._scope_key(sym.file, spec), sym.qualified_name), {})

    def members_elsewhere(self, type_id: str) -> list[tuple[FileExtraction, str, dict[str, list[str]]]]:
        """(file, owner as written, members) of the members defined, in files other than the
        type's, for a type of the same name (languages with ``members_anywhere``)."""
        sym = self.symbols.get(type_id)
        spec = LANGUAGES.get(sym.lang) if sym is not None else None
        if spec is None or not spec.members_anywhere:
            return []
        own = (self._scope_key(sym.file, spec), sym.qualified_name)
        found = []
        for key in sorted(self._owners.get((spec.module_system, last_segment(sym.qualified_name)), ())):
            ext, members = self.files.get(key[0]), self._members.get(key)
            if key != own and ext is not None and members:
                found.append((ext, key[1], members))
        return found

    def importers_of(self, path: str) -> set[str]:
        """Files whose imports resolve to ``path`` now. Only files naming the module (its stem
        or its directory, for packages) are examined."""
        stem = posixpath.splitext(posixpath.basename(path))[0]
        candidates = self.referencing_files(stem) | self.referencing_files(posixpath.basename(posixpath.dirname(path)))
        out = set()
        for f in candidates:
            ext = self.files.get(f)
            if ext is not None and ext.lang in LANGUAGES and f != path:
                if path in self.import_context(f).edges:
                    out.add(f)
        return out

    def referencing_files(self, name: str) -> set[str]:
        """The files referring to ``name``: a set the caller must not change."""
        files = self._refs.get(name)
        if files is None:
            return set()
        return {files} if type(files) is str else files

    def files_in_dir(self, directory: str) -> set[str]:
        return self._dirs.get(directory, set())


class RecursiveCache:
    """Answers of lookups that may recurse into themselves (a type's bases, its members
    defined elsewhere), cached so that no answer depends on which lookup came first.

    A lookup met again while it is still being answered gets a provisional answer. What was
    computed from the provisional answer of an *enclosing* lookup is not cached: asked first,
    it would have seen the full answer. Files resolve alike whichever were resolved before.
    """

    __slots__ = ("values", "active", "lowest")

    def __init__(self):
        self.values: dict[tuple, object] = {}
        self.active: dict[tuple, tuple[int, object]] = {}  # key -> (depth, provisional answer)
        self.lowest: list[int] = []  # per open lookup: the lowest depth whose provisional answer it used

    def get(self, key: tuple, provisional, compute):
        value = self.values.get(key)
        if value is not None:
            return value
        active = self.active.get(key)
        if active is not None:
            depth, value = active
            if self.lowest:
                self.lowest[-1] = min(self.lowest[-1], depth)
            return value
        depth = len(self.lowest)
        self.active[key] = (depth, provisional)
        self.lowest.append(depth)
        try:
            value = compute()
        finally:
            lowest = self.lowest.pop()
            del self.active[key]
        if lowest >= depth:
            self.values[key] = value
        elif self.lowest:
            self.lowest[-1] = min(self.lowest[-1], lowest)
        return value


def _groups_of(kind: str) -> tuple[str, ...]:
    groups = []
    if kind in _CALLABLE_KINDS:
        groups.append("callable")
    if kind in TYPE_KIND_NAMES:
        groups.append("type")
    if kind == "method":
        groups.append("method")
    return tuple(groups)


_GROUPS = {str(k): _groups_of(str(k)) for k in SymbolKind}
_ALL_GROUPS = ("callable", "type", "method")

# The ids defined under one key of the table's indexes: the id alone when there is one, a list
# once there are several. A list of one took about 90 bytes beside its id, and the table keeps
# one or more per symbol (the Linux kernel has 3.5 M).
_StoredIds = str | list[str]
# The ids as the table gives them: not to be changed.
Ids = tuple[str, ...] | list[str]


def ids(stored: _StoredIds | None) -> Ids:
    """The ids of an entry of the table's indexes (`quals_in`)."""
    if stored is None:
        return ()
    return (stored,) if type(stored) is str else stored


def _add_id(index: dict, key, sid: str) -> None:
    stored = index.get(key)
    if stored is None:
        index[key] = sid
    elif type(stored) is str:
        index[key] = [stored, sid]
    else:
        stored.append(sid)


def _remove_id(index: dict, key, sid: str) -> None:
    stored = index.get(key)
    if stored is None:
        return
    if stored == sid or stored == [sid]:
        del index[key]
    elif type(stored) is list and sid in stored:
        stored.remove(sid)


def _name_groups(kind: str) -> tuple[str, ...]:
    groups = _GROUPS.get(kind)
    return groups if groups is not None else _groups_of(kind)


def _discard(items: list, item) -> None:
    try:
        items.remove(item)
    except ValueError:
        pass


def _referenced_names(ext: FileExtraction) -> tuple[str, ...]:
    """`referenced_names` of a file: as its parser process computed them, or from its records
    (an extraction made otherwise)."""
    if ext.referenced is not None:
        return ext.referenced
    refs = chain(record_fields(ext.calls, "name", "receiver"), record_fields(ext.values, "name", "receiver"))
    methods = (s.name for s in ext.symbols if s.kind == "method")
    return referenced_names(refs, record_fields(ext.bindings, "type", "value"), ext.inherits, methods, ext.imports)


def _properties(ext: FileExtraction | None) -> dict[str, str]:
    """The methods of a file decorated as properties, "get" or "set" (``@name.setter``): each
    decorator is a call from the class on a line above its method, the first method of that
    class to start after it."""
    spec = LANGUAGES.get(ext.lang) if ext is not None and ext.lang else None
    if spec is None or not spec.property_decorators:
        return {}
    names = spec.property_decorators
    marks: dict[str, list[tuple[int, str, str | None]]] = {}  # class id -> (line, role, property name)
    for row in record_rows(ext.calls):
        name = row[1]  # (caller, name, receiver kind, receiver, line, ...): CallRef's fields
        if name in names:
            marks.setdefault(row[0], []).append((row[4], "get", None))
        elif name in _PROPERTY_ACCESSORS and row[3]:
            marks.setdefault(row[0], []).append((row[4], "set", row[3]))
    if not marks:
        return {}
    found: dict[str, str] = {}
    methods = sorted((s.start_line, s.id, s.parent, s.name) for s in ext.symbols if s.kind == "method" and s.parent in marks)
    for owner, at in marks.items():
        for line, role, prop in at:
            nxt = next((m for m in methods if m[2] == owner and m[0] > line), None)
            if nxt is not None and (prop is None or prop == nxt[3]):
                found.setdefault(nxt[1], role)
    return found
