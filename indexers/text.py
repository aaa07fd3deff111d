"""Source text as the records keep it: strings unquoted, docs stripped of comment markers,
and expressions as chains of names, member accesses and calls with the arguments dropped
(``cmd.root().name``), which the resolver evaluates step by step."""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter

MAX_DOC = 500
SLICE = "[i:]"  # in a chain: a slice of what precedes it
MAX_VALUE = 400  # longer chains (arguments dropped) say nothing we can use
# A member may be private by name (JavaScript's `this.#x`).
# After a name: calls, and elements by a literal key (``[i:0]``, ``[s:name]``) or by any (``[]``).
_VALUE_CHAIN = re.compile(
    r"^[A-Za-z_$][\w$]*(?:\(\)|\[(?:[is]:[\w.-]*)?\])*(?:(?:\.|::|->)#?[A-Za-z_$][\w$]*(?:\(\)|\[(?:[is]:[\w.-]*)?\])*)*$"
)
NAME = re.compile(r"[A-Za-z_$][\w$]*")  # a name as the languages indexed write one
_PLAIN_CHAIN = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)#?[A-Za-z_$][\w$]*)*")
_SUBSCRIPT = re.compile(r"\[\s*(?:(-?\d+)|\"([\w.-]*)\"|'([\w.-]*)'|[^\[\]]*)\s*\]")
_SLICE = re.compile(r"\[\s*(?:-?[\w.]+)?\s*:\s*(?:-?[\w.]+)?\s*(?::\s*(?:-?[\w.]+)?\s*)?\]")
_SPACE = re.compile(r"\s")  # what str.isspace() calls a space
_ARGUMENT_MARKS = re.compile(r"[()\"'`]")
_WS_AROUND_OPS = re.compile(r"\s*(\.|::|->|\(\))\s*")
_TYPE_ARGUMENT = re.compile(r"\(\s*([A-Za-z_][\w.]*)\s*\)")
# Type arguments of a call (`new Subject<T>()`, `make::<u8>()`), one level of nesting.
_CALL_TYPE_ARGUMENTS = re.compile(r"(?:::)?<[^<>()]*(?:<[^<>()]*>[^<>()]*)*>(?=\()")


def value_chain(text: str, new_operator: str = "", new_function: str = "",
                class_of: tuple[str, str] = ("", "")) -> str | None:
    """``Foo(a, g(b)).bar`` -> ``Foo().bar``: an expression of names, member accesses and
    calls with the arguments dropped; None for any other expression. A constructor call
    (``new a.Foo(x).m()``, with the language's ``new_operator``) is read as a call of its
    class (``a.Foo().m()``); so is the language's ``new_function`` given a type (Go
    ``new(Foo).m()``); the class of a name the language's ``class_of`` function gives is read as
    its attribute (Python ``type(self)()`` -> ``self.__class__()``). A subscript is an element: ``a[0]`` -> ``a[i:0]``, ``d["k"]`` ->
    ``d[s:k]``, by any other key ``a[]``."""
    if not may_start_chain(text):
        return None
    if len(text) <= MAX_VALUE and _PLAIN_CHAIN.fullmatch(text):
        return text  # names and member accesses only (most values): nothing to drop
    if len(text) > 64 * MAX_VALUE:
        return None
    if new_operator and text.startswith(new_operator) and text[len(new_operator):][:1].isspace():
        text = text[len(new_operator):].lstrip()
        if "(" not in text:
            text += "()"
    if new_function and text.startswith(new_function):
        m = _TYPE_ARGUMENT.match(text, len(new_function))
        if m:
            text = f"{m.group(1)}(){text[m.end():]}"
    if class_of[0] and text.startswith(class_of[0]):
        m = _TYPE_ARGUMENT.match(text, len(class_of[0]))
        if m and "." not in m.group(1):
            text = f"{m.group(1)}.{class_of[1]}{text[m.end():]}"
    if "<" in text:
        text = _CALL_TYPE_ARGUMENTS.sub("", text)
    head = text[:1]
    if head.isspace():
        head = text.lstrip()[:1]
    if not head or not (head in "_$" or ("a" <= head <= "z") or ("A" <= head <= "Z")):
        return None  # a literal, a bracket or an operator first: never a chain
    if "[" in text:
        text = _SUBSCRIPT.sub(_element_step, text)
    if "(" in text:
        # Arguments dropped: jump from one parenthesis or quote to the next.
        parts: list[str] = []
        depth, quote, kept = 0, "", 0  # parentheses open, string quote open, start of the text kept
        for m in _ARGUMENT_MARKS.finditer(text):
            ch = m.group()
            if not depth:
                if ch == "(":
                    parts.append(text[kept : m.start()])
                    depth = 1
            elif quote:
                if ch == quote:
                    quote = ""
            elif ch in "\"'`":
                quote = ch
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if not depth:
                    parts.append("()")
                    kept = m.end()
        if depth:
            return None
        parts.append(text[kept:])
        text = "".join(parts)
    if len(text) > MAX_VALUE and _longer_than_value(text):
        return None  # too long without its white space: the sub below costs the square of a run
    if _SPACE.search(text):
        text = _WS_AROUND_OPS.sub(r"\1", text.strip())
    if len(text) > MAX_VALUE or not _VALUE_CHAIN.match(text):
        return None
    return text


def may_start_chain(text: str) -> bool:
    """Whether ``value_chain`` may read ``text`` as a chain, as far as its first character
    tells: one that starts with a literal, a bracket or an operator never is (the rewrites
    before the test of its head change a text that starts with a name, ``<`` or ``::`` only)."""
    first = text[:1]
    return ("a" <= first <= "z") or ("A" <= first <= "Z") or first in "_$<:" or first.isspace()


def _longer_than_value(text: str) -> bool:
    """Whether ``text`` holds more than ``MAX_VALUE`` characters that are not white space,
    read from its start as far as needed (a long text is seldom mostly white space)."""
    return len("".join(text[: 4 * MAX_VALUE].split())) > MAX_VALUE or len("".join(text.split())) > MAX_VALUE


def _element_step(m: re.Match) -> str:
    if m.group(1) is not None:
        return f"[i:{int(m.group(1))}]"
    key = m.group(2) if m.group(2) is not None else m.group(3)
    if key is not None:
        return f"[s:{key}]"
    if ":" not in m.group(0):
        return "[]"
    # A slice of names and numbers (`xs[1:]`, `s[i:j]`): a container of the same kind
    # (``SLICE``). Any other text with a colon is no chain.
    return SLICE if _SLICE.fullmatch(m.group(0)) else "[:]"


def node_line(node: tree_sitter.Node) -> int:
    return node.start_point[0] + 1


def node_end_line(node: tree_sitter.Node) -> int:
    end_row, end_col = node.end_point
    # A node that swallows its trailing newline (a #define) ends on the line before.
    if end_col == 0 and end_row > node.start_point[0]:
        return end_row
    return end_row + 1


def node_text(source: bytes) -> Callable[[tree_sitter.Node], str]:
    """What ``node.text.decode("utf-8", "replace")`` gives for nodes of a tree parsed from
    ``source``, read from the source instead: a node's ``text`` copies its bytes through a
    memoryview, which costs more than a slice. Byte offsets index an ASCII text as they do
    its bytes."""
    if source.isascii():
        text = source.decode("ascii")
        return lambda node: text[node.start_byte : node.end_byte]
    return lambda node: source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def without_postfix(text: str, mark: str) -> str:
    """``text`` without a postfix operator that leaves a value as it is (``a.b()!.c`` ->
    ``a.b().c``): after a name, a call or a subscript, before a member, call or the end."""
    if not mark or mark not in text:
        return text
    return re.sub(rf"(?<=[\w$)\]]){re.escape(mark)}(?=[.(\[]|$)", "", text)


def unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"'`<" and text[-1] in "\"'`>":
        return text[1:-1]
    return text


def strip_string(text: str) -> str:
    text = text.lstrip("rRbBuUfF")
    for q in ('"""', "'''", '"', "'"):
        if text.startswith(q) and text.endswith(q) and len(text) >= 2 * len(q):
            return text[len(q) : -len(q)]
    return text


def strip_comment(text: str, prefixes: tuple[str, ...]) -> str:
    lines = []
    for line in text.splitlines():
        line = line.strip()
        for prefix in prefixes:
            if line.startswith(prefix):
                line = line[len(prefix) :]
                break
        if line.endswith("*/"):
            line = line[:-2]
        line = line.strip().lstrip("*").strip()
        lines.append(line)
    return "\n".join(lines)


def first_paragraph(text: str) -> str:
    """The lines up to the first blank line (or block tag) after some text, joined by single spaces, at most
    `MAX_DOC` characters (cut at a space, marked with an ellipsis)."""
    lines: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if lines and (not line or line.startswith("@")):  # a blank line, a Javadoc/JSDoc tag
            break
        if line:
            lines.append(line)
    paragraph = " ".join(" ".join(lines).split())
    if len(paragraph) <= MAX_DOC:
        return paragraph
    cut = paragraph[: MAX_DOC - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


def unqualified_type(text: str, qualifiers: frozenset[str]) -> str | None:
    """A declared type without a qualifier around it (``Final[int]``, ``Annotated[int, meta]``:
    ``int``); None for a bare one (``Final``: the value says)."""
    head, bracket, rest = text.partition("[")
    if head.rpartition(".")[2].strip() not in qualifiers:
        return text
    depth = 0
    for i, ch in enumerate(rest if bracket and rest.endswith("]") else ""):
        depth += 1 if ch in "[(" else -1 if ch in "])" else 0
        if depth < 0 or ch == "," and not depth:
            return rest[:i].strip() or None
    return None


def literal_end(text: str) -> int:
    """Where the literal container ``text`` starts with ends (after its ``}``); 0: nowhere."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "{"
        depth -= ch == "}"
        if not depth:
            return i + 1
    return 0


def literal_items(text: str) -> list[tuple[str, str]]:
    """The entries of a literal container written by ``indexers.bindings``' ``_literal``: (key, value) pairs."""
    out, depth, start, body = [], 0, 0, text[1:-1]
    for i, ch in enumerate(body + ","):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and not depth:
            key, _, value = body[start:i].partition("=")
            if value:
                out.append((key, value))
            start = i + 1
    return out
