"""Source text as the records keep it: strings unquoted, docs stripped of comment markers,
and expressions as chains of names, member accesses and calls with the arguments dropped
(``cmd.root().name``), which the resolver evaluates step by step."""

from __future__ import annotations

import re

MAX_DOC = 300
MAX_VALUE = 400  # longer chains (arguments dropped) say nothing we can use
# A member may be private by name (JavaScript's `this.#x`).
_VALUE_CHAIN = re.compile(r"^[A-Za-z_$][\w$]*(?:\(\))*(?:(?:\.|::|->)#?[A-Za-z_$][\w$]*(?:\(\))*)*$")
_WS_AROUND_OPS = re.compile(r"\s*(\.|::|->|\(\))\s*")


def value_chain(text: str, new_operator: str = "") -> str | None:
    """``Foo(a, g(b)).bar`` -> ``Foo().bar``: an expression of names, member accesses and
    calls with the arguments dropped; None for any other expression. A constructor call
    (``new a.Foo(x).m()``, with the language's ``new_operator``) is read as a call of its
    class (``a.Foo().m()``)."""
    if len(text) > 64 * MAX_VALUE:
        return None
    if new_operator and text.startswith(new_operator) and text[len(new_operator):][:1].isspace():
        text = text[len(new_operator):].lstrip()
        if "(" not in text:
            text += "()"
    if "(" in text:
        parts: list[str] = []
        depth, quote = 0, ""  # inside the arguments: parentheses open, string quote open
        for ch in text:
            if not depth:
                if ch == "(":
                    depth = 1
                else:
                    parts.append(ch)
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
        if depth:
            return None
        text = "".join(parts)
    if any(c.isspace() for c in text):
        text = _WS_AROUND_OPS.sub(r"\1", text.strip())
    if len(text) > MAX_VALUE or not _VALUE_CHAIN.match(text):
        return None
    return text


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


def first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:MAX_DOC]
    return ""
