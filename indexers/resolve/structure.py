"""What a file's structure says, resolved: the symbols it contains, the modules it imports and
the bases of its types."""

from __future__ import annotations

from graphsvc.model import external_module_id, external_symbol_id
from indexers.resolve.common import Prov, Reason, Rel
from indexers.resolve.resolver import Resolver


def contains(r: Resolver) -> None:
    """CONTAINS edges from each symbol's parent (the file, or the symbol around it)."""
    for sym in r.ext.symbols:
        r.edge(sym.parent, sym.id, Rel.CONTAINS, Prov.EXTRACTED, 1.0, Reason.SYNTAX, sym.start_line)


def imports(r: Resolver) -> None:
    """IMPORTS edges from the file to the files and external modules it imports."""
    ctx = r.context(r.ext.path)
    for dst, (reason, line) in ctx.edges.items():
        if dst == r.ext.path:
            continue
        if reason == Reason.EXTERNAL:
            r.stats.imports_external += 1
        else:
            r.stats.imports_internal += 1
        r.edge(r.ext.path, dst, Rel.IMPORTS, Prov.EXTRACTED, 1.0, reason, line)
    r.stats.imports_unresolved += ctx.unresolved


def inherits(r: Resolver) -> None:
    """INHERITS / IMPLEMENTS edges from each type to its bases as written."""
    for ref in r.ext.inherits:
        rel = Rel.IMPLEMENTS if ref.kind == "implements" else Rel.INHERITS
        src = ref.type_id
        if src is None:
            found = r.resolve_type(ref.subject, "")
            if found is None or found[0][0] != "sym" or len(found[0][1]) != 1:
                continue
            src = found[0][1][0]
        found = r.resolve_type(ref.base, r.bases_scope(ref.subject))
        if found is None:
            continue
        ent, reason, conf = found
        if ent[0] == "ext":
            dst = external_symbol_id(ent[1], ent[2]) if ent[2] else external_module_id(ent[1])
            r.edge(src, dst, rel, Prov.INFERRED, 1.0, Reason.EXTERNAL, ref.line)
            continue
        if ent[0] != "sym":
            continue
        ids = [i for i in ent[1] if i != src]
        if not ids:
            continue
        if len(ids) > 1:
            for dst in ids:
                r.edge(src, dst, rel, Prov.INFERRED, 1.0 / len(ids), Reason.CANDIDATE, ref.line)
            continue
        if reason == Reason.SCOPE and ids[0].startswith(r.ext.path + "#"):
            r.edge(src, ids[0], rel, Prov.EXTRACTED, 1.0, Reason.SYNTAX, ref.line)
        else:
            r.edge(src, ids[0], rel, Prov.INFERRED, conf, reason, ref.line)

