"""The imports a file's query matches name, as rows of ``indexers.extract.ImportRef``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

import tree_sitter

from indexers.text import node_line, unquote

# The name an import of a whole CommonJS module (``const x = require("m")``) imports: its
# ``module.exports`` when it sets one, else the module itself (no identifier can be it).
REQUIRED = "module.exports"


def import_rows(imports: list[tuple[tree_sitter.Node, dict]], text: Callable[[tree_sitter.Node], str]) -> list[tuple]:
    """(module, name, alias, level, line, export) for each import match: ``from ..a import b
    as c`` gives ("a", "b", "c", 2, line, False); a wildcard's name is "*", ``import x from
    "m"`` names the default export."""
    out = []
    for node, caps in imports:
        mods = caps.get("import.module")
        module = unquote(text(mods[0])) if mods else ""
        names = caps.get("import.name")
        name = unquote(text(names[0])) if names else None
        aliases = caps.get("import.alias")
        alias = text(aliases[0]) if aliases else None
        if "import.wildcard" in caps:
            name = "*"
        if "import.default" in caps:  # `import x from "m"`: x names the default export
            name, alias = "default", text(caps["import.default"][0])
        if "import.commonjs" in caps:  # `module.exports = x`: x is the default export
            alias = "default"
        if "import.required" in caps:  # `const x = require("m")`: the module's value (`REQUIRED`)
            name = REQUIRED
        row = import_row(module, name, alias, node_line(node), "import.export" in caps)
        if row is not None:
            out.append(row)
    return out


def import_row(module: str, name: str | None, alias: str | None, line: int, export: bool = False) -> tuple | None:
    """An import's row (`import_rows`), its leading dots a level (``..a`` -> "a", level 2)."""
    level = len(module) - len(module.lstrip(".")) if module.startswith(".") and "/" not in module else 0
    if level:
        module = module[level:]
    if not module and not level and (not name or name == REQUIRED):  # `require("")` names no module
        return None
    return (module, name, alias, level, line, export)


MAX_MODULE_NAME = 512  # longer strings given to `require` are not read as module names

# `require("m")` written where a module is read (``require("./util").merge(a)``): its name.
_NOT_WORD = re.compile(r"\W", re.A)
_REQUIRED_CALL = re.compile(r"""\s*\(\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)')\s*\)""")


class InlineRequires:
    """The modules a file's receivers read with a call of the language's `require` function
    (``require("./util").merge(a)``; a call of the call itself, ``require("debug")("app")``,
    is no call site here): each is an import of the module's value (`REQUIRED`) under a name
    no identifier can be, which the receiver reads instead of the call (`receiver`); `rows`
    are the imports."""

    def __init__(self, function: str):
        self.function = function
        self.names: dict[str, tuple[str, int]] = {}  # module -> (its name, the line of its first reading)
        self.members: dict[tuple[str, str], tuple[str, int]] = {}  # (module, member) -> the same (`member`)

    def receiver(self, text: str, line: int) -> str:
        """``text`` with a leading `require("m")` replaced by the module's name."""
        if not self.function or not text.startswith(self.function):
            return text
        m = _REQUIRED_CALL.match(text, len(self.function))
        if m is None:
            return text
        module = m.group(1) if m.group(1) is not None else m.group(2)
        if not module or len(module) > MAX_MODULE_NAME:
            return text
        found = self.names.get(module)
        if found is None:
            found = self.names[module] = (self._name(module), line)
        return found[0] + text[m.end():]

    def member(self, module: str, name: str, line: int) -> str:
        """The name an import of a module's member (``require("m").name``) is bound to, for a
        local binding to read: as `receiver`'s, the member's name after it."""
        found = self.members.get((module, name))
        if found is None:
            found = self.members[(module, name)] = (f"{self._name(module)}${name}", line)
        return found[0]

    def _name(self, module: str) -> str:
        # `$` starts no name a module system gives; the module's characters are kept readable.
        return self.function + "$" + _NOT_WORD.sub(_escaped, module)

    def rows(self) -> list[tuple]:
        """The imports of the modules and members read (`import_rows`'s rows), the first
        reading's line each."""
        out = [*(import_row(module, REQUIRED, name, line) for module, (name, line) in self.names.items()),
               *(import_row(module, member, name, line) for (module, member), (name, line) in self.members.items())]
        return [row for row in out if row is not None]


def exported_members(defs: Iterable, names: list[tuple[int, dict]],
                     text: Callable[[tree_sitter.Node], str]) -> Iterator[tuple]:
    """Export rows (`import_rows`'s) of the members defined on a name for the module's exports
    (the ``@exports`` matches: ``var Auth = exports; Auth.token = function`` exports ``token``)."""
    aliases = {text(caps["exports"][0]) for _, caps in names}
    for d in defs if aliases else ():
        owner, dot, name = d.sym.qualified_name.partition(".") if d.sym is not None else ("", "", "")
        if dot and owner in aliases and "." not in name:
            yield ("", d.sym.qualified_name, name, 0, d.sym.start_line, True)


def as_written(function: str, receiver: str) -> str:
    """A receiver `InlineRequires.receiver` gave, with the `require("m")` it replaced."""
    if not function or not receiver.startswith(function + "$"):
        return receiver
    name = _REQUIRED_NAME.match(receiver, len(function) + 1)
    module = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), name.group())
    return f'{function}("{module}"){receiver[name.end():]}'


def _escaped(char: re.Match) -> str:
    return f"${ord(char.group()):x}$"


_REQUIRED_NAME = re.compile(r"[\w$]*")
_ESCAPE = re.compile(r"\$([0-9a-f]+)\$")


def local_requires(imports: list[tuple[tree_sitter.Node, dict]], inside: Callable[[int], bool],
                   requires: InlineRequires, text: Callable[[tree_sitter.Node], str],
                   ) -> tuple[list[tuple[tree_sitter.Node, dict]], dict[tree_sitter.Node, str]]:
    """The `require` imports written inside a function or a closure (``const { make } =
    require("../make")`` in a test's callback) of a name the file imports at its top as well,
    taken out of the file's imports: each binds a name of the scope around it, not of the
    module, to the module's value or a member of it (imported under a name no identifier can
    be, `InlineRequires`). Returns the imports left and, per name node, what it is bound to.
    ``inside``: whether a byte is in a function or a closure."""
    if not requires.function:
        return imports, {}
    kept, nested, local = [], [], {}
    for node, caps in imports:
        alias, name, module = caps.get("import.alias"), caps.get("import.name"), caps.get("import.module")
        if module and (alias or name) and node.type == "variable_declarator" and inside(node.start_byte):
            nested.append((node, caps, alias, name, module))
        else:
            kept.append((node, caps))
    # Only where the module binds the name too: elsewhere the name is the file's one import of it.
    top = imported_names([(n, c) for n, c in kept if "import.export" not in c and not inside(n.start_byte)], text)
    for node, caps, alias, name, module in nested:
        required = f"{requires.function}({text(module[0])})"
        if text((alias or name)[0]) not in top:
            kept.append((node, caps))
        elif name:  # `const { a } = require("m")`, `const b = require("m").a`: as the import of `a` would
            local[(alias or name)[0]] = requires.member(unquote(text(module[0])), text(name[0]), node_line(node))
        elif (held := requires.receiver(required, node_line(node))) != required:
            local[alias[0]] = held  # `const m = require("m")`: the module's value
        else:
            kept.append((node, caps))
    return kept, local


def imported_names(imports: list[tuple[tree_sitter.Node, dict]], text: Callable[[tree_sitter.Node], str]) -> set[str]:
    """The names a file's import matches bind (Python's: ``import a.b`` binds ``a``)."""
    return {text(c["import.alias"][0]) if "import.alias" in c else
            text(c["import.name"][0]).rpartition(".")[2] if "import.name" in c else
            text(c["import.module"][0]).partition(".")[0] if "import.module" in c else "" for _, c in imports}
