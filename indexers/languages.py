"""The per-language table: what a grammar is called, where it comes from, and the few facts
a tree-sitter query cannot state (how imports name files, what ``self`` is called, how doc
comments look, which names are builtins).

Everything else about a language lives in ``indexers/queries/<name>.scm``. Adding a language
is adding a query file and one ``LanguageSpec`` below.
"""

from __future__ import annotations

import builtins as _py_builtins
import fnmatch
import importlib
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import tree_sitter

from graphsvc.errors import GraphsvcError
from indexers.query_text import split_root_patterns
from indexers.ts_syntax import readable, without_variance

QUERY_DIR = Path(__file__).parent / "queries"


class GrammarError(GraphsvcError):
    """A grammar or its query file could not be loaded."""


@dataclass(frozen=True, slots=True)
class MacroHints:
    """What a declaration may hold, for languages whose code is written for a preprocessor.

    Tree-sitter sees ``int ZEXPORT deflate(...)`` or ``local uch FAR *buf;`` without the
    macro definitions, and recovers with error nodes that hide the name. A declaration names
    at most one type, so bare words beyond that one (and a word between a ``*`` and the name)
    can only be macros; the extractor blanks them, byte for byte, before parsing again.
    """

    specifiers: frozenset[str]  # reserved words a declaration may hold (static, const)
    type_keywords: frozenset[str]  # words that name a type by themselves (int, unsigned)
    tag_keywords: frozenset[str]  # words followed by a tag name (struct, union, enum)
    keywords: frozenset[str]  # the other reserved words: where one is, no declaration is
    # ``name OF((params))``: an ALL_CAPS wrapper around a prototype's parameter list
    # (OF, _ANSI_ARGS_, __P), kept by old code for pre-ANSI compilers.
    prototype_wrappers: bool = True
    # Attribute and annotation macros, blanked with their argument list wherever they are
    # (``__user``, ``__init``, ``__printf(3, 4)``, ``__acquires(lock)``).
    annotations: frozenset[str] = frozenset()
    # Macros that define a function: (macro, prefix of the function's name), as
    # ``SYSCALL_DEFINE2(name, type, arg, type, arg) { ... }`` defines ``sys_name``.
    function_definers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class TestLayout:
    """Where a language's tests are by convention: file names (globs), directories (a path
    part, or parts joined by ``/``) and inline modules (a symbol inside a module of one of
    these names is a test, as Rust's ``mod tests``)."""

    files: tuple[str, ...] = ()
    dirs: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()

    def holds(self, path: str, qualified_name: str | None = None) -> bool:
        """Whether the file at ``path`` (repository-relative), or the symbol ``qualified_name``
        defined there, is a test."""
        name = path.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in self.files):
            return True
        where = "/" + path
        if any(f"/{d}/" in where for d in self.dirs):
            return True
        return bool(qualified_name) and any(part in self.modules for part in qualified_name.split(".")[:-1])


@dataclass(frozen=True, slots=True)
class BuildVariants:
    """Files left out of the default build (Go's build constraints): ``directive`` starts a
    line of the file's header whose expression of tags says whether it is built; ``tags``
    are the tags the default build sets, ``versions`` matches the release tags it sets too
    (all of them: the newest toolchain); a file name ending in ``_<word>`` (before the test
    suffix ``test``) of ``systems`` other than those set is built for another system only.
    ``legacy``: the older directive (``// +build a,b c``: options of terms), read when the
    file has no line of ``directive``."""

    directive: str
    tags: frozenset[str]
    versions: re.Pattern
    systems: frozenset[str]
    test: str = ""
    legacy: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    # How import strings turn into workspace files: a module system of indexers.resolve.modules.
    module_system: str
    package: str = ""  # the module that ships the grammar; tree_sitter_<name> when empty
    function: str = "language"  # the function in that package returning the language pointer
    # Receiver names that mean "this object" (Go names it per method with a @self capture instead).
    self_names: frozenset[str] = frozenset()
    super_names: frozenset[str] = frozenset()  # receiver texts that mean "the base classes of this object"
    # Files built only with other tags or for other systems: their definitions are alternatives of the default build's.
    build_variants: BuildVariants | None = None
    # Node types of a receiver that is a plain name (or a dotted chain of plain names).
    name_node_types: frozenset[str] = frozenset({"identifier"})
    # "docstring": the query captures a @doc string inside the body;
    # "comment": the comments directly above a definition are its doc.
    doc_style: str = "comment"
    comment_node_types: frozenset[str] = frozenset({"comment"})
    # What starts a line of a doc comment and is not part of the doc (the first that matches).
    comment_prefixes: tuple[str, ...] = ("///", "//!", "//", "/**", "/*!", "/*", "#")
    # Nodes that may sit between a doc comment and its definition (attributes, decorators).
    doc_skip_node_types: frozenset[str] = frozenset({"decorator", "attribute_item", "annotation", "marker_annotation"})
    # Separators used in qualified names as written (``a::b``, ``a.b``); ids use ".".
    scope_separators: tuple[str, ...] = (".",)
    # Names the language (or its standard runtime) provides without an import.
    builtins: frozenset[str] = frozenset()
    # Unqualified calls with no binding in scope or imports: may they still be matched
    # against a unique workspace-wide definition, and how sure is that?
    unique_name_confidence: float = 0.7
    # Names visible without import in every file of the same directory (Go packages,
    # Java packages); otherwise only the file and its imports.
    directory_scope: bool = False
    # May a type's methods be defined in any file (Rust `impl` blocks, C++ `T::m` definitions
    # in a source file), not only with the type?
    members_anywhere: bool = False
    # File stems that stand for their directory when it is imported (``__init__``, ``index``).
    package_files: tuple[str, ...] = ()
    # Extensions tried, in order, for an import that names a file without one.
    import_extensions: tuple[str, ...] = ()
    # Files whose definitions count as the implementation of an imported header.
    header_extensions: tuple[str, ...] = ()
    source_extensions: tuple[str, ...] = ()
    # Variables written in ALL_CAPS are constants where the language has no keyword for it.
    caps_are_constants: bool = False
    type_qualifiers: frozenset[str] = frozenset()  # `Final[T]` declares T; a bare `Final`, nothing
    # Inside a method, are the class's members callable without `this.` (Java, C++)?
    members_visible: bool = False
    # A type's body holds code (Python's class body, a JavaScript field's initializer): the names
    # defined in it are visible there. Not a Go struct's: a field's type is the package's.
    body_scope: bool = False
    # Does a function nested in a method see the method's receiver by its self name (an arrow
    # function's `this` is the `this` around it; Python's nested functions see `self`)?
    self_in_nested_functions: bool = False
    # Are comments among a bound call's arguments skipped when its chain is read (a lone
    # quote in one, `it's`, ends the chain otherwise)?
    values_skip_comments: bool = False
    # Does a method replace a same-named method of a base type (OVERRIDES edges)? Not where
    # "bases" are embedded fields whose methods are promoted (Go).
    overriding: bool = True
    # Declarations may carry macros the parser cannot expand (C, C++).
    macros: MacroHints | None = None
    # Values that bind a name to nothing (``None``, ``nil``): they leave its type open.
    null_literals: frozenset[str] = frozenset()
    # Node types of expressions that make a function no symbol stands for (Python's
    # ``lambda``): a name bound to one holds a function the graph does not have.
    anonymous_functions: frozenset[str] = frozenset()
    # Node types of conditional expressions (``a if c else b``), and the positions of their
    # branches among the node's named children: the value is what every branch agrees on.
    conditional_expressions: frozenset[str] = frozenset()
    conditional_branches: tuple[int, ...] = ()
    # Assignments that are expressions of the value they assign (``a = b = f``: ``a`` is ``f``).
    chained_assignments: frozenset[str] = frozenset()
    # Expressions whose value is their operand's, as far as calls on it go (``await f()``:
    # the coroutine's result is what a declared ``async def f() -> T`` says, a ``T``).
    await_expressions: frozenset[str] = frozenset()
    # The method that makes an object awaitable (Python's ``__await__``): `await f()` of a
    # function that is no coroutine gives what that method of its result gives.
    await_method: str = ""
    # Binary expressions whose value is one of their operands (``a or b``, ``a ?? b``): node
    # types, and the operators (node types of their ``operator`` field) that make them so.
    # Read as conditional expressions are: the value is what both operands agree on.
    either_expressions: frozenset[str] = frozenset()
    either_operators: frozenset[str] = frozenset()
    # Operators whose value is what a method of their (left) operand returns (Python's
    # ``a + b``: ``a.__add__(b)``): node types, and the method per operator (a unary
    # operator's key is "u" and the operator: ``~a`` is ``a.__invert__()``).
    operator_expressions: frozenset[str] = frozenset()
    operator_methods: dict[str, str] = field(default_factory=dict)
    # Builtins of their argument's elements by call node type: giving the same (`sorted(xs)`), numbered ones
    # (`enumerate(xs)`), paired ones (`zip(xs, ys)`), one (`max(xs)`), the next (`next(it)`); reading one (`xs[0]`).
    element_calls: dict[str, tuple[frozenset[str], ...]] = field(default_factory=dict)
    element_reads: frozenset[str] = frozenset()
    # Node types of literal containers whose entries are kept with a name bound to them
    # (``fs = [f, g]``, ``d = {"k": f}``): by position, or by a key of the literal types.
    sequence_literals: frozenset[str] = frozenset()
    mapping_literals: frozenset[str] = frozenset()
    literal_keys: frozenset[str] = frozenset()  # names as keys of an object literal, its members (JS `{a: f}.a`)
    comprehensions: frozenset[str] = frozenset()  # `[f for f in fs if f]`: a container of what its body is
    string_literal: str = ""
    string_type: str = ""  # the builtin type of a string literal (``"".join`` is ``str.join``)
    integer_literal: str = ""
    new_operator: str = ""  # the keyword of a constructor call (``new Foo()``): the value is what ``Foo()`` gives
    new_function: str = ""  # a builtin given a type that returns a new instance of it (Go ``new(T)``): ``T()``
    require_function: str = ""  # the call that gives a module by its name (CommonJS ``require("m").f()``)
    prototype_member: str = ""  # a constructor's member its instances share (``Foo.prototype.m``: Foo's m)
    # The function and attribute giving an instance's class (Python ``type(x)``, ``x.__class__``),
    # and the receiver names that are the class (``cls``): ``cls()`` is an instance of the receiver's.
    class_of: tuple[str, str] = ("", "")
    class_receivers: frozenset[str] = frozenset()
    # The name of a class's constructor method, whose parameters a class call passes to.
    constructor_name: str = ""
    # The method whose result ``with X as f`` binds to f (Python ``__enter__``).
    context_enter: str = ""
    context_enter_async: str = ""  # the same of ``async with`` (``__aenter__``)
    # A method's first parameter is its receiver, whatever its name (Python's).
    first_parameter_receiver: bool = False
    # The method that gives an instance's attributes its type does not define (``__getattr__``).
    attribute_fallback: str = ""
    # What a loop over an object calls: a method of the object, then one of what that
    # returns, whose result is each element (Python ``__iter__``, ``__next__``).
    iteration_methods: tuple[str, str] | None = None
    async_iteration: tuple[str, str] | None = None  # the same for ``async for`` (``__aiter__``, ``__anext__``)
    # Members are looked up in the C3 linearisation of the bases (Python's MRO) instead of level by level.
    linear_mro: bool = False
    # Every binding of a name declares a variable of its own (Go's `x := ...`, a closure's
    # parameters): the name is known only when all of them agree, a declared type does not
    # override the values of other bindings.
    bindings_declare: bool = False
    # Calls that test a name's type (Python's `isinstance`): the name has that type where the test holds
    # (`indexers.narrowing`). Such blocks scope no name but the one they narrow (the others are the function's).
    narrowing_calls: frozenset[str] = frozenset()
    # A later definition of a name in the same statement list replaces the earlier one
    # (Python): the earlier one is not a target. Nodes that wrap a definition there:
    redefinition_shadows: bool = False
    definition_wrappers: frozenset[str] = frozenset()
    # `indexers.alternatives`: what a version test compares (``sys.version_info``) and the nodes
    # it stops at; decorators of an overload's signatures; whether one name's definitions that a
    # later one does not replace are on branches (Python's; JS callbacks may each define one).
    version_tests: frozenset[str] = frozenset()
    version_test_scopes: frozenset[str] = frozenset()
    overload_decorators: frozenset[str] = frozenset()
    branch_alternatives: bool = False
    # A type name in a type never names a variable or function of that name (`interface A`
    # beside `const A`): all but Python, whose names are rebound at run time.
    types_apart: bool = True
    # Calls that apply a decorator by hand when a name defined in a statement list is bound
    # again there to its own value passed first through them (``X = wrap(X, ...)``,
    # ``f = staticmethod(f)``): the binding is the definition decorated, not another target.
    hand_decorator_calls: frozenset[str] = frozenset()
    # Conditions that hold only for type checkers (``if TYPE_CHECKING:``), and the node types
    # of such an ``if`` and of its ``else``: a name defined in both is the first one's.
    type_checking_guards: frozenset[str] = frozenset()
    type_checking_if: tuple[str, str] = ("", "")
    # Where the grammar's error recovery leaves the statements after an error at the top (`root_query`),
    # and the same-length rewrite of what the grammar cannot read, for a second parse (`ts_syntax`).
    recovered_root: str = ""
    rewrite: Callable[[bytes], bytes] | None = None
    # Decorators that make a method an attribute read (``@property``): reading it is calling it.
    property_decorators: frozenset[str] = frozenset()
    # Generic types whose (first) type argument is the type of their elements, and those
    # whose argument is a class itself (Python's ``Type[Foo]``).
    container_types: frozenset[str] = frozenset()
    # Generic types whose type arguments are the types of their elements by position
    # (``Tuple[A, B]``), unless the last is ``...`` (then they are containers as above).
    tuple_types: frozenset[str] = frozenset()
    # Go's results: a list (node type) of declarations (node type) with two or more types is a
    # tuple, written "(A, B)", whose elements a `a, b := f()` binds by position.
    result_lists: tuple[str, str] | None = None
    # Functions that cast their second argument to the type their first names, by the node
    # type of their calls (``typing.cast(Foo, x)``): an instance of that type.
    cast_calls: dict[str, frozenset[str]] = field(default_factory=dict, hash=False)
    # A subclass may bind a field of its base again (Python's class attributes): read through
    # ``self`` in the base, a field some subclass binds again is not known.
    fields_overridable: bool = False
    # A method read from a class is bound to it (classmethods): ``Sub.create()`` of an inherited
    # ``create`` returning ``cls(...)`` or ``Self`` makes a ``Sub``.
    class_methods: bool = False
    self_types: frozenset[str] = frozenset()  # type names meaning the receiver's type (``-> Self``)
    call_method: str = ""  # the method that calling an instance calls (Python's ``__call__``)
    # Bases from the typing modules that give a class no members to call (``Generic[T]``).
    memberless_bases: frozenset[str] = frozenset()
    # Methods of those containers that pass each element as the first argument of the
    # function they are given (``xs.map((x) => ...)``).
    element_callbacks: frozenset[str] = frozenset()
    # Methods of those containers that return one element (``xs.pop()``), or a container of
    # the same elements (``xs.slice()``).
    element_methods: frozenset[str] = frozenset()
    container_copies: frozenset[str] = frozenset()
    # Generic mapping types, the value type their last argument; the methods that look a value up.
    mapping_types: frozenset[str] = frozenset()
    mapping_lookups: frozenset[str] = frozenset()
    # A mapping's methods whose result holds its values (Python's `m.values()`) and its
    # (key, value) pairs (`m.items()`): "" for none.
    mapping_views: tuple[str, str] = ("", "")
    non_null_postfix: str = ""  # a postfix operator leaving its operand's value (TypeScript's `x!`)
    # Node types of casts (TypeScript's `x as Foo`) whose last named child is the type, and
    # the node types of the types a cast may name: the value is an instance of that type.
    cast_expressions: frozenset[str] = frozenset()
    named_types: frozenset[str] = frozenset()
    # Node types of array literals whose type is that of their elements when they agree
    # (TypeScript's checker keeps `[new Subject()]` a `Subject[]` whatever is pushed later).
    typed_arrays: frozenset[str] = frozenset()
    typed_literals: frozenset[str] = frozenset()  # literals that say their type (Go's composite literals)
    # Function types (`(x: A) => B`): a field so declared holds a function no method stands for.
    function_type: re.Pattern[str] | None = None
    # A property's type named through its owner's (TypeScript's `Opts<T>['form']`): owner, key.
    indexed_access_type: re.Pattern[str] | None = None
    type_queries: tuple[str, ...] = ()  # a value's type, and generics of what calling it gives
    # A property of an object type written out (`{ subs: Subscription; n?: number }`): its
    # name and declared type. A value of such a type has those properties.
    type_literal_member: re.Pattern[str] | None = None
    type_literal_keyword: str = ""  # what a written-out type starts with before its `{` (Go's `struct`)
    typing_modules: frozenset[str] = frozenset()  # modules of types about types (`typing`): no members
    class_types: frozenset[str] = frozenset()
    callable_types: frozenset[str] = frozenset()  # `Callable[[A], R]`: a function that gives an R
    # Containers written with syntax of their own (Go's ``[]T``, ``[n]T``, ``map[K]T``): the
    # pattern's first group is the element type.
    container_syntax: re.Pattern[str] | None = None
    # A declared container's element is read by a key of any kind (Go's ``m["k"]`` of a map).
    keyed_elements: bool = False
    # A name bound in a nested block is a new one from the end of the statement binding it: the
    # node types whose children are statements or a statement's clauses (Go's).
    statement_scopes: frozenset[str] = frozenset()
    # Builtins whose result is of a type their arguments give (Go's `new(T)`, `make`,
    # `append`): what such a call returns is not known, unlike other builtins' results.
    typed_builtins: frozenset[str] = frozenset()
    # Methods of a type that answer any attribute (``__getattr__``): a member not found is then unknown, not missing.
    dynamic_members: frozenset[str] = frozenset()
    # Files of this language whose bytes match the pattern are another language's (a `.h`
    # header with classes or namespaces is C++): (pattern, language).
    dialect: tuple[LinePattern, str] | None = None
    # Which files and symbols are tests (what an impact answer lists as tests reached).
    tests: TestLayout = TestLayout()
    extra: dict = field(default_factory=dict, hash=False, compare=False)

    def __post_init__(self):
        if not self.package:
            object.__setattr__(self, "package", f"tree_sitter_{self.name}")

    @property
    def query_path(self) -> Path:
        return QUERY_DIR / f"{self.name}.scm"

    def load(self) -> tree_sitter.Language:
        return _load_language(self.name)

    def query(self) -> tree_sitter.Query:
        """The patterns of the query file that may match anywhere in a file."""
        return _load_query(self.name)[0]

    def root_query(self) -> tree_sitter.Query | None:
        """The patterns rooted at the grammar's root node (``(module (expression_statement
        ...))``: what a file's top-level statements define), or None when there are none.
        They run apart, in a cursor that starts matches at the root only: in one cursor with
        the other patterns, each of their matches stays under way over the whole file, and
        every node visited is tried against it. With `recovered_root`, the same patterns
        rooted at that node type follow (for the statements after an error, `grouped_matches`)."""
        return _load_query(self.name)[1]


class LinePattern:
    """A pattern searched for at the start of every line, as ``re.M``'s ``^pattern`` would be,
    but from the line breaks: a pattern led by ``^`` is tried at every byte of the text, one led
    by a line break only where the engine's literal search stops."""

    def __init__(self, pattern: bytes, flags: int = 0):
        self._first = re.compile(pattern, re.M | flags)
        self._later = re.compile(rb"\n" + pattern, re.M | flags)

    def search(self, data: bytes) -> bool:
        return self._first.match(data) is not None or self._later.search(data) is not None

    def finditer(self, data: bytes) -> Iterator[tuple[int, re.Match[bytes]]]:
        """The matches ``finditer`` of ``^pattern`` gives, each with the offset of its line's
        start: the match of a later line also holds the line break before it."""
        first = self._first.match(data)
        pos = 0
        if first is not None:
            yield 0, first
            pos = first.end()
        for m in self._later.finditer(data, pos):
            yield m.start() + 1, m


# Lines only C++ writes (C has no such keywords): a class or namespace head (names, macros,
# a base clause; not prose in a comment), a template, an access label.
_CPP_ONLY = LinePattern(
    rb"[ \t]*(?:class(?:[ \t]+[\w:]+)+[ \t]*(?::[^;.]*)?[{;]?[ \t]*$"
    rb"|namespace[ \t]+\w+[^;<>'\".]*$|template[ \t]*<|(?:public|private|protected)[ \t]*:)"
)

_PY_BUILTINS = frozenset(dir(_py_builtins)) | {"__import__", "super"}

_JS_BUILTINS = frozenset(
    """require console parseInt parseFloat isNaN isFinite setTimeout setInterval clearTimeout
    clearInterval setImmediate queueMicrotask structuredClone fetch alert encodeURIComponent
    decodeURIComponent encodeURI decodeURI eval Symbol Object Array String Number Boolean
    Promise Map Set WeakMap WeakSet Date RegExp Error TypeError RangeError JSON Math Reflect
    Proxy BigInt atob btoa string number boolean bigint symbol object void never""".split()
)

# GOOS and GOARCH values a Go file name may end in (`x_windows.go`, `x_linux_arm64_test.go`).
_GO_SYSTEMS = frozenset({
    "aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js", "linux", "nacl",
    "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos", "386", "amd64", "amd64p32", "arm",
    "arm64", "arm64be", "armbe", "loong64", "mips", "mips64", "mips64le", "mips64p32", "mips64p32le", "mipsle",
    "ppc", "ppc64", "ppc64le", "riscv", "riscv64", "s390", "s390x", "sparc", "sparc64", "wasm"})
_GO_BUILTINS = frozenset(
    """append cap clear close complex copy delete imag len make max min new panic print println
    real recover string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr
    float32 float64 byte rune bool error any complex64 complex128""".split()
)

_RUST_BUILTINS = frozenset("""Some None Ok Err Box Vec String Option Result drop panic println print format vec
    assert assert_eq write writeln Default""".split())

_C_BUILTINS = frozenset(
    """printf fprintf sprintf snprintf vprintf vfprintf vsnprintf puts fputs putchar fputc getc
    fgetc fgets fopen fclose fread fwrite fflush fseek ftell malloc calloc realloc free memcpy
    memmove memset memcmp strlen strcmp strncmp strcpy strncpy strcat strncat strchr strrchr
    strstr strdup strtol strtoul strtod atoi atol atof abs exit abort assert sizeof qsort bsearch
    isalpha isdigit isspace isalnum toupper tolower va_start va_end va_arg perror errno
    offsetof""".split()
)

_CPP_BUILTINS = _C_BUILTINS | frozenset("""static_cast dynamic_cast reinterpret_cast const_cast move forward
    make_shared make_unique swap begin end size""".split())

_JAVA_BUILTINS = frozenset()
_C_TYPE_KEYWORDS = frozenset("void char short int long float double signed unsigned _Bool _Complex bool".split())
_C_TAG_KEYWORDS = frozenset({"struct", "union", "enum"})
_C_SPECIFIERS = frozenset(
    """auto const extern inline register restrict static typedef volatile _Alignas _Atomic
    _Noreturn _Thread_local constexpr thread_local""".split()
)
# With the <iso646.h> spellings of operators, which read as words.
_C_KEYWORDS = frozenset(
    """break case continue default do else for goto if return sizeof switch while _Alignof
    _Generic _Static_assert alignof alignas nullptr static_assert typeof typeof_unqual true false
    and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq""".split()
)
# The Linux kernel's (include/linux/compiler*.h, init.h): sparse annotations, sections,
# attributes and lock-context annotations.
_C_ANNOTATIONS = frozenset(
    """__user __kernel __iomem __rcu __percpu __force __bitwise __nocast __safe __private
    __must_check __init __exit __initdata __initconst __exitdata __ref __refdata __meminit
    __init_or_module __net_init __net_exit __net_initdata __cold __hot __packed __always_inline
    __noinline noinline __maybe_unused __always_unused __used __weak __read_mostly
    __ro_after_init __latent_entropy __randomize_layout __no_randomize_layout __designated_init
    __visible __noreturn notrace __pure __attribute_const__ __malloc __nocfi __noclone __flatten
    __naked __deprecated __sched __lockfunc __kprobes __irq_entry __softirq_entry noinstr
    __cacheline_aligned __cacheline_aligned_in_smp ____cacheline_aligned
    ____cacheline_aligned_in_smp __page_aligned_data __page_aligned_bss __nonstring
    __must_hold __acquires __releases __printf __scanf __aligned __section __alloc_size
    __counted_by __cleanup __no_sanitize_address __no_kcsan __nostackprotector
    __compiletime_error __compiletime_warning""".split()
)
_C_MACROS = MacroHints(
    specifiers=_C_SPECIFIERS, type_keywords=_C_TYPE_KEYWORDS, tag_keywords=_C_TAG_KEYWORDS, keywords=_C_KEYWORDS,
    annotations=_C_ANNOTATIONS,
    function_definers=tuple((f"{compat}SYSCALL_DEFINE{n}", f"{compat.lower()}sys_")
                            for compat in ("", "COMPAT_") for n in range(7)),
)
_CPP_MACROS = MacroHints(
    specifiers=_C_SPECIFIERS | frozenset(
        "consteval constinit explicit export friend mutable virtual".split()
    ),
    type_keywords=_C_TYPE_KEYWORDS | frozenset({"wchar_t", "char8_t", "char16_t", "char32_t"}),
    tag_keywords=_C_TAG_KEYWORDS | frozenset({"class", "typename"}),
    keywords=_C_KEYWORDS | frozenset(
        """asm catch co_await co_return co_yield concept const_cast decltype delete dynamic_cast
        namespace new noexcept operator private protected public reinterpret_cast requires
        static_cast template this throw try typeid using""".split()
    ),
)

_LINE_AND_BLOCK_COMMENTS = frozenset({"line_comment", "block_comment"})  # grammars that tell them apart (Rust, Java)

# JavaScript, TypeScript and TSX differ only in their grammar: imports, receivers and builtins are the same.
_JS_FAMILY = dict(
    module_system="js", require_function="require", prototype_member="prototype", null_literals=frozenset({"null", "undefined"}),
    mapping_literals=frozenset({"object"}), literal_keys=frozenset({"property_identifier", "shorthand_property_identifier"}),
    new_operator="new", constructor_name="constructor", recovered_root="statement_block",
    # Overloads and merged declarations are one name with the last definition (a function's
    # implementation). `Foo[]`, `Array<Foo>`, `Set<Foo>`: their elements are `Foo` (`for ... of`).
    container_syntax=re.compile(r"^(.+)\[\]$", re.S),
    element_calls={"call_expression": (frozenset({"Array.from"}), *[frozenset()] * 4)},  # of the same elements
    container_types=frozenset("Array ReadonlyArray Set ReadonlySet Iterable IterableIterator Generator".split()),
    element_callbacks=frozenset("map forEach filter find findLast findIndex findLastIndex some every flatMap".split()),
    element_methods=frozenset("shift pop at find findLast".split()),
    container_copies=frozenset("slice filter concat reverse sort toReversed toSorted".split()),
    mapping_types=frozenset("Map ReadonlyMap WeakMap".split()), mapping_lookups=frozenset({"get"}), non_null_postfix="!",
    self_types=frozenset({"this"}),  # `min(n: number): this`
    function_type=re.compile(r"^\(.*=>", re.S),
    type_queries=("typeof ", "ReturnType", "InstanceType"),  # `ReturnType<typeof make>`
    indexed_access_type=re.compile(r"^(.+?)\[\s*(['\"])([A-Za-z_$][\w$]*)\2\s*\]$", re.S),
    type_literal_member=re.compile(r"^(?:readonly\s+)?([A-Za-z_$][\w$]*)\??\s*:\s*(\S.*)$", re.S),
    conditional_expressions=frozenset({"ternary_expression"}),
    conditional_branches=(1, 2),
    either_expressions=frozenset({"binary_expression"}),
    await_expressions=frozenset({"await_expression"}),
    body_scope=True,  # a field's initializer is code in the class body
    chained_assignments=frozenset({"assignment_expression"}),
    either_operators=frozenset({"||", "??"}),
    redefinition_shadows=True,
    definition_wrappers=frozenset({"export_statement", "ambient_declaration", "lexical_declaration",
                                   "variable_declaration"}),
    self_names=frozenset({"this"}),
    self_in_nested_functions=True,
    values_skip_comments=True,
    super_names=frozenset({"super"}),
    name_node_types=frozenset({"identifier", "this", "super"}),
    builtins=_JS_BUILTINS,
    package_files=("index",),
    # TypeScript imports name the compiled file (`./a.js` for a.ts): sources come first.
    import_extensions=(".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts"),
    tests=TestLayout(files=("*.test.*", "*.spec.*"), dirs=("__tests__",)),
)

# What TypeScript's checker makes of a value: a cast to a named type (`(x as Foo).m()`), an
# array literal of one element type.
_TS_TYPES = dict(cast_expressions=frozenset({"as_expression"}),
                 named_types=frozenset({"type_identifier", "generic_type", "nested_type_identifier"}),
                 typed_arrays=frozenset({"array"}))

LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            name="python",
            extensions=(".py", ".pyi"),
            module_system="python",
            package_files=("__init__",),
            self_names=frozenset({"self", "cls"}),
            class_of=("type", "__class__"),
            class_receivers=frozenset({"cls"}),
            super_names=frozenset({"super()"}),
            doc_style="docstring",
            builtins=_PY_BUILTINS,
            null_literals=frozenset({"None"}),
            anonymous_functions=frozenset({"lambda"}),
            conditional_expressions=frozenset({"conditional_expression"}),
            conditional_branches=(0, 2),
            either_expressions=frozenset({"boolean_operator"}),
            await_expressions=frozenset({"await"}),
            await_method="__await__",
            chained_assignments=frozenset({"assignment"}),
            either_operators=frozenset({"or"}),
            operator_expressions=frozenset({"binary_operator", "unary_operator"}),
            mapping_types=frozenset("dict Dict Mapping MutableMapping OrderedDict defaultdict DefaultDict".split()),
            mapping_lookups=frozenset({"get", "pop", "setdefault"}),
            mapping_views=("values", "items"),
            element_calls={"call": tuple(frozenset(names.split()) for names in (
                "list tuple sorted reversed set frozenset iter", "enumerate", "zip", "max min", "next"))},
            element_methods=frozenset({"__next__"}), element_reads=frozenset({"subscript"}),
            operator_methods={"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__", "//": "__floordiv__",
                              "%": "__mod__", "**": "__pow__", "@": "__matmul__", "&": "__and__", "|": "__or__",
                              "^": "__xor__", "<<": "__lshift__", ">>": "__rshift__", "u~": "__invert__",
                              "u-": "__neg__", "u+": "__pos__"},
            sequence_literals=frozenset({"list", "tuple", "expression_list"}),
            mapping_literals=frozenset({"dictionary"}),
            comprehensions=frozenset({"list_comprehension", "set_comprehension", "generator_expression"}),
            string_literal="string",
            string_type="str",
            integer_literal="integer",
            iteration_methods=("__iter__", "__next__"),
            async_iteration=("__aiter__", "__anext__"),
            context_enter="__enter__",
            context_enter_async="__aenter__",
            attribute_fallback="__getattr__",
            first_parameter_receiver=True,
            linear_mro=True,
            narrowing_calls=frozenset({"isinstance"}),
            dynamic_members=frozenset({"__getattr__", "__getattribute__"}),
            # A context manager of X is read as a generator made one is: entering it gives X.
            container_types=frozenset(
                """List list Sequence MutableSequence Iterable Iterator Collection Set set FrozenSet
                frozenset AbstractSet MutableSet Tuple tuple Deque deque Generator AsyncIterator
                AsyncIterable KeysView ValuesView ContextManager AsyncContextManager
                AbstractContextManager AbstractAsyncContextManager""".split()
            ),
            tuple_types=frozenset({"Tuple", "tuple"}),
            memberless_bases=frozenset({"Generic", "Protocol"}),
            call_method="__call__",
            fields_overridable=True,
            body_scope=True,
            self_types=frozenset({"Self"}),
            class_methods=True,
            cast_calls={"call": frozenset({"cast"})},
            type_checking_guards=frozenset({"TYPE_CHECKING", "typing.TYPE_CHECKING"}),
            type_checking_if=("if_statement", "else_clause"),
            class_types=frozenset({"Type", "type"}), callable_types=frozenset({"Callable"}),
            typing_modules=frozenset({"typing", "typing_extensions", "collections.abc", "types"}),
            redefinition_shadows=True,
            definition_wrappers=frozenset({"decorated_definition"}),
            version_tests=frozenset({"sys.version_info"}),
            version_test_scopes=frozenset({"function_definition", "class_definition"}),
            overload_decorators=frozenset({"overload", "typing.overload", "typing_extensions.overload"}),
            branch_alternatives=True, types_apart=False,
            type_qualifiers=frozenset("Final ClassVar Annotated Required NotRequired ReadOnly".split()),
            hand_decorator_calls=frozenset({"call"}),
            property_decorators=frozenset({"property", "cached_property", "abstractproperty"}),
            # An unqualified name that is neither defined nor imported in a Python module can
            # only come from a star import or be an error, so a workspace-wide match is weak.
            unique_name_confidence=0.5,
            caps_are_constants=True, self_in_nested_functions=True,
            values_skip_comments=True,
            tests=TestLayout(files=("test_*.py", "*_test.py", "conftest.py"), dirs=("tests", "test")),
        ),
        LanguageSpec(
            name="javascript",
            extensions=(".js", ".mjs", ".cjs", ".jsx"),
            **_JS_FAMILY,
        ),
        LanguageSpec(
            name="typescript",
            extensions=(".ts", ".mts", ".cts"),
            package="tree_sitter_typescript",
            function="language_typescript", rewrite=readable,
            **_JS_FAMILY,
            **_TS_TYPES,
        ),
        LanguageSpec(
            name="tsx",
            extensions=(".tsx",),
            package="tree_sitter_typescript",
            function="language_tsx", rewrite=without_variance,
            **_JS_FAMILY,
            **_TS_TYPES,
        ),
        LanguageSpec(
            name="go",
            extensions=(".go",),
            module_system="go",
            builtins=_GO_BUILTINS,
            directory_scope=True,
            overriding=False,
            null_literals=frozenset({"nil"}),
            bindings_declare=True,
            typed_builtins=frozenset({"new", "make", "append", "min", "max"}),
            new_function="new",
            container_syntax=re.compile(r"^(?:\[[^\]]*\]|map\[[^\]]*\])\s*(\S.*)$", re.S),
            keyed_elements=True,
            type_literal_member=re.compile(r"^([A-Za-z_]\w*)\s+(\S[^`]*?)\s*(?:`.*)?$", re.S),
            type_literal_keyword="struct",
            typed_literals=frozenset({"composite_literal"}),
            statement_scopes=frozenset({
                "block", "statement_list", "source_file", "for_statement", "if_statement", "func_literal",
                "expression_switch_statement", "type_switch_statement", "select_statement", "communication_case",
                "expression_case", "type_case", "default_case"}),
            tests=TestLayout(files=("*_test.go",)),
            build_variants=BuildVariants(
                "//go:build", frozenset({"linux", "unix", "amd64", "gc", "cgo"}), re.compile(r"go1\.\d+"),
                _GO_SYSTEMS, "test", "// +build"),
            result_lists=("parameter_list", "parameter_declaration"),
        ),
        LanguageSpec(
            name="rust",
            extensions=(".rs",),
            module_system="rust",
            package_files=("mod", "lib", "main"),
            self_names=frozenset({"self", "Self"}),
            name_node_types=frozenset({"identifier", "self", "scoped_identifier", "crate", "super"}),
            comment_node_types=_LINE_AND_BLOCK_COMMENTS,
            scope_separators=("::",),
            builtins=_RUST_BUILTINS,
            members_anywhere=True,
            tests=TestLayout(dirs=("tests",), modules=("tests",)),
        ),
        LanguageSpec(
            name="java",
            extensions=(".java",),
            module_system="java",
            self_names=frozenset({"this"}),
            super_names=frozenset({"super"}),
            name_node_types=frozenset({"identifier", "this", "super", "field_access"}),
            comment_node_types=_LINE_AND_BLOCK_COMMENTS,
            builtins=_JAVA_BUILTINS,
            members_visible=True,
            directory_scope=True,
            tests=TestLayout(dirs=("src/test",)),
        ),
        LanguageSpec(
            name="c",
            extensions=(".c", ".h"),
            module_system="include",
            builtins=_C_BUILTINS,
            # C has one global namespace for functions, so a unique definition is very
            # likely the one the linker picks.
            unique_name_confidence=0.9,
            header_extensions=(".h",),
            source_extensions=(".c",),
            macros=_C_MACROS,
            dialect=(_CPP_ONLY, "cpp"),
        ),
        LanguageSpec(
            name="cpp",
            extensions=(".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp"),
            module_system="include",
            self_names=frozenset({"this"}),
            name_node_types=frozenset({"identifier", "this", "namespace_identifier", "qualified_identifier"}),
            scope_separators=("::",),
            builtins=_CPP_BUILTINS,
            members_visible=True,
            unique_name_confidence=0.8,
            header_extensions=(".h", ".hpp", ".hh", ".hxx", ".h++"),
            source_extensions=(".cpp", ".cc", ".cxx", ".c++"),
            macros=_CPP_MACROS,
            members_anywhere=True,
        ),
    )
}

_BY_EXTENSION: dict[str, str] = {}
for _spec in LANGUAGES.values():
    for _ext in _spec.extensions:
        _BY_EXTENSION.setdefault(_ext, _spec.name)


def language_for_content(spec: LanguageSpec, data: bytes) -> LanguageSpec:
    """The language a file's bytes are written in, where its extension leaves a choice."""
    if spec.dialect is not None and spec.dialect[0].search(data):
        return LANGUAGES[spec.dialect[1]]
    return spec


def language_for_path(path: str) -> LanguageSpec | None:
    """The language of a file by its extension, or None when we do not index it."""
    ext = posixpath.splitext(path)[1].lower()
    name = _BY_EXTENSION.get(ext)
    return LANGUAGES[name] if name else None


def get_language(name: str) -> LanguageSpec:
    try:
        return LANGUAGES[name]
    except KeyError:
        raise GrammarError(f"unknown language {name!r}; known: {', '.join(sorted(LANGUAGES))}") from None


@cache
def _load_language(name: str) -> tree_sitter.Language:
    spec = get_language(name)
    try:
        module = importlib.import_module(spec.package)
        return tree_sitter.Language(getattr(module, spec.function)())
    except Exception as exc:  # any failure here means the wheel is missing or broken
        raise GrammarError(
            f"cannot load the tree-sitter grammar for {name}: {spec.package}.{spec.function}() "
            f"failed ({exc}); install the pinned wheel {spec.package.replace('_', '-')}"
        ) from exc


@cache
def _load_query(name: str) -> tuple[tree_sitter.Query, tree_sitter.Query | None]:
    """The query file compiled as two queries: the patterns that may match anywhere, and those
    rooted at the grammar's root node (`LanguageSpec.root_query`, `recovered_root` after them)."""
    spec = get_language(name)
    language = spec.load()
    root_type = tree_sitter.Parser(language).parse(b"").root_node.type
    anywhere, at_root = split_root_patterns(query_source(name), root_type)
    if at_root and spec.recovered_root:
        at_root += re.sub(rf"\(\s*{re.escape(root_type)}(?![\w.])", f"({spec.recovered_root}", at_root)
    try:
        return tree_sitter.Query(language, anywhere), tree_sitter.Query(language, at_root) if at_root else None
    except Exception as exc:
        raise GrammarError(f"query file {spec.query_path} does not compile against {spec.package}: {exc}") from exc


def query_source(name: str, _seen: tuple[str, ...] = ()) -> str:
    """The query text of a language, or of a shared query file (``ecma``, ``c-common``).

    A first line ``; inherits: a, b`` (the nvim-treesitter convention, which py-tree-sitter
    does not implement) prepends those files' queries, themselves resolved the same way:
    TSX reuses TypeScript's queries, JavaScript and TypeScript share ``ecma.scm``.
    """
    path = LANGUAGES[name].query_path if name in LANGUAGES else QUERY_DIR / f"{name}.scm"
    if name not in LANGUAGES and not _QUERY_NAME.fullmatch(name):
        raise GrammarError(f"query inheritance names no query file: {name!r} in {QUERY_DIR / (_seen[-1] + '.scm')}")
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GrammarError(f"cannot read the query file for {name}: {path}: {exc}") from exc
    first = source.split("\n", 1)[0].strip()
    if first.startswith("; inherits:"):
        parts = []
        for base in first.split(":", 1)[1].split(","):
            base = base.strip()
            if base in _seen or base == name:
                raise GrammarError(f"query inheritance loop in {path}: {base}")
            parts.append(query_source(base, (*_seen, name)))
        source = "\n".join([*parts, source])
    return source


_QUERY_NAME = re.compile(r"[a-z][a-z0-9-]*")


@cache
def parser_for(name: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(_load_language(name))
