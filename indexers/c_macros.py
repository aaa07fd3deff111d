"""Macros in C and C++ declarations, blanked before a second parse.

Tree-sitter parses ``int ZEXPORT deflate(...)`` without the macro definitions and recovers
with error nodes that hide the name. ``blank_macros`` finds, with the language's
``MacroHints``, the words of a declaration that can only be macros and replaces them with
spaces, byte for byte, so offsets, lines and names stay those of the file.

The scans read a skeleton of the file (comments, literals and preprocessor lines masked, every
offset kept) with regular expressions that find the few places worth a look (declaration heads,
calls, braces), and build token lists only there: a token-by-token scan in Python cost more
than parsing the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from itertools import chain

import tree_sitter

from indexers.languages import LinePattern, MacroHints
from indexers.syntax_errors import parsed_again

# The lexemes whose insides are not C tokens: comments, preprocessor lines and literals. A
# number takes the numbers after it that follow commas (``{1, 2, 3}`` is one lexeme); a digit
# inside a word starts none. The first byte is read by a class and each branch checks it again
# behind, which lets the engine skip in C the bytes that start no lexeme; a preprocessor line
# is found from the line break before it (the text is given one in front).
_LEXEME = re.compile(
    rb"""[/"'0-9\n]
    (?:(?P<comment>(?<=/)\*.*?(?:\*/|\Z)|(?<=/)/(?:\\\n|[^\n])*)
    |(?P<directive>(?<=\n)[ \t]*\#(?:/\*.*?\*/|\\.|[^\n])*)
    |(?P<literal>(?<=")(?:\\.|[^"\\\n])*"?|(?<=')(?:\\.|[^'\\\n])*'?
        |(?<=[0-9])(?<![A-Za-z0-9_][0-9])[\w.]*(?:\s*,\s*[0-9][\w.]*)*))""",
    re.S | re.X,
)
# In a skeleton (see ``_skeleton``) a literal is a run of ``"`` and, for ``blank_macros``, a
# preprocessor line a run of ``'``: no other byte of the skeleton is either.
_LITERAL = b'"'
_DIRECTIVE = b"'"
_SKELETON_TOKEN = re.compile(rb'(?P<word>\w+)|(?P<literal>"+)|(?P<punct>\S)')
_NEXT_TOKEN = re.compile(rb"\s*+(?:(?P<word>\w+)|(?P<punct>\S))")
_PAREN = re.compile(rb"[()]")
# A declaration head of three tokens or more: words and ``*`` after a token where a declaration
# may begin (``; { } ( ,``, a preprocessor line, the start of the file), up to one that may end
# a declarator's name (``( [ = ; , )``). A head of one or two tokens holds no macro.
_HEAD_TOKENS = rb"\s*+((?:\w++|\*)(?:\s*+(?:\w++|\*)){2,}+)\s*+(?=[(\[=;,)])"
_FIRST_HEAD = re.compile(_HEAD_TOKENS)
_HEAD = re.compile(rb"[;{}(,']" + _HEAD_TOKENS)
_HEAD_TOKEN = re.compile(rb"\w+|\*")
_TYPE_END = b",)"
# Where an ALL_CAPS word may be a prototype wrapper: before ``((``.
_DOUBLE_PAREN = re.compile(rb"\((?=\s*+\()")


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

    The places are found by regular expressions over the file's skeleton, so only the tokens of
    declaration heads are looked at one by one.
    """
    skeleton = _skeleton(data, _DIRECTIVE)
    words = _macro_words(hints)
    blank: list[tuple[int, int]] = []
    wrappers: set[int] = set()  # starts of the prototype wrappers: not part of a head
    if hints.prototype_wrappers:
        blank += _prototype_wrappers(skeleton, words, wrappers)
    first = _FIRST_HEAD.match(skeleton)
    for m in chain([first] if first else [], _HEAD.finditer(skeleton)):
        head = _HEAD_TOKEN.findall(skeleton, m.start(1), m.end(1))
        if wrappers and m.end(1) - len(head[-1]) in wrappers:  # the head ends with its last token
            head.pop()
        macros: list[int] = []
        if head[-1] == b"*":
            if skeleton[m.end()] in _TYPE_END:  # a type without a name: `(uch FAR *)p`, `f(void FAR *, int)`
                macros = _head_macros(head, words)
        elif head[-1] not in words.reserved:
            macros = _head_macros(head[:-1], words)
        if macros:  # few heads hold one: their tokens' offsets are read only then
            starts = [t.start() for t in _HEAD_TOKEN.finditer(skeleton, m.start(1), m.end(1))]
            blank += [(starts[k], starts[k] + len(head[k])) for k in macros]
    if not blank:
        return data
    out = bytearray(data)
    for start, end in blank:
        out[start:end] = b" " * (end - start)
    return bytes(out)


def _prototype_wrappers(skeleton: bytes, words: _MacroWords, wrappers: set[int]) -> list[tuple[int, int]]:
    """Byte ranges of ``OF((`` and its ``)`` in ``name OF((params))``; the start of each wrapper
    is added to ``wrappers``. Found from the ``((``, which are few."""
    blank = []
    backwards = skeleton[::-1]
    for m in _DOUBLE_PAREN.finditer(skeleton):
        wrapper = _previous_token(backwards, m.start())
        if wrapper is None or wrapper[0] != "word" or not wrapper[1].isupper():
            continue
        prev = _previous_token(backwards, wrapper[2])
        if prev is None or prev[0] != "word" or prev[1] in words.reserved:
            continue
        wrappers.add(wrapper[2])
        close = _close_paren(skeleton, m.start())
        if close is not None:
            blank += [(wrapper[2], m.start() + 1), (close, close + 1)]
    return blank


def _skeleton(data: bytes, directive: bytes) -> bytes:
    """``data`` as the scans read it, byte for byte: comments as spaces, each literal as a run of
    ``"`` (a token that is neither a word nor a bracket) and each preprocessor line as a run of
    ``directive`` (the line break before it included). What is left are words, punctuation and
    white space, which regular expressions find without being misled by a quote or a comment."""
    def fill(m: re.Match) -> bytes:
        kind = m.lastgroup
        byte = b" " if kind == "comment" else directive if kind == "directive" else _LITERAL
        return byte * (m.end() - m.start())

    return _LEXEME.sub(fill, b"\n" + data)[1:]


def _next_token(skeleton: bytes, pos: int) -> tuple[str, bytes, int] | None:
    """(kind, text, start) of the first token of a skeleton at or after ``pos``."""
    m = _NEXT_TOKEN.match(skeleton, pos)
    if m is None:
        return None
    kind = m.lastgroup
    return kind, m.group(kind), m.start(kind)


def _previous_token(backwards: bytes, pos: int) -> tuple[str, bytes, int] | None:
    """(kind, text, start) of the last token of a skeleton before ``pos``, read in the skeleton
    reversed (``backwards``) so that a regular expression finds it."""
    size = len(backwards)
    m = _NEXT_TOKEN.match(backwards, size - pos)
    if m is None:
        return None
    kind = m.lastgroup
    return kind, m.group(kind)[::-1], size - m.end(kind)


def _close_paren(skeleton: bytes, open_at: int) -> int | None:
    """Offset of the ``)`` that closes the ``(`` at ``open_at``."""
    close = skeleton.find(b")", open_at)
    if close >= 0 and skeleton.find(b"(", open_at + 1, close) < 0:
        return close  # no parentheses inside: the common case, found in C
    depth = 0
    for m in _PAREN.finditer(skeleton, open_at):
        if skeleton[m.start()] == 0x28:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start()
    return None


def _call_tokens(skeleton: bytes, name: bytes, start: int, open_at: int, close: int) -> list[tuple[str, bytes, int]]:
    """The tokens of a call, name and parentheses included, as (kind, text, start)."""
    tokens = [("word", name, start)]
    tokens += [(m.lastgroup, m.group(), m.start()) for m in _SKELETON_TOKEN.finditer(skeleton, open_at, close + 1)]
    return tokens


@dataclass(frozen=True, slots=True)
class _MacroWords:
    """A language's ``MacroHints`` as byte strings, the form the scans compare."""

    reserved: frozenset[bytes]  # every reserved word
    types: frozenset[bytes]  # type and tag keywords
    tags: frozenset[bytes]
    not_in_declarations: frozenset[bytes]
    specifiers: frozenset[bytes] = frozenset()
    annotations: frozenset[bytes] = frozenset()
    definers: dict[bytes, str] = field(default_factory=dict)  # function-defining macro -> name prefix
    # Braces, annotations and words before `(` but statement heads: what the kernel scan visits.
    kernel_places: re.Pattern = re.compile(b"(?!)")
    # A `*` or a reserved word: what an argument that is a type holds.
    type_marks: re.Pattern = re.compile(b"(?!)")


def _any_word(words: frozenset[bytes], first_behind: bool = False) -> bytes:
    """A regular expression matching any of ``words`` from the start of a word, as a whole word,
    or after its first byte (``first_behind``: that byte is checked behind). Written as a trie
    so that the engine tries one alternative per byte rather than every word."""
    trie: dict = {}
    for word in words:
        node = trie
        for byte in word:
            node = node.setdefault(byte, {})
        node[None] = {}  # a word ends here

    def branches(node: dict) -> bytes:
        alternatives = [re.escape(bytes([byte])) + branches(child)
                        for byte, child in sorted((k, v) for k, v in node.items() if k is not None)]
        if not alternatives:
            return b""
        if len(alternatives) == 1 and None not in node:
            return alternatives[0]
        return b"(?:" + b"|".join(alternatives) + b")" + (b"?" if None in node else b"")

    if not first_behind:
        return b"(?:" + (branches(trie) or b"(?!)") + rb")(?!\w)"
    first = [b"(?<=" + re.escape(bytes([byte])) + b")" + branches(child) for byte, child in sorted(trie.items())]
    return b"(?:" + (b"|".join(first) or b"(?!)") + rb")(?!\w)"


@cache
def _macro_words(hints: MacroHints) -> _MacroWords:
    def b(words: frozenset[str]) -> frozenset[bytes]:
        return frozenset(w.encode() for w in words)

    types = b(hints.type_keywords) | b(hints.tag_keywords)
    reserved = types | b(hints.specifiers) | b(hints.keywords)
    annotations = b(hints.annotations)
    annotation = _any_word(annotations)
    call = rb"(?!" + _any_word(reserved | _STATEMENT_HEADS) + rb")[A-Za-z_]\w*+(?=\s*+\()"
    # Each match passes over the other words and bytes in C, and ends with one place (or at
    # the end): matching from every byte would cost more than the places.
    kernel_places = re.compile(
        rb"(?:[^{}A-Za-z_]++|(?!" + annotation + rb"|" + call + rb")[A-Za-z_]\w*+)*+"
        rb"(?:(?P<open>\{)|(?P<close>\})|(?P<annotation>" + annotation + rb")|(?P<call>" + call + rb")|(?P<end>\Z))")
    type_marks = re.compile(rb"[*A-Za-z_](?:(?<=\*)|(?<!\w.)" + _any_word(reserved, first_behind=True) + b")")
    return _MacroWords(reserved, types, b(hints.tag_keywords), b(hints.keywords), b(hints.specifiers),
                       annotations, {m.encode(): prefix for m, prefix in hints.function_definers},
                       kernel_places, type_marks)


def _head_macros(head: list[bytes], words: _MacroWords) -> list[int]:
    """The words of a declaration head (the name excluded) that are macros, by their index."""
    before: list[int] = []  # bare words before the first `*`
    after: list[int] = []  # bare words after it, followed by a word
    typed = False
    pointer = False
    previous = b""
    for k, text in enumerate(head):
        if text in words.not_in_declarations:
            return []  # `return a * b`, `if (x and y)`: an expression
        if text == b"*":
            pointer = True
        elif text in words.types:
            typed = True
        elif text not in words.reserved and previous not in words.tags:
            if not pointer:
                before.append(k)
            elif k + 1 == len(head) or head[k + 1] != b"*":
                after.append(k)  # `* ZEXPORT name`, not `a * N * b`
        previous = text
    if not typed and before:
        lower = [k for k in before if not head[k].isupper()]
        keep = lower[-1] if lower else before[0]
        before = [k for k in before if k != keep]
    return before + after


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
    skeleton = _skeleton(data, b" ")
    backwards = skeleton[::-1]
    words = _macro_words(hints)
    out = bytearray(data)

    def blank(start: int, end: int) -> None:
        out[start:end] = b" " * (end - start)

    depth = 0  # braces
    resume = 0  # what is before this offset lies inside a rewritten call's parentheses
    blanked_close = -1  # the `)` of a blanked file-scope call: a statement starts after it
    for m in words.kernel_places.finditer(skeleton):
        place = m.lastgroup
        start = m.start(place)
        if place == "end":
            break
        if start < resume:
            continue
        if place == "open":
            depth += 1
            continue
        if place == "close":
            depth = max(depth - 1, 0)
            continue
        text = m.group(place)
        if place == "annotation":
            nxt = _next_token(skeleton, m.end())
            close = _close_paren(skeleton, nxt[2]) if nxt is not None and nxt[1] == b"(" else None
            if close is not None:
                blank(start, close + 1)
                resume = close + 1
            else:
                blank(start, m.end())
            continue
        open_at = skeleton.index(b"(", m.end())
        close = _close_paren(skeleton, open_at)
        if close is None:
            continue
        if text == b"offsetof":  # the grammar's offsetof takes no member path: `(X, a.b[i])`
            blank(start, start + len(text))
            _type_arguments(out, _call_tokens(skeleton, text, start, open_at, close), words)
            continue
        prev = _previous_token(backwards, start)
        prev_text = b";" if prev is None or prev[2] == blanked_close else prev[1]
        at_statement = prev_text in _AFTER_STATEMENT or prev_text == b"else"
        needs_after = depth == 0 or at_statement or prev_text in words.specifiers  # else only types
        after = _next_token(skeleton, close + 1) if needs_after else None
        definer = words.definers.get(text) if depth == 0 else None
        if definer is not None and after is not None and after[1] == b"{":
            _define_function(out, _call_tokens(skeleton, text, start, open_at, close), definer)
            resume = close + 1
            continue
        if prev_text in words.specifiers and after is not None and after[1] == b";":
            # `static DEFINE_X(name, ...);`
            _define_variable(out, _call_tokens(skeleton, text, start, open_at, close), words)
            resume = close + 1
            continue
        # A one-letter name has no room for `if`: rewriting must keep every byte offset.
        if depth > 0 and at_statement and len(text) >= 2 and after is not None and (
                after[1] == b"{" or (after[0] == "word" and after[1] != b"else")):
            loop = b"while" if len(text) >= 5 else b"if"
            out[start:start + len(text)] = loop.ljust(len(text))
        elif depth == 0 and at_statement and (after is None or (
                after[0] == "word" and close < data.rfind(b"\n", 0, after[2]))):
            blank(start, close + 1)  # `module_init(f)` with no `;`
            resume = close + 1
            blanked_close = close
            continue
        if (depth > 0 or text.isupper()) and words.type_marks.search(skeleton, open_at, close):
            _type_arguments(out, _call_tokens(skeleton, text, start, open_at, close), words)
    return bytes(out)


_CONDITIONAL = LinePattern(rb"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(?:/\*.*?\*/|\\.|[^\n])*", re.S)
_VARIADIC_PARAM = re.compile(rb"^([ \t]*#[ \t]*define[ \t]+\w+\([^)\n]*?\w)(\.\.\.)", re.M)


def _inner_conditionals(data: bytes) -> bytes:
    """Conditionals inside braces read as their first branch: the directives blanked, and the
    ``#elif``/``#else`` branches too, so a function or an initialiser is one piece of C.
    Also ``#define f(fmt...)``, GNU's named variadic parameter, as ``#define f(fmt   )``."""
    out = bytearray(data)
    if b"..." in data:  # found at memchr's speed; the line-anchored scan tries every byte
        for m in _VARIADIC_PARAM.finditer(data):
            out[m.start(2):m.end(2)] = b"   "
    depth = 0
    pos = 0
    stack: list[tuple[bool, int | None]] = []  # (opened inside braces, start of a skipped branch)
    for start, m in _CONDITIONAL.finditer(data):
        depth += _brace_delta(data, pos, start)
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
                    _blank_code(out, skipped, start)
            elif inside and skipped is None:
                stack[-1] = (True, m.end())
        if inside:
            _blank_code(out, start, m.end())
    return bytes(out)


# Braces outside comments, literals and preprocessor lines (a number holds none). As in
# ``_LEXEME``, the first byte is read by a class and checked again behind, and a preprocessor
# line is found from the line break before it.
_BRACE = re.compile(
    rb"""[/"'{}\n]
    (?:(?<=/)\*.*?(?:\*/|\Z)|(?<=/)/(?:\\\n|[^\n])*|(?<=\n)[ \t]*\#(?:/\*.*?\*/|\\.|[^\n])*
    |(?<=")(?:\\.|[^"\\\n])*"?|(?<=')(?:\\.|[^'\\\n])*'?|(?<=([{}])))""",
    re.S | re.X,
)


def _brace_delta(data: bytes, start: int, end: int) -> int:
    """``{`` less ``}`` between ``start`` (the file's start or a line break) and ``end``."""
    if start == 0:
        data, end = b"\n" + data, end + 1
    braces = _BRACE.findall(data, start, end)
    return braces.count(b"{") - braces.count(b"}")


def _blank_code(out: bytearray, start: int, end: int) -> None:
    """Spaces for every byte but line breaks, so lines stay where they were."""
    out[start:end] = out[start:end].translate(_SPACES_BUT_LINE_BREAKS)


_SPACES_BUT_LINE_BREAKS = bytes(0x0A if b == 0x0A else 0x20 for b in range(256))


def _define_variable(out: bytearray, tokens: list[tuple[str, bytes, int]], words: _MacroWords) -> None:
    """``static DECLARE_WORK(name, fn);`` -> ``static DECLARE_WORK name= fn ;``: a variable of
    the macro's type, initialised with the second argument (the others are blanked);
    ``static LIST_HEAD(name);`` -> ``static LIST_HEAD name ;``. ``tokens``: the call's."""
    name_at, close = 0, len(tokens) - 1
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


def _type_arguments(out: bytearray, tokens: list[tuple[str, bytes, int]], words: _MacroWords) -> None:
    """Blank the keywords and ``*`` of arguments that are types: ``struct foo *`` -> ``foo``.
    ``tokens``: the call's."""
    for first, last in _arguments(tokens, 1, len(tokens) - 1):
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


def _define_function(out: bytearray, tokens: list[tuple[str, bytes, int]], prefix: str) -> None:
    """``SYSCALL_DEFINE2(name, t1, a1, t2, a2)`` -> ``long    sys_name(t1  a1, t2  a2)``.
    ``tokens``: the call's."""
    name_at, close = 0, len(tokens) - 1
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


def without_macros(parser: tree_sitter.Parser, data: bytes, hints: MacroHints, tree: tree_sitter.Tree,
                    errors: int) -> tuple[tree_sitter.Node, bytes, int, bool]:
    """Parse again with the macros of declarations blanked, and keep that tree (and the bytes it
    was parsed from) unless it has more errors. Blanking keeps every byte offset, so lines and
    names stay those of the file."""
    cleaned = clean_macros(data, hints)
    # A rewrite that changed the length (none should) gets a fresh parse: the old tree's
    # offsets say nothing of the new text.
    return parsed_again(parser, data, cleaned, tree, errors,
                        edited(tree, data, cleaned) if cleaned != data and len(cleaned) == len(data) else None)


def edited(tree: tree_sitter.Tree, old: bytes, new: bytes) -> tree_sitter.Tree:
    """A copy of ``tree`` (parsed from ``old``) told where ``new``, of the same length, differs,
    for an incremental parse of ``new`` that reuses the declarations the cleaning left alone:
    a third of a fresh parse's work in the kernel's files. Each top-level node that holds a
    change or an error is given as changed as a whole, so that error recovery reads it afresh:
    told only the changed bytes, the parser recovered from errors otherwise than a fresh parse
    of ``new`` in one file of the kernel's ``fs`` in a thousand."""
    copy = tree.copy()
    edits = []
    row, line_start, pos = 0, 0, 0  # the row and line start of ``pos`` in ``old``
    for start, end in _changed_spans(tree.root_node, old, new):
        breaks = old.count(b"\n", pos, start)
        if breaks:
            row, line_start = row + breaks, old.rindex(b"\n", pos, start) + 1
        old_end, new_end = _after(old, start, end, row, line_start), _after(new, start, end, row, line_start)
        edits.append((start, end, (row, start - line_start), old_end, new_end))
        pos = start
    # Last first: each edit's points are then those of the text before it, the old one's.
    for start, end, at, old_end, new_end in reversed(edits):
        copy.edit(start, end, end, at, old_end, new_end)
    return copy


def _changed_spans(root: tree_sitter.Node, old: bytes, new: bytes) -> list[list[int]]:
    """Byte ranges, in order, of the top-level nodes with an error or a byte that differs
    between ``old`` and ``new`` (of the same length), and of the text between them where a
    byte differs. Slices are compared (a copy and a ``memcmp`` each): cheaper than a byte-wise
    difference of the whole text searched for its changes."""
    spans: list[list[int]] = []

    def add(start: int, end: int) -> None:
        if spans and spans[-1][1] >= start:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])

    pos = 0
    for child in root.children:
        start, end = child.start_byte, child.end_byte
        if start > pos and old[pos:start] != new[pos:start]:
            add(pos, start)
        if child.has_error or old[start:end] != new[start:end]:
            add(start, end)
        pos = max(pos, end)
    if old[pos:] != new[pos:]:
        add(pos, len(old))
    return spans


def _after(text: bytes, start: int, end: int, row: int, line_start: int) -> tuple[int, int]:
    """The point of ``end`` in ``text``, given the row and line start of ``start``."""
    breaks = text.count(b"\n", start, end)
    if breaks:
        return row + breaks, end - text.rindex(b"\n", start, end) - 1
    return row, end - line_start
