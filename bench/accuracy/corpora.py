"""Real code nobody here wrote, fetched once into ``bench/.cache/`` through the package managers.

Each corpus is pinned to an exact version so the figures are reproducible; a corpus already
unpacked is reused. The C corpus is zlib as vendored by the ``libz-sys`` crate: a C library
shipped on a registry we can reach, with its sources intact.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(__file__).resolve().parent.parent / ".cache"


@dataclass(frozen=True, slots=True)
class Corpus:
    lang: str  # our language name
    label: str  # what it is, for the report
    root: Path  # directory to index and to run ctags on
    exclude: tuple[str, ...] = ()  # gitignore-style patterns left out on both sides


class FetchError(RuntimeError):
    pass


def _run(cmd: list[str], cwd: Path, env: dict | None = None, timeout: int = 600) -> str:
    try:
        done = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True,
                              text=True, timeout=timeout)
    except FileNotFoundError as exc:
        raise FetchError(f"{cmd[0]} is not installed; it is needed to fetch this corpus") from exc
    if done.returncode != 0:
        raise FetchError(f"{' '.join(cmd)} failed in {cwd}:\n{done.stderr.strip()[-2000:]}")
    return done.stdout


def _npm_package(name: str, version: str) -> Path:
    """The unpacked tarball of an npm package, fetched with `npm pack`."""
    base = CACHE / "npm"
    flat = f"{name.lstrip('@').replace('/', '-')}-{version}"
    root = base / flat
    if not (root / "package.json").is_file():
        base.mkdir(parents=True, exist_ok=True)
        _run(["npm", "pack", f"{name}@{version}", "--silent"], base)
        tmp = base / f"{flat}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        with tarfile.open(base / f"{flat}.tgz") as tar:
            tar.extractall(tmp, filter="data")
        shutil.rmtree(root, ignore_errors=True)
        (tmp / "package").rename(root)
        shutil.rmtree(tmp)
    return root


def typescript() -> Corpus:
    """rxjs 7.8.1 from npm: the package ships its TypeScript sources under src/."""
    return Corpus("typescript", "npm rxjs@7.8.1 (src/)", _npm_package("rxjs", "7.8.1") / "src")


# npm packages that ship their TypeScript sources (src/), for the call-edge oracle.
TS_CALL_PACKAGES = (("rxjs", "7.8.1", ()), ("mobx", "6.13.5", ()),
                    ("@tanstack/query-core", "5.59.0", ("__tests__/",)))


# Measured the same way as a check on code the resolver was not tuned on (in-process only).
TS_CHECK_PACKAGES = (("immer", "10.1.1", ()),)


def typescript_call_corpora(packages: tuple = TS_CALL_PACKAGES) -> list[Corpus]:
    return [Corpus("typescript", f"npm {name}@{version} (src/)", _npm_package(name, version) / "src", exclude)
            for name, version, exclude in packages]


def typescript_check_corpora() -> list[Corpus]:
    return typescript_call_corpora(TS_CHECK_PACKAGES)


# npm packages written in CommonJS JavaScript (constructor functions, prototypes,
# `module.exports`, `require`), checked with the TypeScript checker (`allowJs`) from their root.
JS_CALL_PACKAGES = (("router", "1.3.8"), ("commander", "2.20.3"), ("request", "2.88.2"), ("send", "0.19.0"),
                    ("bluebird", "3.7.2"), ("express", "4.21.2"), ("body-parser", "1.20.3"), ("mime", "1.6.0"),
                    ("q", "1.5.1"), ("mysql", "2.18.1"), ("redis", "3.1.2"), ("chai", "4.3.10"),
                    ("mocha", "10.2.0"))
JS_EXCLUDE = ("test/", "tests/", "benchmark/", "examples/", "dist/", "js/browser/", "node_modules/")


def javascript_call_corpora() -> list[Corpus]:
    return [Corpus("javascript", f"npm {name}@{version}", _npm_package(name, version), JS_EXCLUDE)
            for name, version in JS_CALL_PACKAGES]


TYPESCRIPT_VERSION = "5.4.5"


def typescript_compiler() -> Path:
    """The TypeScript compiler from npm, pinned: its parser settles what ctags' TypeScript
    parser misses, its checker is the call-edge oracle."""
    return _npm_package("typescript", TYPESCRIPT_VERSION) / "lib" / "typescript.js"


GO_ENV = {"GOPATH": str(CACHE / "go" / "path"), "GOMODCACHE": str(CACHE / "go" / "mod"),
          "GOFLAGS": "-modcacherw", "GO111MODULE": "on"}


def go_module(module: str, version: str) -> Corpus:
    """A Go module through `go mod download` into a private module cache."""
    base = CACHE / "go"
    base.mkdir(parents=True, exist_ok=True)
    info = json.loads(_run(["go", "mod", "download", "-json", f"{module}@{version}"], base, GO_ENV))
    return Corpus("go", f"Go module {module}@{version}", Path(info["Dir"]))


def go() -> Corpus:
    """github.com/spf13/cobra v1.8.0."""
    return go_module("github.com/spf13/cobra", "v1.8.0")


_CARGO_TOML = """[package]
name = "accuracy-corpus"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
regex-syntax = "=0.8.2"
libz-sys = { version = "=1.1.15", default-features = false, features = ["static"] }
"""


def _cargo_vendor() -> Path:
    base = CACHE / "cargo"
    vendor = base / "vendor"
    if not (vendor / "regex-syntax-0.8.2").is_dir() or not (vendor / "libz-sys-1.1.15").is_dir():
        proj = base / "proj"
        (proj / "src").mkdir(parents=True, exist_ok=True)
        (proj / "Cargo.toml").write_text(_CARGO_TOML)
        (proj / "src" / "main.rs").write_text("fn main() {}\n")
        _run(["cargo", "vendor", "--versioned-dirs", str(vendor)], proj, {"CARGO_HOME": str(base / "home")})
    return vendor


def rust() -> Corpus:
    """regex-syntax 0.8.2 from crates.io, through a throwaway project and `cargo vendor`."""
    return Corpus("rust", "crate regex-syntax@0.8.2 (src/)", _cargo_vendor() / "regex-syntax-0.8.2" / "src")


def c() -> Corpus:
    """zlib as vendored by the libz-sys 1.1.15 crate: the library's own .c and .h files."""
    root = _cargo_vendor() / "libz-sys-1.1.15" / "src" / "zlib"
    return Corpus("c", "zlib (vendored in crate libz-sys@1.1.15), top-level .c/.h", root,
                  exclude=("*/",))


def java() -> Corpus:
    """commons-lang3 3.14.0 sources jar from Maven Central, through `mvn dependency:copy`."""
    artifact = "org.apache.commons:commons-lang3:3.14.0:jar:sources"
    base = CACHE / "maven"
    jar = base / "commons-lang3-3.14.0-sources.jar"
    root = base / "commons-lang3-3.14.0"
    if not root.is_dir():
        base.mkdir(parents=True, exist_ok=True)
        if not jar.is_file():
            _run(["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={artifact}", f"-DoutputDirectory={base}"], base)
        tmp = base / "unpack.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        with zipfile.ZipFile(jar) as z:
            z.extractall(tmp)
        tmp.rename(root)
    return Corpus("java", "Maven org.apache.commons:commons-lang3:3.14.0 sources jar", root)


def _pypi(requirement: str, binary: bool) -> Path:
    """A PyPI distribution through `pip download --no-deps`: an sdist or a wheel file."""
    base = CACHE / "pypi"
    base.mkdir(parents=True, exist_ok=True)
    # File names spell a project's name with "-", "_" or "." (`python-dateutil-2.9.0.tar.gz`,
    # `python_dateutil-2.9.0-py2.py3-none-any.whl`): compared normalised.
    name, version = requirement.split("==")
    prefix = re.sub(r"[-_.]+", "_", f"{name}-{version}-".lower())
    suffix = ".whl" if binary else ".tar.gz"

    def found() -> list[Path]:
        return [p for p in base.iterdir() if p.name.endswith(suffix)
                and re.sub(r"[-_.]+", "_", p.name.lower()).startswith(prefix)]

    if not found():
        kind = ["--only-binary", ":all:"] if binary else ["--no-binary", ":all:"]
        _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", *kind, requirement, "-d", str(base)], base)
        if not found():
            raise RuntimeError(f"pip downloaded {requirement} into {base}, but no {suffix} file of it is there")
    return found()[0]


def django() -> tuple[Corpus, Path]:
    """Django 5.1.4's sdist from PyPI (its `django/` package), and a directory holding the
    pure-Python packages it imports (asgiref 3.8.1, sqlparse 0.5.1) for the import oracle."""
    sdist = _pypi("Django==5.1.4", binary=False)
    with tarfile.open(sdist) as tar:
        root = CACHE / "pypi" / tar.getnames()[0].split("/")[0]
        if not (root / "django").is_dir():
            tar.extractall(CACHE / "pypi", filter="data")
    deps = CACHE / "pypi" / "django-deps"
    if not (deps / "asgiref").is_dir() or not (deps / "sqlparse").is_dir():
        for requirement in ("asgiref==3.8.1", "sqlparse==0.5.1"):
            with zipfile.ZipFile(_pypi(requirement, binary=True)) as z:
                z.extractall(deps)
    exclude = ("tests/", "docs/", "scripts/", "extras/", "js_tests/")
    return Corpus("python", "PyPI Django==5.1.4 (django/)", root, exclude), deps


FETCHERS = {"typescript": typescript, "go": go, "rust": rust, "java": java, "c": c}
