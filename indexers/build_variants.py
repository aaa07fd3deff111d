"""Is a file part of the default build? Go's build constraints (``//go:build`` in the header,
``_windows.go`` file names) read with the tags of ``languages.BuildVariants``.

A file left out is a *variant*: where a name has definitions in built files and in variants,
the resolver takes the built ones (``Resolver.calls``). An expression it cannot read counts as
built, as does every file of a language without build variants.
"""

from __future__ import annotations

import re

from indexers.languages import BuildVariants

_TOKEN = re.compile(r"\s*(\|\||&&|!|\(|\)|[\w.]+)")
_HEADER_LINES = 64


def is_variant(rules: BuildVariants | None, path: str, data: bytes) -> bool:
    """Whether the file at ``path`` with content ``data`` is left out of the default build."""
    if rules is None:
        return False
    words = path.rpartition("/")[2].rpartition(".")[0].split("_")[1:]
    if words and words[-1] == rules.test:
        words.pop()
    # `_GOOS`, `_GOARCH` or `_GOOS_GOARCH` at the end of the name
    if words and words[-1] in rules.systems and (
            words[-1] not in rules.tags or len(words) > 1 and words[-2] in rules.systems and words[-2] not in rules.tags):
        return True
    legacy = []
    for line in data.split(b"\n", _HEADER_LINES)[:_HEADER_LINES]:
        text = line.decode("utf-8", "replace").strip()
        if text.startswith(rules.directive + " "):
            built = _evaluate(text[len(rules.directive):], rules)
            return built is False
        if rules.legacy and text.startswith(rules.legacy + " "):
            legacy.append(_legacy_expression(text[len(rules.legacy):]))
        if text and not text.startswith("//"):
            break  # the header ends at the first line of code (`package`)
    # Each older line is options (any) of comma-joined terms (all); the lines must all hold.
    return bool(legacy) and _evaluate(" && ".join(legacy), rules) is False


def _legacy_expression(options: str) -> str:
    """``a,!b c`` of a ``// +build`` line as the expression ``((a && !b) || (c))``."""
    return "(" + " || ".join("(" + " && ".join(option.split(",")) + ")" for option in options.split()) + ")"


def _evaluate(expr: str, rules: BuildVariants) -> bool | None:
    """The value of a constraint expression; None when it cannot be read."""
    tokens = _TOKEN.findall(expr)
    if "".join(tokens) != re.sub(r"\s+", "", expr):
        return None
    pos = 0

    def tag(t: str) -> bool:
        return t in rules.tags or rules.versions.fullmatch(t) is not None

    def atom() -> bool:
        nonlocal pos
        t = tokens[pos] if pos < len(tokens) else ""
        pos += 1
        if t == "!":
            return not atom()
        if t == "(":
            value = either()
            if pos >= len(tokens) or tokens[pos] != ")":
                raise ValueError(expr)
            pos += 1
            return value
        if not t or t in ("&&", "||", ")"):
            raise ValueError(expr)
        return tag(t)

    def joined(operator: str, operand) -> bool:
        """Operands joined by one operator, each read (and its tokens taken) in turn."""
        nonlocal pos
        values = [operand()]
        while pos < len(tokens) and tokens[pos] == operator:
            pos += 1
            values.append(operand())
        return all(values) if operator == "&&" else any(values)

    def both() -> bool:
        return joined("&&", atom)

    def either() -> bool:
        return joined("||", both)

    try:
        value = either()
    except ValueError:
        return None
    return value if pos == len(tokens) else None
