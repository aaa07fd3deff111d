"""The names a file's references may depend on: what an incremental run re-resolves the file
for when another file defines, changes or removes one of them (`indexers.resolve.affected`).

Computed by the parser process from the records as it emits them (`indexers.extract`), and
kept with the extraction: the symbol table indexes the files by them, and reading them back
from the encoded records took a decoding of each file's calls, values and bindings on the
process that resolves.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from indexers.languages import LANGUAGES
from indexers.text import NAME

_SPLIT = re.compile(r"\.|::|->")
_HEADER_EXTENSIONS = tuple(sorted({e for spec in LANGUAGES.values() for e in spec.header_extensions}))


def referenced_names(refs: Iterable[tuple[str, str | None]], bound: Iterable[tuple[str | None, str | None]],
                     inherits: Iterable, methods: Iterable[str], imports: Iterable) -> tuple[str, ...]:
    """The names of a file's calls and values (``refs``: name, receiver), of its bindings'
    declared types and values (``bound``), of the bases and subjects of its ``inherits``, its
    ``methods`` (when it inherits: a method overrides whatever a base defines under its name)
    and of what it ``imports``; sorted."""
    names: set[str] = set()
    # Every name of a receiver chain or a bound expression: what they evaluate to depends on
    # the definitions, fields and results of those names (`make().run()`, `x: mod.T`).
    texts: set[str] = set()
    for name, receiver in refs:
        names.add(name)
        if receiver:
            texts.add(receiver)
    for type_text, value in bound:
        if type_text:
            texts.add(type_text)
        if value:
            texts.add(value)
    # One scan of all the texts: a word never spans the space between two of them.
    names.update(NAME.findall(" ".join(texts)))
    inherited = False
    for r in inherits:
        inherited = True
        names.add(_SPLIT.split(r.base)[-1])
        names.add(_SPLIT.split(r.subject)[-1])
    if inherited:
        names.update(methods)
    for imp in imports:
        if imp.name:
            names.add(imp.name)
        if imp.module:
            names.add(_module_tail(imp.module))
    return tuple(sorted(names))


def _module_tail(module: str) -> str:
    tail = re.split(r"[./:\\]+", module.strip("./"))[-1] if module.strip("./") else module
    return posixpath.splitext(tail)[0] if "/" in module or module.endswith(_HEADER_EXTENSIONS) else tail
