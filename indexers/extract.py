"""Language-agnostic extraction: bytes of one file in, symbols and raw references out.

What to find is said by the language's query file (``indexers/queries/<lang>.scm``) with
tags.scm-style captures:

``@definition.<kind>``  a definition node (class, interface, struct, enum, trait, function,
                        method, constant, variable, type_alias, module)
``@scope``              a node whose members are qualified by ``@name`` but which is not a
                        symbol itself (a Rust ``impl`` block)
``@name``               the defined name, the called name, or the base type
``@qualifier``          explicit owner of a definition (Go receiver type, ``A::`` in C++)
``@self``               the receiver name of a method (Go ``func (s *T)``)
``@doc``                a docstring inside the definition
``@package``            the file's package or namespace clause (Go, Java)
``@local``              a name bound in the scope around it (parameter, local variable, a
                        module-level variable; in a type's body, a field of the type). Inside
                        a function, calls through it are not calls of a global with that name.
                        What it is bound to, when the match says so (otherwise: unknown):
``@local.type``         its declared type as written (``x: Foo``, ``e *Engine``, ``Engine e``)
``@local.value``        the expression it is bound to (``Foo(...)``, ``New()``, ``mod.f``,
                        ``a.b().c``); kept only when it is a chain of names, member accesses
                        and calls (arguments dropped: ``Foo()``), else the binding is unknown.
                        A language's null literal (``LanguageSpec.null_literals``) binds nothing.
``@local.enter``        the expression whose context it is bound to (Python ``with X as f``):
                        the value of ``X.<LanguageSpec.context_enter>()``
``@local.element``      the expression whose elements it is bound to in turn (a loop
                        variable): the element type of the expression's declared container
                        type (``LanguageSpec.container_types``)
``@local.unpacked``     on a list of names (``a, b = f()``): the expression whose elements
                        they are bound to by position, each ``f()[i:k]``, up to a splat
``@local.of``           the expression whose member of the same name it is bound to
                        (JavaScript ``const {a} = obj``: ``obj.a``)
``@contents``           a name whose contents are changed in place (an item assigned or
                        deleted): a container literal bound to it no longer says what it
                        holds; recorded as a binding of ``name[]`` in the file
``@field``              a field of the type around the enclosing method, assigned through
                        the receiver (``self.x = ...``); ``@field.type`` / ``@field.value`` as
                        for ``@local``, the value read in the method's scope
``@result``             the declared result type of the enclosing function (``-> Foo``), or
                        the type the enclosing type alias stands for (Go ``type Hooks []Hook``)
``@return``             an expression the enclosing function returns (``return Foo()``)
``@signature``          a parameter of the enclosing function whose declared type is a
                        function type; ``@signature.parameter`` one parameter of that type,
                        ``@signature.type`` its declared type: what the function passes to
                        the function it is given (TypeScript ``init: (s: Subscriber) => void``)
``@local.narrowed``     the name a ``@local`` node (a block) binds, to ``@local.type``, inside
                        that block (``if (x instanceof Foo) { ... }``)
``@local.callee``       with ``@local.argument``, a function written as an argument of a
                        call of ``@local.callee``, and ``@local.parameter``, its parameter
                        that binds ``@local`` (or ``@local.self``: its ``this``): bound to what
                        the callee's ``@signature`` says it passes there (contextual typing)
``@block``              a node whose bindings are its own (a function literal, an arrow
                        function): a name bound inside it is not that name outside it. Calls
                        inside it still belong to the enclosing definition.
``@declaration``        a declaration that is not a definition (a C prototype, a name listed
                        in Python's ``__all__``); its ``@name`` tells the resolver what a
                        header promises or what a star import of the module gives
``@reference.call``     a call; ``@receiver`` is the object or path before the name (of
                        two patterns matching one call, the narrower receiver is kept); with
                        a ``@receiver`` but no ``@name``, a call of the receiver's value
                        (``f()()``), recorded with the name ""
``@reference.value``    a name used as a value, not called (an argument, a default, the
                        right side of an assignment, an element of a list or table, a
                        return value): the function or class it names is referenced;
                        ``@name`` and ``@receiver`` as for a call
``@argument``           on a value: it is an argument of the enclosing call, at its position
                        or ``@argument.keyword``
``@argument.list``      the argument list of the call a value is an argument of (else found
                        by walking up from the argument, which is slower); a call ends with its
                        argument list, so the list's last byte tells which call it is
``@parameter``          a parameter of the enclosing function, in order; ``@parameter.default``
                        its default value; ``@parameter.rest`` a ``*args``/``*``/``**kw``
                        after which parameters are not positional (``@parameter.variadic``
                        too where it takes any number of positional arguments)
``@reference.import``   an import; ``@import.module``, ``@import.name``, ``@import.alias``,
                        ``@import.default`` (local name of a module's default export),
                        ``@import.wildcard`` (everything the module exports),
                        ``@import.export`` (an export: the module gives its importers
                        ``@import.name`` of ``@import.module``, or of itself without one,
                        as ``@import.alias``; nothing is bound in the file)
``@exports``            a top-level name for the module's own exports (``var Auth = exports``):
                        what is defined on it is exported (``Auth.token`` as ``token``)
``@reference.inherits`` / ``@reference.implements``  a base type of the enclosing type, or of
                        ``@subject`` when the relation is written outside the type

Nesting (qualified names, callers, the type a base belongs to) comes from byte ranges, not
from grammar-specific tree walks, so this module never needs to know the language.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from itertools import chain, starmap
from operator import attrgetter, itemgetter

import tree_sitter

from graphsvc.model import TYPE_KINDS, SymbolKind, _slot_init, file_id, symbol_id
from indexers.alternatives import checker_alternative, checker_unseen, may_test, overloaded, ruled_out, version_flags
from indexers.arguments import ParamRef, call_arguments, decorated_name, parameters
from indexers.bindings import (ARGUMENTS, ELEMENT, RESULT, STRAIGHT, Binding, assigned_item, binding_items,
                               defined_names, receiver_chain)
from indexers.build_variants import is_variant
from indexers.c_macros import without_macros
from indexers.enclosing import (block_name, block_paths, constructor_functions, declared_after, definition_steps,
                                method_receiver, own_block_left, receiver_of, scope_start, shadows_receiver, visible_locals)
from indexers.definitions import documentation, signature
from indexers.import_refs import InlineRequires, exported_members, import_rows, imported_names, local_requires
from indexers.languages import LanguageSpec, get_language, language_for_content, parser_for
from indexers.matches import SCOPE, grouped_matches, narrowest_receivers, pattern_roles
from indexers.narrowing import narrowings
from indexers.rebinding import straight_regions
from indexers.records import SymbolRecord, encoded
from indexers.referenced import referenced_names
from indexers.syntax_errors import inside_error, parsed_again, scan_errors
from indexers.text import node_end_line, node_line, node_text, without_postfix
from indexers.top_calls import decorated, top_level_call

MAX_FILE_BYTES = 8 * 1024 * 1024
# Longer average lines than this over a large file mean generated or minified code.
MINIFIED_MIN_BYTES = 512 * 1024
MINIFIED_AVG_LINE = 1000
MAX_NESTING = 200

RECEIVER_NONE = "none"
RECEIVER_SELF = "self"
RECEIVER_SUPER = "super"
RECEIVER_NAME = "name"  # a plain name or a dotted/path chain of plain names
RECEIVER_EXPR = "expr"  # a chain of names and calls, arguments dropped: "cmd.root()", "f()"
RECEIVER_OTHER = "other"

INHERITS, IMPLEMENTS = "inherits", "implements"

_TYPE_KINDS = frozenset(str(k) for k in TYPE_KINDS)
_KINDS = frozenset(str(k) for k in SymbolKind) - {"external_module", "external_symbol"}
_RANK = {"variable": 0, "constant": 1}
_NAME_CHAIN = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|->)#?[A-Za-z_$][\w$]*)*$")
_GENERIC_ARGS = re.compile(r"<.*>$", re.S)
_HEAD = re.compile(r"[^.:>(\[-]*")
_FUNCTION_KINDS = frozenset({"function", "method"})
_LOCAL_KINDS = frozenset({RECEIVER_NONE, RECEIVER_NAME, RECEIVER_EXPR})
_NAME_RECEIVER = itemgetter(1, 3)  # of a row of CallRef's fields
_TYPE_VALUE = itemgetter(2, 3)  # of a row of Binding's fields


@_slot_init  # built by the hundred thousand, in extraction and decoding
@dataclass(slots=True, frozen=True)
class ImportRef:
    module: str  # as written, quotes stripped: "os.path", "./util", "crate::a::b", "x.h"
    name: str | None  # imported member ("join"), "*" for all, None for the module itself
    alias: str | None  # local name when renamed
    level: int  # leading dots of a Python relative import; 0 otherwise
    line: int
    export: bool = False  # re-exported to importers, not bound here (``export {a as b} from``)


@_slot_init  # built by the hundred thousand, in extraction and decoding
@dataclass(slots=True, frozen=True)
class CallRef:
    caller: str  # symbol id of the enclosing function/class, or the file id
    name: str
    receiver_kind: str  # RECEIVER_*
    receiver: str | None  # text of a RECEIVER_NAME receiver ("os.path", "util")
    line: int
    # The called name (or the receiver's first name) is a parameter or local variable of
    # the enclosing function, so it does not name a global definition or an import.
    local: bool = False
    # Arguments that may be functions: (position or keyword, the name as written).
    args: tuple[tuple[int | str, str], ...] = ()
    block: str = ""  # the blocks around the call inside its caller, as ``Binding.block``


@dataclass(slots=True, frozen=True)
class InheritRef:
    type_id: str | None  # the subtype when it is defined in this file
    subject: str  # qualified name of the subtype as written
    base: str  # the base as written ("Base", "mod.Base", "io::Read")
    kind: str  # INHERITS or IMPLEMENTS
    line: int


@dataclass(slots=True)
class FileExtraction:
    path: str
    lang: str | None
    symbols: list[SymbolRecord] = field(default_factory=list)
    imports: list[ImportRef] = field(default_factory=list)
    # Calls, values and bindings come marshalled (`indexers.records.Encoded`), as the index state stores them.
    calls: Sequence[CallRef] = field(default_factory=list)
    inherits: list[InheritRef] = field(default_factory=list)
    values: Sequence[CallRef] = field(default_factory=list)  # names used as values, shaped as calls
    bindings: Sequence[Binding] = field(default_factory=list)
    params: list[ParamRef] = field(default_factory=list)
    package: str | None = None  # Go package / Java package clause
    declared: list[str] = field(default_factory=list)  # names declared, not defined (C prototypes, __all__)
    # Definitions redefined later in the same statement list (overload stubs, replaced functions).
    shadowed: list[str] = field(default_factory=list)
    variant: bool = False  # left out of the default build (`indexers.build_variants`)
    has_errors: bool = False
    error_count: int = 0
    invalid_utf8: bool = False
    skip_reason: str | None = None  # set when nothing could be extracted
    problems: tuple[str, ...] = ()  # per-file notes for the user (invalid-utf8, deeply-nested)
    # `indexers.referenced.referenced_names` of the records, as extraction emits them; None:
    # not computed (the symbol table reads them from the records).
    referenced: tuple[str, ...] | None = None

    @property
    def file_id(self) -> str:
        return file_id(self.path)

    def __reduce__(self):
        # Results cross process boundaries and are saved between runs: plain tuples pickle
        # several times faster and smaller than dataclass instances.
        return (_rebuild, (
            self.path, self.lang, [_symbol_values(s) for s in self.symbols], [_import_values(i) for i in self.imports],
            [_call_values(c) for c in self.calls], [_inherit_values(r) for r in self.inherits],
            [_call_values(c) for c in self.values], [_binding_values(b) for b in self.bindings],
            [_param_values(p) for p in self.params], self.package, self.declared, self.shadowed,
            self.variant, self.has_errors, self.error_count, self.invalid_utf8, self.skip_reason, self.problems,
            self.referenced))


_symbol_values = attrgetter(*(f.name for f in fields(SymbolRecord) if f.init))
_import_values = attrgetter(*(f.name for f in fields(ImportRef)))
_call_values = attrgetter(*(f.name for f in fields(CallRef)))
_inherit_values = attrgetter(*(f.name for f in fields(InheritRef)))
_binding_values = attrgetter(*(f.name for f in fields(Binding)))
_param_values = attrgetter(*(f.name for f in fields(ParamRef)))


def _rebuild(path, lang, syms, imports, calls, inherits, values, bindings, params, *rest) -> FileExtraction:
    return FileExtraction(path, lang, [SymbolRecord(*s) for s in syms], [ImportRef(*i) for i in imports],
        [CallRef(*c) for c in calls], [InheritRef(*r) for r in inherits], [CallRef(*c) for c in values],
        [Binding(*b) for b in bindings], [ParamRef(*p) for p in params], *rest)


@dataclass(slots=True)
class _Def:
    start: int
    end: int
    node: tree_sitter.Node
    kind: str
    name: str
    qualifier: str | None
    self_name: str | None
    doc_node: tree_sitter.Node | None
    qual: str = ""
    sym: SymbolRecord | None = None
    parent: _Def | None = None


def extract_file(rel_path: str, data: bytes, lang: str | None) -> FileExtraction:
    """Extract one file. Never raises for bad content; problems are recorded on the result."""
    # Extraction allocates many short-lived objects and no reference cycles; the cyclic
    # collector would only rescan whatever the caller keeps (all previous results).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _extract(rel_path, data, lang)
    finally:
        if was_enabled:
            gc.enable()


def _extract(rel_path: str, data: bytes, lang: str | None) -> FileExtraction:
    path = file_id(rel_path)
    out = FileExtraction(path=path, lang=lang)
    if lang is None:
        out.skip_reason = "unknown-language"
        return out
    # An unknown name is a caller bug, not bad content; a `.h` file may turn out to be C++.
    spec = language_for_content(get_language(lang), data)
    out.lang = lang = spec.name
    if len(data) > MAX_FILE_BYTES:
        out.skip_reason = "too-large"
        return out
    if not data.strip():
        out.skip_reason = "empty"
        return out
    if len(data) >= MINIFIED_MIN_BYTES and len(data) / (data.count(b"\n") + 1) > MINIFIED_AVG_LINE:
        out.skip_reason = "minified"
        return out
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        data = data.decode("utf-8", "replace").encode("utf-8")
        out.invalid_utf8 = True
        out.problems = ("invalid-utf8",)
    parser = parser_for(lang)
    tree = parser.parse(data)
    root = tree.root_node
    source = data
    if root.has_error:
        out.has_errors = True
        out.error_count, pathological = scan_errors(root)
        if spec.macros is not None and not pathological:
            root, source, out.error_count, pathological = without_macros(parser, data, spec.macros, tree,
                                                                         out.error_count)
            out.has_errors = root.has_error
        elif spec.rewrite is not None:  # syntax the grammar does not read (that may be why it looks pathological)
            root, source, out.error_count, pathological = parsed_again(parser, data, spec.rewrite(data), tree,
                                                                       out.error_count, pathological=pathological)
            out.has_errors = root.has_error
        if pathological:
            out.skip_reason = "unparseable"
            return out
    out.variant = is_variant(spec.build_variants, path, data)
    _Extractor(spec, path, out, data, source).run(root)  # signatures as written, macros included
    return out


class _Extractor:
    def __init__(self, spec: LanguageSpec, path: str, out: FileExtraction, data: bytes, source: bytes):
        self.data = data
        self.text = node_text(source)  # the text of a node of the tree parsed from ``source``
        self.spec = spec
        self.path = path
        self.out = out
        self.seps = spec.scope_separators
        self.blocks: list[tuple[int, int]] = []  # (start, end) of each ``@block``, outer ones first
        self.block_names: dict[tuple[int, int], str] = {}  # "~start" of `straight_regions`' (not closures)
        self._arounds: dict[int, str] = {}  # `_blocks_around`'s answers
        self._block_starts: list[int] | None = None  # of ``blocks``, once they are all known
        self._steps: tuple = ((), [None], [None])  # `definition_steps`, once the definitions are nested
        self.bindings: list[tuple] = []  # rows of ``Binding``, emitted marshalled (`encoded`) as the calls
        self._nested: dict[str, list[tuple[str, int]]] = {}  # per block, its names and where their scopes start
        self._constructors: dict[str, _Def] = {}  # functions with methods of their own, by qualified name
        self._flags: dict[str, bool] | None = None  # names bound to a version test (`alternatives.version_flags`)
        self._imports: list[tuple[tree_sitter.Node, dict]] = []  # the import matches (`_imported_too`)
        self._requires = InlineRequires(spec.require_function)  # `require("m").f()`'s modules
        self._local_requires: dict[tree_sitter.Node, str] = {}  # what a function's `require` binds

    def run(self, root: tree_sitter.Node) -> None:
        self.root = root
        roles = pattern_roles(self.spec.name)
        get = grouped_matches(self.spec.name, (self.spec.query(), self.spec.root_query()), root).get
        for _, caps in get("block", ()):
            node = caps["block"][0]
            self.blocks.append((node.start_byte, node.end_byte))
        for _, caps in get("package", ()):
            self.out.package = self.text(caps["package"][0]).strip()
        for _, caps in get("contents", ()):  # a binding of "name[]" in the file ("d[s:k]" of `d["k"] = f`)
            node, name = caps["contents"][0], self.text(caps["contents"][0]).rpartition(".")[2]  # a field's by its last name
            item, value = assigned_item(self.spec, name, caps) if "contents.key" in caps else (None, None)
            self.bindings.append((self.path, item or name + ELEMENT, None, value, node_line(node), None, ""))
        for _, caps in get("declaration", ()):
            if "name" in caps:
                self.out.declared.append(self.text(caps["name"][0]))
        defs: dict[tuple[int, int], _Def] = {}
        for pattern, caps in get("definition", ()):
            role = roles[pattern]
            self._add_def(defs, role, caps[role][0], caps)
            if "package" in caps:
                self.out.package = self.text(caps["package"][0]).strip()
        binds = [(roles[pattern], caps) for pattern, caps in get("binding", ())]
        params = [caps for _, caps in get("parameter", ())]
        calls = [(caps["reference.call"][0], caps) for _, caps in get("reference.call", ())]
        if self.spec.narrowing_calls:  # `isinstance(x, Foo)`, a loop's body: blocks and bindings of their own
            blocks, narrowed = narrowings(self.spec, calls, self.text, binds)
            regions, held = straight_regions(binds, self.text, self.data)
            self.block_names.update(((s, e), f"{STRAIGHT}{s}") for s, e in regions)
            self.blocks.extend(blocks + regions)
            binds.extend(narrowed + held)
        values = [(caps["reference.value"][0], caps) for _, caps in get("reference.value", ())]
        imports = self._imports = [(caps["reference.import"][0], caps) for _, caps in get("reference.import", ())]
        inherits = [(roles[pattern][10:], caps[roles[pattern]][0], caps) for pattern, caps in get("inherits", ())]
        ordered = sorted(defs.values(), key=lambda d: (d.start, -d.end))
        self.blocks = sorted(set(self.blocks), key=lambda b: (b[0], -b[1]))
        self._nest(ordered)
        self._constructors = constructor_functions(ordered) if self.spec.new_operator else {}
        self.bindings.extend(decorated(self.spec, ordered, _FUNCTION_KINDS))
        self._steps = definition_steps(ordered)
        imports, self._local_requires = local_requires(imports, self._in_function, self._requires, self.text)
        local_names = self._bindings(binds + [("local", {"local": [n]}) for n in self._local_requires])
        if params:
            starts = [(c.get("parameter") or c["parameter.rest"])[0].start_byte for c in params]
            self.out.params = parameters(params, starts, self._enclosing_all(starts), self.bindings)
        args = call_arguments([caps for _, caps in values if "argument" in caps], self.text)
        call_rows = self._calls(ordered, narrowest_receivers(calls), local_names, args=args)
        self.out.calls = encoded(CallRef, call_rows)
        named = [v for v in values if "name" in v[1]]  # a call as an argument is no value of its own
        value_rows = self._calls(ordered, named, local_names, only_typed_locals=True)
        self.out.values = encoded(CallRef, value_rows)
        self.out.bindings = encoded(Binding, self.bindings)
        self._inherits(inherits)
        self.out.imports.extend(starmap(ImportRef, [*import_rows(imports, self.text), *self._requires.rows(),
                                                    *exported_members(ordered, get("exports", ()), self.text)]))
        out = self.out
        out.referenced = referenced_names(
            chain(map(_NAME_RECEIVER, call_rows), map(_NAME_RECEIVER, value_rows)), map(_TYPE_VALUE, self.bindings),
            out.inherits, (s.name for s in out.symbols if s.kind == "method"), out.imports)

    # -- definitions -------------------------------------------------------------------

    def _add_def(self, defs: dict, cap: str, node: tree_sitter.Node, caps: dict) -> None:
        kind = SCOPE if cap == SCOPE else cap[len("definition.") :]
        if kind != SCOPE and kind not in _KINDS:
            return
        name_nodes = caps.get("name")
        if not name_nodes:
            return
        name = self.text(name_nodes[0])
        name = (_GENERIC_ARGS.sub("", name) if "<" in name else name).strip()
        qualifier = None
        for sep in self.seps:
            if sep in name:
                qualifier, _, name = name.rpartition(sep)
                qualifier = ".".join(p for p in qualifier.split(sep) if p)
                break
        if "qualifier" in caps:
            q = _GENERIC_ARGS.sub("", self.text(caps["qualifier"][0])).lstrip("*&").strip()
            qualifier = ".".join(p for p in re.split(r"\.|::", q) if p) or None
        if not name:
            return
        if self.out.has_errors and kind in _FUNCTION_KINDS and node.child_by_field_name("body") is None \
                and inside_error(node):
            return  # error recovery reads calls as signatures: `return f(() =>` as `f(...)` in a type
        self_name = self.text(caps["self"][0]) if "self" in caps else None
        doc = caps["doc"][0] if "doc" in caps else None
        key = (node.start_byte, node.end_byte)
        prev = defs.get(key)
        # The same node matched by a general and a specific pattern: keep the specific kind.
        if prev is not None and _RANK.get(prev.kind, 2) >= _RANK.get(kind, 2):
            return
        defs[key] = _Def(node.start_byte, node.end_byte, node, kind, name, qualifier, self_name, doc)

    def _nest(self, ordered: list[_Def]) -> None:
        stack: list[_Def] = []
        seen: dict[str, int] = {}
        # qual -> (the node of its last definition, that definition's id); the statement lists
        # they are written in are compared only for a name defined twice (a parent walk each).
        last_in_block: dict[str, tuple[tree_sitter.Node, str]] = {}
        defined: dict[str, list[tuple[tree_sitter.Node, str]]] = {}  # qual -> each definition's (node, id)
        by_qual: dict[str, SymbolRecord] = {}
        symbols = self.out.symbols
        deep = False
        for d in ordered:
            while stack and stack[-1].end <= d.start:
                stack.pop()
            parent = stack[-1] if stack else None
            if len(stack) >= MAX_NESTING:
                deep = True
                continue
            d.parent = parent
            if d.kind in ("variable", "constant") and not _at_top_level(parent):
                continue  # only top-level variables are symbols (namespaces still count as top)
            prefix = parent.qual if parent is not None else ""
            if d.qualifier:
                prefix = f"{prefix}.{d.qualifier}" if prefix else d.qualifier
            qual = f"{prefix}.{d.name}" if prefix else d.name
            stack.append(d)
            if d.kind == SCOPE:
                d.qual = qual
                continue
            owner_kind = parent.kind if parent is not None and not d.qualifier else None
            kind = d.kind
            if kind == "function" and (owner_kind in _TYPE_KINDS or owner_kind == SCOPE or d.qualifier):
                kind = "method"
            elif kind == "method" and owner_kind is None and not d.qualifier and parent is None:
                kind = "function"
            if kind == "variable" and self.spec.caps_are_constants and d.name.isupper():
                kind = "constant"
            n = seen.get(qual, 0) + 1
            seen[qual] = n
            # Redefinitions and overloads: the second one is Name@2, in source order.
            uqual = qual if n == 1 else f"{qual}@{n}"
            defined.setdefault(qual, []).append((d.node, symbol_id(self.path, uqual)))
            if self.spec.redefinition_shadows:
                earlier = last_in_block.get(qual)
                if earlier is not None and self._overloaded(earlier[0]) and not self._overloaded(d.node):  # in any block
                    self.out.shadowed.extend(sid for node, sid in defined[qual]
                                             if sid not in self.out.shadowed and self._overloaded(node))
                    earlier = None
                elif earlier is not None and self._ruled_out(earlier[0]) and not self._ruled_out(d.node):
                    self.out.shadowed.append(earlier[1])  # ruled out by a version test
                    earlier = None
                if earlier is None and parent is None and self._imported_too(d):
                    self.out.shadowed.append(symbol_id(self.path, uqual))  # what the import binds
                elif earlier is not None and (self._decorated_again(d, earlier[0]) or self._ruled_out(d.node)
                                              or checker_alternative(self.spec, d.node, earlier[0], self._statements, self.text)
                                              or d.qualifier and earlier[0].type == "method_signature"):
                    # Still a node, but what the name holds stays the earlier definition (also the
                    # member a `declare class X` declares, for `X.prototype.m = function`).
                    self.out.shadowed.append(symbol_id(self.path, uqual))
                else:
                    if earlier is not None and self._block(earlier[0]) == self._block(d.node):
                        self.out.shadowed.append(earlier[1])
                    last_in_block[qual] = (d.node, symbol_id(self.path, uqual))
            d.qual = uqual
            parent_id = self.path
            owner = prefix
            if owner:
                owner_sym = by_qual.get(owner)
                if owner_sym is not None:
                    parent_id = owner_sym.id
                elif parent is not None and parent.sym is not None:
                    parent_id = parent.sym.id
            sym = SymbolRecord(
                id=symbol_id(self.path, uqual), name=d.name, qualified_name=uqual, kind=kind, file=self.path,
                parent=parent_id, start_line=d.node.start_point[0] + 1, end_line=node_end_line(d.node),
                lang=self.spec.name, signature=signature(self.data, d.node, kind),
                doc=documentation(self.spec, self.text, d.node, d.doc_node))
            d.sym = sym
            by_qual.setdefault(qual, sym)
            symbols.append(sym)
            if kind == "method" and self.spec.first_parameter_receiver and d.self_name is None:
                self._receiver(d, prefix)
        if deep:
            self.out.problems = (*self.out.problems, "deeply-nested")

    def _imported_too(self, d: _Def) -> bool:
        """Is the top-level ``d`` a fallback type checkers never see for a name the module
        also imports (`alternatives.checker_unseen`)?"""
        return (checker_unseen(self.spec, d.node, self._statements, self.text)
                and d.name in imported_names(self._imports, self.text))

    def _receiver(self, d: _Def, owner: str) -> None:
        """A method whose first parameter has a name of its own: that name is its receiver, an
        instance of ``owner`` (its class, for a classmethod)."""
        found = method_receiver(d.node, self.text, self.spec.self_names)
        if found is not None:
            d.self_name, of_class = found
            self.bindings.append((d.sym.id, d.self_name, f"type[{owner}]" if of_class else owner, None,
                                  d.sym.start_line, None, ""))

    def _decorated_again(self, d: _Def, earlier: tree_sitter.Node) -> bool:
        """Is the variable ``d`` the earlier definition of its name in the same statement list,
        passed first through calls and bound to the name again (``X = a(b(X, k=1), k=2)``)?"""
        calls = self.spec.hand_decorator_calls
        if not calls or d.kind not in ("variable", "constant") or earlier.type == d.node.type:
            return False
        statement = d.node.parent
        if statement is None or self._block(statement) != self._block(earlier):
            return False
        value = d.node.child_by_field_name("right")
        for _ in range(MAX_NESTING):
            if value is None or value.type not in calls:
                return False
            args = value.child_by_field_name("arguments")
            value = args.named_children[0] if args is not None and args.named_child_count else None
            if value is not None and value.type in self.spec.name_node_types:
                return self.text(value) == d.name
        return False

    def _overloaded(self, node: tree_sitter.Node) -> bool:
        return overloaded(node, self.spec.overload_decorators, self.text)

    def _ruled_out(self, node: tree_sitter.Node) -> bool:
        if self._flags is None:  # the module's own version flags, read once
            self._flags = version_flags(self.root, self.spec.version_tests, self.text)
        return ruled_out(node, self.spec.version_tests, self.text, self.spec.version_test_scopes, self._flags)

    def _statements(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The statement list a definition is written in (past decorators and the like)."""
        parent = node.parent
        while parent is not None and parent.type in self.spec.definition_wrappers:
            parent = parent.parent
        return parent

    def _block(self, node: tree_sitter.Node) -> tuple:
        """The span of the statement list a definition is written in."""
        parent = self._statements(node)
        return (parent.start_byte, parent.end_byte) if parent is not None else ()

    # -- references --------------------------------------------------------------------

    def _enclosing_all(self, starts: list[int], symbols: bool = False) -> list[_Def | None]:
        """Innermost emitted definition or scope around each node (by its first byte); with
        ``symbols``, the nearest of it and the definitions around it that is a symbol.
        Variables are skipped: a call in ``X = f()`` belongs to the file (or to the function
        around the assignment). Looked up in the step function of `definition_steps`."""
        points, owners = self._steps[0], self._steps[2 if symbols else 1]
        return [owners[bisect_right(points, pos)] for pos in starts]

    def _in_function(self, pos: int) -> bool:
        return (e := self._enclosing_all([pos], symbols=True)[0]) is not None and e.kind in _FUNCTION_KINDS or bool(
            self._blocks_around(pos))

    def _block_paths(self, starts: list[int], enclosing: list[_Def | None]) -> list[str]:
        return block_paths(self.blocks, self.block_names, starts, enclosing, len(self.data))

    def _blocks_around(self, pos: int) -> str:
        """The ``@block`` nodes around a byte outside any definition (`_block_paths`), per byte."""
        found = self._arounds.get(pos)
        if found is None:
            if self._block_starts is None:
                self._block_starts = [start for start, _ in self.blocks]
            # Blocks nest (they are nodes of the tree): those around the byte are those
            # starting before it that end after it.
            whole = (0, len(self.data))
            found = self._arounds[pos] = "/".join(
                block_name(self.block_names, block) for block in self.blocks[:bisect_right(self._block_starts, pos)]
                if pos < block[1] and block != whole)
        return found

    def _bindings(self, binds: list[tuple[str, dict]]) -> dict[int | str, dict[str, bool]]:
        """Record every binding (a row of ``Binding``); return the names bound inside each function,
        keyed by ``id()`` of its definition (outside functions, by the block), and whether
        any binding says what the name is."""
        local_names: dict[int | str, dict[str, bool]] = {}
        if not binds:
            return local_names
        out = self.bindings
        items = binding_items(self.spec, binds)
        starts = [item[0] for item in items]
        enclosing = self._enclosing_all(starts, symbols=True)
        defined = defined_names(items, enclosing)
        for i in defined:  # bound in the scope around the definition
            starts[i] = enclosing[i].start - 1
        enclosing = self._enclosing_all(starts, symbols=True) if defined else enclosing
        blocks = self._block_paths(starts, enclosing)
        text = self.text
        append = out.append
        path = self.path
        spec = self.spec
        functions: dict[int, _Def | None] = {}  # per enclosing definition, the function around it
        tested = may_test(spec.version_tests, self.data)  # a name bound on a ruled-out branch is not bound
        aliases: set[tuple[str, str]] = set()  # (function, name) of names bound to `this`
        for i, ((_, role, node, type_text, value_text, name), encl, block) in enumerate(zip(items, enclosing, blocks)):
            if tested and self._ruled_out(node):
                continue
            line = node.start_point[0] + 1
            narrowed = name is not None and role == "local"  # `@local.narrowed` names it
            if spec.narrowing_calls and block and not narrowed:
                block = ""  # bound in a narrowing block: the function's name all the same
            value_text = defined.get(i) or self._local_requires.get(node, value_text)  # (`local_requires`)
            if role == "generic":  # a type parameter: of its generic definition (a `TypeVar`: of the module)
                append((encl.sym.id if encl is not None and encl.sym else path, name, type_text, None, line, None, ""))
                continue
            if role == "result" or role == "return" or role == "signature":
                if role == "return" and block and encl is not None:
                    block = own_block_left(encl, block)  # `var f = function () { return x }`: f's
                if encl is not None and (encl.kind in _FUNCTION_KINDS or role == "result" and encl.kind == "type_alias"
                                         or role == "signature" and (encl.kind in _TYPE_KINDS or encl.kind == "type_alias")):
                    append((encl.sym.id, name or RESULT, type_text, value_text, line, None, block))
                continue
            name = name or text(node)
            if role == "field":
                alias = node.prev_named_sibling if spec.new_operator else None
                if alias is not None and alias.type == "identifier" and (
                        encl is None or (encl.qual, text(alias)) not in aliases):
                    continue  # `self.x = ...` where `self` is not bound to `this`
                owner = encl
                while owner is not None and owner.kind not in _TYPE_KINDS:
                    owner = owner.parent
                if owner is None and encl is not None and self._constructors:  # `this.x = ...` of a constructor function
                    owner = self._constructors.get(encl.qual if encl.kind == "function" else encl.qual.rpartition(".")[0])
                elif owner is None and alias is not None and self._constructors:  # `Foo.prototype.x = ...`
                    owner = self._constructors.get(text(alias).rpartition(".")[0])
                if owner is not None and owner.sym is not None and (encl is not owner or owner.kind == "function"):
                    append((owner.sym.id, name, type_text, value_text, line, encl.sym.id if encl else None, ""))
                continue
            passed = None  # a top-level call's arguments, where type variables make identities (Python's)
            if spec.overload_decorators and value_text and value_text[-1] == ")" and role == "local" and (
                    encl is None or encl.kind in _TYPE_KINDS) and (called := top_level_call(spec, node)) is not None:
                value_text, passed = called[0] or value_text, called[1]
            append((encl.sym.id if encl is not None else path, name, type_text, value_text, line, None, block))
            if passed is not None:
                append((encl.sym.id if encl is not None else path, name + ARGUMENTS, None, passed, line, None, block))
            if value_text in spec.self_names and encl is not None:  # `var self = this`
                aliases.add((encl.qual, name))
            # Closures see the names of the functions around them; a class body nested in a
            # function binds names of that function.
            key = id(encl)
            if key in functions:
                fn = functions[key]
            else:
                fn = encl
                while fn is not None and fn.kind not in _FUNCTION_KINDS:
                    fn = fn.parent
                functions[key] = fn
            # Outside any function, a closure's names are kept by its block (``Binding.block``).
            if fn is not None or block:
                # A narrowed name (Python's) is the block's: outside it, it is what it was.
                scoped = block if narrowed and spec.narrowing_calls else id(fn) if fn is not None else block
                bound = local_names.setdefault(scoped, {})
                bound[name] = bound.get(name, False) or type_text is not None or value_text is not None
                if block and spec.statement_scopes:  # a narrowed name is the whole block's
                    after = node.start_byte if narrowed else scope_start(node, spec.statement_scopes)
                    self._nested.setdefault(block, []).append((name, after))
        return local_names

    def _calls(self, ordered: list[_Def], calls: list, local_names: dict[int | str, dict[str, bool]],
               only_typed_locals: bool = False, args: dict | None = None) -> list[tuple]:
        """Calls (or values) with their callers and receivers, as rows of ``CallRef``.
        ``only_typed_locals``: leave out those through a local name no binding says anything
        about (for values, which are never resolved by a guess)."""
        out: list[tuple] = []
        if not calls:
            return out
        spec = self.spec
        self_names = spec.self_names
        super_names = spec.super_names
        postfix = spec.non_null_postfix
        sep = self.seps[0]
        path = self.path
        text = self.text
        name_chain = _NAME_CHAIN.match
        head_of = _HEAD.match
        starts = [node.start_byte for node, _ in calls]
        enclosing = self._enclosing_all(starts, symbols=True)
        blocks = self._block_paths(starts, enclosing)
        # Per enclosing definition: its receiver name, and the local names it sees, innermost first.
        receivers: dict[int, str | None] = {}
        visible: dict[int, list[dict[str, bool]]] = {}
        # A receiver name declared by a method (Go's ``func (s *T)``) anywhere in the file.
        any_self = any(d.self_name for d in ordered)
        append = out.append
        typed = None
        for (node, caps), start, encl, block in zip(calls, starts, enclosing, blocks):
            name_nodes = caps.get("name")
            rnodes = caps.get("receiver")
            if not name_nodes and rnodes is None:
                continue
            name = text(name_nodes[0]) if name_nodes else ""  # "": a call of the receiver's value
            caller = encl.sym.id if encl is not None else path
            rkind = RECEIVER_NONE
            receiver = None
            if rnodes:
                # A receiver captured in parts (C++ `a::B::f()`) is the path of its parts.
                rtext = text(rnodes[0]) if len(rnodes) == 1 else sep.join(text(n) for n in rnodes)
                if postfix:
                    rtext = without_postfix(rtext, postfix)
                rtext = self._requires.receiver(rtext, node.start_point[0] + 1)
                if rtext in super_names or (rtext[-1:] == ")" and rtext.partition("(")[0] + "()" in super_names):
                    rkind = RECEIVER_SUPER  # super() and the older super(Class, self)
                elif rtext in self_names or (any_self and encl is not None and receiver_of(encl, receivers) == rtext
                                             and not shadows_receiver(self._nested, rtext, block, start)):
                    rkind = RECEIVER_SELF
                elif name_chain(rtext):
                    rkind = RECEIVER_NAME
                    receiver = rtext
                else:
                    receiver = receiver_chain(spec, rnodes[0] if len(rnodes) == 1 else None, rtext)
                    rkind = RECEIVER_OTHER if receiver is None else RECEIVER_EXPR
            local = False
            if local_names and rkind in _LOCAL_KINDS:
                head = name if receiver is None else head_of(receiver).group(0)
                if block in self._nested:  # a name read before it is bound in its block is the one around
                    block = declared_after(self._nested, head, block, start)
                key = id(encl)
                seen = visible.get(key)
                if seen is None:
                    seen = visible_locals(encl, local_names, visible, self._blocks_around)
                for names in seen:  # closures see the enclosing functions' names
                    typed = names.get(head)
                    if typed is not None:
                        local = True
                        break
                around = block
                while around and not local:
                    typed = local_names.get(around, {}).get(head)
                    local = typed is not None
                    around = around.rpartition("/")[0]
                if local and only_typed_locals and not typed and head not in self_names:
                    continue
            call_args = args.get(node.end_byte, ()) if args else ()
            if call_args is None:  # lists ending at the same byte: told apart by their calls
                call_args = args.get((start, node.end_byte), ())
            elif node.type == "decorator" and args is not None:
                call_args = decorated_name(spec, node, text)  # `@dec def f`: `dec(f)`
            append((caller, name, rkind, receiver, node.start_point[0] + 1, local, call_args, block))
        return out

    def _inherits(self, refs: list) -> None:
        if not refs:
            return
        by_qual = {s.qualified_name: s for s in self.out.symbols}
        enclosing = self._enclosing_all([node.start_byte for _, node, _ in refs])
        for (kind, node, caps), encl in zip(refs, enclosing):
            name_nodes = caps.get("name")
            if not name_nodes:
                continue
            base = _GENERIC_ARGS.sub("", self.text(name_nodes[0])).strip()
            if "subject" in caps:
                subject = _GENERIC_ARGS.sub("", self.text(caps["subject"][0])).strip()
                subject = ".".join(p for p in re.split(r"\.|::", subject) if p)
                sym = by_qual.get(subject)
                type_id = sym.id if sym is not None else None
            else:
                while encl is not None and encl.kind not in _TYPE_KINDS:
                    encl = encl.parent
                if encl is None or encl.sym is None:
                    continue
                subject = encl.sym.qualified_name
                type_id = encl.sym.id
            self.out.inherits.append(InheritRef(type_id, subject, base, kind, node_line(name_nodes[0])))


def _at_top_level(parent: _Def | None) -> bool:
    while parent is not None:
        if parent.kind not in (SCOPE, "module"):
            return False
        parent = parent.parent
    return True
