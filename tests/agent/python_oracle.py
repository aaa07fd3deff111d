"""What a Python package's source says, read with `ast` alone, as the oracle of the one-call
questions: definitions with their lines, class bases, and calls resolved the way a reader
resolves them without running anything.

A call is resolved when its callee is a name bound in the module (a ``def``, a ``class``, an
import from the package) or in the enclosing function (a nested ``def``), an attribute of an
imported module or of a class of the package, ``self.m``/``cls.m`` in a method (looked up
along the class's bases in the package), or ``v.m`` where the function bound ``v`` by calling
a class of the package (``v = Session()``, ``with Session() as v``). Everything else (calls on
parameters, on dicts, on builtins and other packages) is unresolved; ``super().m`` is looked
up along the bases: the oracle says nothing
about those, so questions are checked on the package's own entities.
"""

from __future__ import annotations

import ast
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Def:
    id: str  # the graph's id rule: <file>#<qualified name>
    module: str
    qual: str
    kind: str  # class or function
    line: int
    end_line: int
    node: ast.AST
    owner: Def | None  # the class a method belongs to
    locals: dict[str, str] = field(default_factory=dict)  # nested defs: name -> id


class Project:
    def __init__(self, root: Path, package: str):
        self.root = root
        self.files: dict[str, str] = {}  # module -> file relative to root
        self.trees: dict[str, ast.Module] = {}
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            module = rel[:-3].replace("/", ".").removesuffix(".__init__")
            self.files[module] = rel
            self.trees[module] = ast.parse(path.read_bytes(), rel)
        self.defs: dict[str, Def] = {}
        self.top: dict[str, dict[str, Def]] = {m: {} for m in self.trees}  # module -> name -> def
        self.imports: dict[str, dict[str, tuple[str, str | None]]] = {m: {} for m in self.trees}
        for module, tree in self.trees.items():
            self._collect(module, tree.body, None, None, "")
            self._imports(module, tree)
        self.bases: dict[str, list[str]] = {
            d.id: [b.id for b in map(lambda e, d=d: self.resolve(d.module, e), d.node.bases) if isinstance(b, Def)]
            for d in self.defs.values() if d.kind == "class"
        }
        self.calls: dict[str, set[str]] = defaultdict(set)
        for d in self.defs.values():
            if d.kind == "function":
                self._calls(d)

    # --- definitions and imports ---------------------------------------------------------

    def _collect(self, module: str, body: list[ast.stmt], owner: Def | None, outer: Def | None, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = prefix + node.name
                kind = "class" if isinstance(node, ast.ClassDef) else "function"
                d = Def(f"{self.files[module]}#{qual}", module, qual, kind, node.lineno, node.end_lineno, node,
                        owner if kind == "function" else None)
                self.defs[d.id] = d
                if outer is not None:
                    outer.locals[node.name] = d.id
                elif owner is None:
                    self.top[module][node.name] = d
                if kind == "class":
                    self._collect(module, node.body, d, None, qual + ".")
                else:
                    self._collect(module, node.body, None, d, qual + ".")
            elif isinstance(node, (ast.If, ast.Try)) and owner is None and outer is None:
                for part in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])):
                    self._collect(module, part, owner, outer, prefix)

    def _imports(self, module: str, tree: ast.Module) -> None:
        package = module if self.files[module].endswith("__init__.py") else module.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    self.imports[module][alias.asname or alias.name] = (base, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[module][alias.asname] = (alias.name, None)
                    else:
                        top = alias.name.split(".")[0]
                        self.imports[module][top] = (top, None)

    def lookup(self, module: str, name: str, seen: frozenset = frozenset()) -> Def | str | None:
        """What `name` is in `module`'s namespace: a def, a module name (str) or None."""
        if (module, name) in seen or module not in self.trees:
            return None
        if name in self.top[module]:
            return self.top[module][name]
        if name in self.imports[module]:
            base, member = self.imports[module][name]
            if member is None:
                return base if base in self.trees else None
            if f"{base}.{member}" in self.trees:
                return f"{base}.{member}"
            return self.lookup(base, member, seen | {(module, name)})
        return None

    def member(self, cls: Def, name: str) -> Def | None:
        """`name` looked up along the class and its bases in the package (breadth first)."""
        queue, seen = deque([cls.id]), set()
        while queue:
            cid = queue.popleft()
            if cid in seen:
                continue
            seen.add(cid)
            d = self.defs.get(f"{cid}.{name}")
            if d is not None:
                return d
            queue.extend(self.bases.get(cid, []))
        return None

    def resolve(self, module: str, expr: ast.expr, scope: dict[str, Def | str] | None = None) -> Def | str | None:
        if isinstance(expr, ast.Name):
            if scope and expr.id in scope:
                return scope[expr.id]
            return self.lookup(module, expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.resolve(module, expr.value, scope)
            if isinstance(base, str):
                return self.lookup(base, expr.attr)
            if isinstance(base, Def) and base.kind == "class":
                return self.member(base, expr.attr)
        return None

    # --- calls -----------------------------------------------------------------------------

    def _own_nodes(self, d: Def):
        """The nodes of a function's body, not descending into nested defs and classes."""
        nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        stack = [n for n in d.node.body if not isinstance(n, nested)]
        while stack:
            node = stack.pop()
            if node is None:
                continue
            yield node
            stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, nested))

    def _calls(self, d: Def) -> None:
        scope: dict[str, Def | str] = {name: self.defs[i] for name, i in d.locals.items()}
        instances: dict[str, Def] = {}
        if d.owner is not None and d.node.args.args:
            instances[d.node.args.args[0].arg] = d.owner  # self, cls
        nodes = list(self._own_nodes(d))
        for node in nodes:  # variables bound by calling a class of the package
            value, targets = None, []
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                value, targets = node.value, node.targets
            elif isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call) and node.optional_vars:
                value, targets = node.context_expr, [node.optional_vars]
            if value is not None:
                cls = self.resolve(d.module, value.func, scope)
                for t in targets:
                    if isinstance(t, ast.Name) and isinstance(cls, Def) and cls.kind == "class":
                        instances[t.id] = cls
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            target = None
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in instances:
                target = self.member(instances[f.value.id], f.attr)
            elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call) and d.owner is not None
                  and isinstance(f.value.func, ast.Name) and f.value.func.id == "super"):
                found = (self.member(self.defs[b], f.attr) for b in self.bases.get(d.owner.id, []))
                target = next((m for m in found if m is not None), None)
            else:
                target = self.resolve(d.module, f, scope)
            if isinstance(target, Def):
                self.calls[d.id].add(target.id)

    # --- answers -----------------------------------------------------------------------------

    def by_dotted(self, dotted: str) -> Def:
        module, _, rest = dotted.partition(".")
        while module not in self.trees or (rest and self.lookup(module, rest.split(".")[0]) is None):
            head, _, rest = rest.partition(".")
            module = f"{module}.{head}"
        found: Def | str | None = module
        for part in rest.split("."):
            found = self.lookup(found, part) if isinstance(found, str) else self.member(found, part)
        assert isinstance(found, Def), dotted
        return found

    def callers(self, target: str) -> set[str]:
        return {caller for caller, callees in self.calls.items() if target in callees}

    def callers_within(self, target: str, depth: int) -> dict[str, int]:
        """Each entity calling `target` transitively, with its depth (the nearest)."""
        found: dict[str, int] = {}
        frontier = {target}
        for level in range(1, depth + 1):
            frontier = {c for t in frontier for c in self.callers(t)} - set(found) - {target}
            for c in frontier:
                found[c] = level
        return found

    def shortest_call_path(self, source: str, target: str) -> int | None:
        queue, seen = deque([(source, 0)]), {source}
        while queue:
            node, hops = queue.popleft()
            if node == target:
                return hops
            for nxt in sorted(self.calls.get(node, ())):
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, hops + 1))
        return None

    def subclasses(self, cls: str) -> set[str]:
        out, changed = set(), True
        while changed:
            changed = False
            for c, bases in self.bases.items():
                if c not in out and (cls in bases or out & set(bases)):
                    out.add(c)
                    changed = True
        return out

    def superclasses(self, cls: str) -> set[str]:
        out, queue = set(), deque(self.bases.get(cls, []))
        while queue:
            b = queue.popleft()
            if b not in out:
                out.add(b)
                queue.extend(self.bases.get(b, []))
        return out

    def overridden(self, method: str) -> set[str]:
        """The methods of the nearest bases (in the package) that `method` overrides."""
        d = self.defs[method]
        name = d.qual.rsplit(".", 1)[1]
        found = set()
        for base in self.bases.get(d.owner.id, []):
            m = self.member(self.defs[base], name)
            if m is not None:
                found.add(m.id)
        return found

    def overriding(self, method: str) -> set[str]:
        """The methods of subclasses (in the package) that override `method` directly."""
        d = self.defs[method]
        name = d.qual.rsplit(".", 1)[1]
        return {
            f"{sub}.{name}" for sub in self.subclasses(d.owner.id)
            if f"{sub}.{name}" in self.defs and method in self.overridden(f"{sub}.{name}")
        }

    def innermost(self, file: str, line: int) -> str | None:
        """The innermost definition spanning a line of a file."""
        spans = [d for d in self.defs.values() if d.id.startswith(file + "#") and d.line <= line <= d.end_line]
        return min(spans, key=lambda d: d.end_line - d.line).id if spans else None

    def lines_with(self, text: str) -> set[tuple[str, int]]:
        """(file, line) of every line holding `text`."""
        return {
            (rel, n)
            for rel in self.files.values()
            for n, line in enumerate((self.root / rel).read_text().splitlines(), 1)
            if text in line
        }
