"""Macros in C and C++ declarations, blanked before a second parse.

Tree-sitter parses ``int ZEXPORT deflate(...)`` without the macro definitions and recovers
with error nodes that hide the name. ``blank_macros`` finds, with a token scan and the
language's ``MacroHints``, the words of a declaration that can only be macros and replaces
them with spaces, byte for byte, so offsets, lines and names stay those of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from indexers.languages import MacroHints

_C_TOKEN = re.compile(
    rb"""(?P<comment>/\*.*?(?:\*/|\Z)|//(?:\\\n|[^\n])*)
    |(?P<directive>^[ \t]*\#(?:/\*.*?\*/|\\.|[^\n])*)
    |(?P<literal>"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?|[0-9][\w.]*(?:\s*,\s*[0-9][\w.]*)*)
    |(?P<word>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<punct>\S)""",
    re.S | re.M | re.X,
)
# Tokens after which a declaration may begin, and tokens that may end a declarator's name.
_DECL_START = frozenset({b";", b"{", b"}", b"(", b","})
_NAME_END = frozenset({b"(", b"[", b"=", b";", b",", b")"})
_TYPE_END = frozenset({b",", b")"})


def blank_macros(data: bytes, hints: MacroHints) -> bytes:
    """``data`` with the macros of declarations replaced by spaces, byte for byte.

    A declaration head is the run of words and ``*`` from where a declaration may begin up to
    the declared name. It names one type: either type keywords (``unsigned char``,
    ``struct tag``) or one type name. Other bare words in it are macros: all of them next to a
    type keyword, all but one type name otherwise (the last not written in capitals: in
    ``local ptr_table t``, ``uch FAR *p`` and ``ZEXTERN uLong ZEXPORT f(...)`` the type is
    ``ptr_table``, ``uch``, ``uLong``), and a word between a ``*`` and the name. Comments,
    literals and preprocessor lines are left alone. An ALL_CAPS word between a name and ``((`` is a
    prototype wrapper: it and its outer parentheses are blanked. Types without a name (casts,
    unnamed parameters) are read the same way.
    """
    tokens = [(m.lastgroup, m.group(), m.start()) for m in _C_TOKEN.finditer(data)
              if m.lastgroup != "comment"]
    words = _macro_words(hints)
    reserved = words.reserved
    blank: list[tuple[int, int]] = []
    head: list[tuple[bytes, int]] | None = []
    for i, (kind, text, start) in enumerate(tokens):
        if kind == "word":
            if (hints.prototype_wrappers and text.isupper() and i + 2 < len(tokens)
                    and tokens[i + 1][1] == b"(" and tokens[i + 2][1] == b"("
                    and i > 0 and tokens[i - 1][0] == "word" and tokens[i - 1][1] not in reserved):
                close = _matching_paren(tokens, i + 1)
                if close is not None:
                    blank += [(start, tokens[i + 1][2] + 1), (tokens[close][2], tokens[close][2] + 1)]
            elif head is not None:
                head.append((text, start))
            continue
        if kind == "punct" and text == b"*":
            if head is not None:
                head.append((text, start))
            continue
        if head and kind == "punct" and text in _NAME_END:
            if head[-1][0] == b"*":
                if text in _TYPE_END:  # a type without a name: `(uch FAR *)p`, `f(void FAR *, int)`
                    blank += _head_macros(head, words)
            elif head[-1][0] not in reserved:
                blank += _head_macros(head[:-1], words)
        head = [] if kind == "directive" or (kind == "punct" and text in _DECL_START) else None
    if not blank:
        return data
    out = bytearray(data)
    for start, end in blank:
        out[start:end] = b" " * (end - start)
    return bytes(out)


@dataclass(frozen=True, slots=True)
class _MacroWords:
    """A language's ``MacroHints`` as byte strings, the form the token scan compares."""

    reserved: frozenset[bytes]  # every reserved word
    types: frozenset[bytes]  # type and tag keywords
    tags: frozenset[bytes]
    not_in_declarations: frozenset[bytes]
    specifiers: frozenset[bytes] = frozenset()
    annotations: frozenset[bytes] = frozenset()
    definers: dict[bytes, str] = field(default_factory=dict)  # function-defining macro -> name prefix


@cache
def _macro_words(hints: MacroHints) -> _MacroWords:
    def b(words: frozenset[str]) -> frozenset[bytes]:
        return frozenset(w.encode() for w in words)

    types = b(hints.type_keywords) | b(hints.tag_keywords)
    return _MacroWords(types | b(hints.specifiers) | b(hints.keywords), types, b(hints.tag_keywords),
                       b(hints.keywords), b(hints.specifiers), b(hints.annotations),
                       {m.encode(): prefix for m, prefix in hints.function_definers})


def _head_macros(head: list[tuple[bytes, int]], words: _MacroWords) -> list[tuple[int, int]]:
    """Byte ranges of the words of a declaration head (the name excluded) that are macros."""
    before: list[tuple[bytes, int]] = []  # bare words before the first `*`
    after: list[tuple[bytes, int]] = []  # bare words after it, followed by a word
    typed = False
    pointer = False
    previous = b""
    for k, (text, start) in enumerate(head):
        if text in words.not_in_declarations:
            return []  # `return a * b`, `if (x and y)`: an expression
        if text == b"*":
            pointer = True
        elif text in words.types:
            typed = True
        elif text not in words.reserved and previous not in words.tags:
            if not pointer:
                before.append((text, start))
            elif k + 1 == len(head) or head[k + 1][0] != b"*":
                after.append((text, start))  # `* ZEXPORT name`, not `a * N * b`
        previous = text
    if not typed and before:
        lower = [w for w in before if not w[0].isupper()]
        keep = lower[-1] if lower else before[0]
        before = [w for w in before if w is not keep]
    return [(start, start + len(text)) for text, start in before + after]


def _matching_paren(tokens: list[tuple[str, bytes, int]], open_at: int) -> int | None:
    depth = 0
    for j in range(open_at, len(tokens)):
        text = tokens[j][1]
        if text == b"(":
            depth += 1
        elif text == b")":
            depth -= 1
            if depth == 0:
                return j
    return None


# Words followed by a parenthesised head that is not a call (va_arg takes a type, which the
# grammar knows), in C.
_STATEMENT_HEADS = frozenset({b"if", b"for", b"while", b"switch", b"return", b"sizeof", b"do", b"else", b"case",
                              b"goto", b"typeof", b"__typeof__", b"__typeof", b"_Generic", b"__attribute__",
                              b"__attribute", b"asm", b"__asm__", b"__asm", b"defined", b"_Static_assert",
                              b"static_assert", b"__builtin_types_compatible_p", b"_Alignof", b"alignof",
                              b"__alignof__", b"va_arg", b"__builtin_va_arg", b"__builtin_offsetof"})
_AFTER_STATEMENT = frozenset({b";", b"{", b"}", b":"})


def expand_kernel_macros(data: bytes, hints: MacroHints) -> bytes:
    """``data`` with the macro forms of Linux-style C rewritten, byte for byte, into C.

    - annotation macros (``__user``, ``__init``, ``__printf(3, 4)``, ``__acquires(x)``: the
      language's ``MacroHints.annotations``) are blanked with their argument list;
    - a call at statement position followed by ``{`` or by another statement
      (``list_for_each_entry(pos, head, member) {``) is a loop head: its name becomes ``while``
      (``if`` when shorter than five letters);
    - a type given as a call's argument (``container_of(p, struct foo, m)``,
      ``min_t(unsigned int, a, b)``) loses its keywords and ``*``: ``foo`` stays, a type of
      keywords only becomes ``0``;
    - a function-defining macro (``SYSCALL_DEFINE3(name, type, arg, ...)``, the hints'
      ``function_definers``) becomes ``long sys_name(type arg, ...)``;
    - a macro call at file scope without ``;`` (``module_init(f)``) is blanked.

    Only the kernel's conventions are assumed, none of its headers; every other byte is kept,
    so lines, columns and the names of everything else stay those of the file.
    """
    data = _inner_conditionals(data)
    tokens = [(m.lastgroup, m.group(), m.start()) for m in _C_TOKEN.finditer(data)
              if m.lastgroup not in ("comment", "directive")]
    words = _macro_words(hints)
    annotations = words.annotations
    out = bytearray(data)

    def blank(start: int, end: int) -> None:
        out[start:end] = b" " * (end - start)

    closing = _closing_parens(tokens)
    depth = 0  # braces
    i = 0
    n = len(tokens)
    blanked_call = -1  # index of the token after a blanked file-scope call: a statement starts there
    while i < n:
        kind, text, start = tokens[i]
        if kind == "punct":
            if text == b"{":
                depth += 1
            elif text == b"}":
                depth = max(depth - 1, 0)
            i += 1
            continue
        if kind != "word":
            i += 1
            continue
        nxt = tokens[i + 1][1] if i + 1 < n else b""
        if text in annotations:
            end = start + len(text)
            if nxt == b"(" and (close := closing.get(i + 1)) is not None:
                end = tokens[close][2] + 1
                blank(start, end)
                i = close + 1
            else:
                blank(start, end)
                i += 1
            continue
        if nxt != b"(" or text in words.reserved or text in _STATEMENT_HEADS:
            i += 1
            continue
        close = closing.get(i + 1)
        if close is None:
            i += 1
            continue
        if text == b"offsetof":  # the grammar's offsetof takes no member path: `(X, a.b[i])`
            blank(start, start + len(text))
            _type_arguments(out, tokens, i + 1, close, words)
            i += 1
            continue
        prev = tokens[i - 1][1] if i > 0 and i != blanked_call else b";"
        after = tokens[close + 1] if close + 1 < n else None
        definer = words.definers.get(text) if depth == 0 else None
        if definer is not None and after is not None and after[1] == b"{":
            _define_function(out, tokens, i, close, definer)
            i = close + 1
            continue
        if prev in words.specifiers and after is not None and after[1] == b";":
            _define_variable(out, tokens, i, close, words)  # `static DEFINE_X(name, ...);`
            i = close + 1
            continue
        at_statement = prev in _AFTER_STATEMENT or prev == b"else" or i == 0
        if depth > 0 and at_statement and after is not None and (
                after[1] == b"{" or (after[0] == "word" and after[1] not in (b"else",))):
            loop = b"while" if len(text) >= 5 else b"if"
            out[start:start + len(text)] = loop.ljust(len(text))
        elif depth == 0 and at_statement and (after is None or (
                after[0] == "word" and tokens[close][2] < data.rfind(b"\n", 0, after[2]))):
            blank(start, tokens[close][2] + 1)  # `module_init(f)` with no `;`
            i = blanked_call = close + 1
            continue
        if depth > 0 or text.isupper():
            _type_arguments(out, tokens, i + 1, close, words)
        i += 1
    return bytes(out)


_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(?:/\*.*?\*/|\\.|[^\n])*", re.M | re.S)
_VARIADIC_PARAM = re.compile(rb"^([ \t]*#[ \t]*define[ \t]+\w+\([^)\n]*?\w)(\.\.\.)", re.M)


def _inner_conditionals(data: bytes) -> bytes:
    """Conditionals inside braces read as their first branch: the directives blanked, and the
    ``#elif``/``#else`` branches too, so a function or an initialiser is one piece of C.
    Also ``#define f(fmt...)``, GNU's named variadic parameter, as ``#define f(fmt   )``."""
    out = bytearray(data)
    for m in _VARIADIC_PARAM.finditer(data):
        out[m.start(2):m.end(2)] = b"   "
    depth = 0
    pos = 0
    stack: list[tuple[bool, int | None]] = []  # (opened inside braces, start of a skipped branch)
    for m in _CONDITIONAL.finditer(data):
        depth += _brace_delta(data, pos, m.start())
        pos = m.end()
        word = m.group(1)
        if word in (b"if", b"ifdef", b"ifndef"):
            stack.append((depth > 0, None))
            inside = depth > 0
        elif not stack:
            continue
        else:
            inside, skipped = stack[-1]
            if word == b"endif":
                stack.pop()
                if inside and skipped is not None:
                    _blank_code(out, skipped, m.start())
            elif inside and skipped is None:
                stack[-1] = (True, m.end())
        if inside:
            _blank_code(out, m.start(), m.end())
    return bytes(out)


def _brace_delta(data: bytes, start: int, end: int) -> int:
    delta = 0
    for m in _C_TOKEN.finditer(data, start, end):
        if m.lastgroup == "punct":
            delta += (m.group() == b"{") - (m.group() == b"}")
    return delta


def _blank_code(out: bytearray, start: int, end: int) -> None:
    """Spaces for every byte but line breaks, so lines stay where they were."""
    out[start:end] = bytes(b if b == 0x0A else 0x20 for b in out[start:end])


def _define_variable(out: bytearray, tokens, name_at: int, close: int, words: _MacroWords) -> None:
    """``static DECLARE_WORK(name, fn);`` -> ``static DECLARE_WORK name= fn ;``: a variable of
    the macro's type, initialised with the second argument (the others are blanked);
    ``static LIST_HEAD(name);`` -> ``static LIST_HEAD name ;``."""
    args = _arguments(tokens, name_at + 1, close)
    first, last = args[0]
    if last - first != 1 or tokens[first][0] != "word" or tokens[first][1] in words.reserved:
        return
    out[tokens[name_at + 1][2]] = 0x20
    if len(args) == 1:  # `static LIST_HEAD(name);`
        out[tokens[close][2]] = 0x20
        return
    out[tokens[last][2]] = ord("=")
    end_second = tokens[args[1][1]][2]
    _blank_code(out, end_second, tokens[close][2] + 1)


def _closing_parens(tokens: list[tuple[str, bytes, int]]) -> dict[int, int]:
    """Index of each ``(`` token -> index of its ``)``."""
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for j, (kind, text, _) in enumerate(tokens):
        if kind != "punct":
            continue
        if text == b"(":
            stack.append(j)
        elif text == b")" and stack:
            pairs[stack.pop()] = j
    return pairs


def _arguments(tokens: list[tuple[str, bytes, int]], open_at: int, close: int) -> list[tuple[int, int]]:
    """Token index ranges [first, last) of each top-level argument between the parentheses."""
    args = []
    depth = 0
    first = open_at + 1
    for j in range(open_at + 1, close):
        text = tokens[j][1]
        if text in (b"(", b"[", b"{"):
            depth += 1
        elif text in (b")", b"]", b"}"):
            depth -= 1
        elif text == b"," and depth == 0:
            args.append((first, j))
            first = j + 1
    args.append((first, close))
    return args


def _type_arguments(out: bytearray, tokens, open_at: int, close: int, words: _MacroWords) -> None:
    """Blank the keywords and ``*`` of arguments that are types: ``struct foo *`` -> ``foo``."""
    for first, last in _arguments(tokens, open_at, close):
        arg = tokens[first:last]
        if not arg or any(k != "word" and t != b"*" for k, t, _ in arg):
            continue
        names = [(t, s) for k, t, s in arg if k == "word" and t not in words.reserved]
        keywords = [(t, s) for k, t, s in arg if k == "word" and t in words.reserved]
        stars = [s for _, t, s in arg if t == b"*"]
        if any(t not in words.types and t not in words.specifiers for t, _ in keywords):
            continue
        tagged = any(t in words.tags for t, _ in keywords)
        if len(names) > 1 or (not keywords and not (stars and names)) or (tagged and len(names) != 1):
            continue
        if stars and arg[-1][1] != b"*":
            continue  # `a * b`: an expression
        for t, s in keywords:
            out[s:s + len(t)] = b" " * len(t)
        for s in stars:
            out[s] = 0x20
        if not names:
            out[keywords[0][1]] = ord("0")


def _define_function(out: bytearray, tokens, name_at: int, close: int, prefix: str) -> None:
    """``SYSCALL_DEFINE2(name, t1, a1, t2, a2)`` -> ``long    sys_name(t1  a1, t2  a2)``."""
    args = _arguments(tokens, name_at + 1, close)
    head_start = tokens[name_at][2]
    first, last = args[0]
    if last - first != 1 or tokens[first][0] != "word":
        return
    name_start = tokens[first][2]
    head = b"long"
    room = name_start - head_start
    pre = prefix.encode()
    if room < len(head) + 1 + len(pre):
        return
    if last == close:  # no parameters: `SYSCALL_DEFINE0(sync)` -> `long     sys_sync()`
        text = head + b" " + pre + tokens[first][1] + b"()"
        end = tokens[close][2] + 1
        out[head_start:end] = text.ljust(end - head_start)
        return
    out[head_start:name_start] = (head + b" " * (room - len(head) - len(pre)) + pre)
    comma = tokens[last][2]
    out[comma] = ord("(")
    for k, (a, b) in enumerate(args[1:]):
        if k % 2 == 0 and b < close:
            out[tokens[b][2]] = 0x20  # the comma between a type and its parameter's name


def clean_macros(data: bytes, hints: MacroHints) -> bytes:
    """``data`` with the language's macro forms rewritten and the macros of declarations
    blanked, byte for byte (the kernel's forms only where the hints name annotations: C)."""
    if hints.annotations or hints.function_definers:
        data = expand_kernel_macros(data, hints)
    return blank_macros(data, hints)
