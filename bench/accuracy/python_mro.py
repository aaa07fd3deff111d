"""Every class of a Python package with its ancestors, as the interpreter sees them.

Run in a subprocess whose ``sys.path`` starts with the corpus root (and its dependencies):

    python python_mro.py ROOT PACKAGE [--django]

imports every module of ``ROOT/PACKAGE`` (``--django``: with settings configured and the
contrib apps installed first, so model modules import), walks the classes each module
defines (nested classes too, not those made inside functions) and prints one JSON object:
``classes`` maps ``"file::qualname"`` to the ancestors on its ``__mro__`` that are classes
of ROOT, each as ``"file::qualname"``; ``failed`` maps the modules that did not import to
the error. Only classes written as ``class`` statements count, as classes and as
ancestors: classes made at run time (``namedtuple(...)``, a model's ``DoesNotExist``, a
manager's ``from_queryset(...)``) have no definition a graph of the source could hold;
``dynamic`` counts those left out.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
import warnings
from pathlib import Path

DJANGO_APPS = ["django.contrib.admin", "django.contrib.admindocs", "django.contrib.auth",
               "django.contrib.contenttypes", "django.contrib.flatpages", "django.contrib.humanize",
               "django.contrib.messages", "django.contrib.redirects", "django.contrib.sessions",
               "django.contrib.sitemaps", "django.contrib.sites", "django.contrib.staticfiles",
               "django.contrib.syndication"]


def _setup_django() -> None:
    from django.conf import settings

    settings.configure(INSTALLED_APPS=DJANGO_APPS, DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3",
                                                                          "NAME": ":memory:"}},
                       SECRET_KEY="x", USE_TZ=True, SITE_ID=1)
    import django

    django.setup()


def _modules(root: Path, package: str) -> list[str]:
    out = []
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if all(p.isidentifier() for p in parts):
            out.append(".".join(parts))
    return out


def _is_class(value: object) -> bool:
    """``inspect.isclass`` without touching the value (a lazy object would set itself up)."""
    return issubclass(type(value), type)


_DEFINED: dict[str, set[str]] = {}


def _class_statements(path: Path) -> set[str]:
    """Qualified names of the classes a file defines with ``class`` outside functions."""
    found = _DEFINED.get(str(path))
    if found is None:
        found = _DEFINED[str(path)] = set()
        todo = [(node, "") for node in ast.parse(path.read_bytes()).body]
        while todo:
            node, prefix = todo.pop()
            if isinstance(node, ast.ClassDef):
                found.add(prefix + node.name)
                todo += [(child, f"{prefix}{node.name}.") for child in node.body]
            elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                todo += [(child, prefix) for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
    return found


def _key(root: Path, cls: type) -> str | None:
    """``file::qualname`` of a class written as a ``class`` statement in ROOT, else None."""
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    if not file:
        return None
    try:
        rel = Path(file).resolve().relative_to(root)
    except ValueError:
        return None
    if cls.__qualname__ not in _class_statements(root / rel):
        return None
    return f"{rel.as_posix()}::{cls.__qualname__}"


def main() -> None:
    root, package = Path(sys.argv[1]).resolve(), sys.argv[2]
    warnings.simplefilter("ignore")
    if "--django" in sys.argv:
        _setup_django()
    failed: dict[str, str] = {}
    seen: dict[int, type] = {}
    for name in _modules(root, package):
        try:
            module = importlib.import_module(name)
        except BaseException as exc:  # noqa: BLE001 - a module that does not import is reported
            failed[name] = f"{type(exc).__name__}: {str(exc)[:200]}"
            continue
        todo = [v for v in vars(module).values() if _is_class(v) and v.__module__ == name]
        while todo:
            cls = todo.pop()
            if id(cls) in seen:
                continue
            seen[id(cls)] = cls
            todo.extend(v for v in vars(cls).values()
                        if _is_class(v) and v.__qualname__.startswith(cls.__qualname__ + "."))
    classes: dict[str, list[str]] = {}
    keys = {id(cls): _key(root, cls) for cls in seen.values()}
    dynamic = 0
    for cls in seen.values():
        key = keys[id(cls)]
        if key is None:
            dynamic += 1
            continue
        # An ancestor made at run time may share the qualname of the class built on it
        # (`class Dep(namedtuple("Dep", ...))`): only classes found as definitions count.
        ancestors = {keys.get(id(a)) for a in cls.__mro__[1:]} - {None, key}
        classes[key] = sorted(set(classes.get(key, [])) | ancestors)
    print(json.dumps({"python": sys.version.split()[0], "classes": classes, "failed": failed, "dynamic": dynamic}))


if __name__ == "__main__":
    main()
