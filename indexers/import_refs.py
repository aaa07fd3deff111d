"""The imports a file's query matches name, as rows of ``indexers.extract.ImportRef``."""

from __future__ import annotations

from collections.abc import Callable

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
        level = len(module) - len(module.lstrip(".")) if module.startswith(".") and "/" not in module else 0
        if level:
            module = module[level:]
        if not module and not name and not level:
            continue
        out.append((module, name, alias, level, node_line(node), "import.export" in caps))
    return out
