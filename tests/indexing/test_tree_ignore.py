"""Ignore rules in the tree walk follow git, including negations that re-include directories.

The expected lists are what `git ls-files --others --exclude-standard` lists for the same
tree and `.gitignore`; where git is installed, the test also asks git itself.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from indexers.tree import is_ignored, scan_tree

FILES = ["a.py", "src/a.py", "src/sub/b.py", "src/build/w.o", "build/x.o", "build/keep/k.py", "lib/z.py",
         "lib/build/y.o"]

CASES = [
    # `*/` matches directories at every depth; `!src/` re-includes only `src` itself.
    (["*/", "!src/"], ["a.py", "src/a.py"]),
    # `build/**` is everything inside build, not build itself, so build/keep can come back...
    (["build/**", "!build/keep/"], ["a.py", "lib/build/y.o", "lib/z.py", "src/a.py", "src/build/w.o", "src/sub/b.py"]),
    # ...and the files in it too, once they are re-included themselves.
    (["build/**", "!build/keep/", "!build/keep/**"],
     ["a.py", "build/keep/k.py", "lib/build/y.o", "lib/z.py", "src/a.py", "src/build/w.o", "src/sub/b.py"]),
    # Ignore everything but Python files, at any depth.
    (["*", "!*/", "!*.py"], ["a.py", "build/keep/k.py", "lib/z.py", "src/a.py", "src/sub/b.py"]),
    # A file below an ignored directory cannot be re-included (git does not look inside).
    (["build/", "!build/keep/"], ["a.py", "lib/z.py", "src/a.py", "src/sub/b.py"]),
    (["/*", "!/src/"], ["src/a.py", "src/build/w.o", "src/sub/b.py"]),
    (["*.o", "!lib/**/*.o"], ["a.py", "build/keep/k.py", "lib/build/y.o", "lib/z.py", "src/a.py", "src/sub/b.py"]),
]


def _make(root: Path, ignore: list[str] | None) -> None:
    for rel in FILES:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    if ignore is not None:
        (root / ".gitignore").write_text("\n".join(ignore) + "\n")


def _check_git_agrees(root: Path, expected: list[str]) -> None:
    if not shutil.which("git"):
        return
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    assert sorted(p for p in listed if p != ".gitignore") == expected


def _indexed(root: Path, exclude: list[str] = ()) -> list[str]:
    return sorted(f.path for f in scan_tree(root, max_file_bytes=1 << 20, exclude=exclude).files
                  if f.path != ".gitignore")


@pytest.mark.parametrize(("ignore", "expected"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_gitignore_negations_match_git(tmp_path, ignore, expected):
    _make(tmp_path, ignore)
    assert _indexed(tmp_path) == expected
    _check_git_agrees(tmp_path, expected)


@pytest.mark.parametrize(("ignore", "expected"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_exclude_option_uses_the_same_rules(tmp_path, ignore, expected):
    _make(tmp_path, None)
    assert _indexed(tmp_path, exclude=ignore) == expected


def test_comments_escapes_classes_and_trailing_spaces(tmp_path):
    _make(tmp_path, ["# build/", r"\#notes", "a.py   ", "[bl]*/", "!lib/"])
    (tmp_path / "#notes").write_text("x\n")
    # `a.py` (trailing spaces dropped) matches at every depth; `lib/build` matches `[bl]*/` again.
    expected = ["lib/z.py", "src/sub/b.py"]
    assert _indexed(tmp_path) == expected
    _check_git_agrees(tmp_path, expected)


def test_ignore_files_can_be_overridden(tmp_path):
    # Debian's linux-source: the top-level .gitignore keeps only debian/ (`/*`, `!/debian/`).
    _make(tmp_path, ["/*", "!/debian/"])
    (tmp_path / "src" / ".graphsvcignore").write_text("sub/\n")
    assert _indexed(tmp_path) == []
    every = sorted(f.path for f in scan_tree(tmp_path, max_file_bytes=1 << 20, ignore_files=False).files)
    assert every == sorted([*FILES, ".gitignore", "src/.graphsvcignore"])
    # Patterns given with the run still apply.
    some = scan_tree(tmp_path, max_file_bytes=1 << 20, ignore_files=False, exclude=["*.o", ".*"]).files
    assert sorted(f.path for f in some) == ["a.py", "build/keep/k.py", "lib/z.py", "src/a.py", "src/sub/b.py"]
    # The watcher asks the same of each changed path.
    assert [rel for rel in FILES if not is_ignored(tmp_path, rel, False)] == []
    assert [rel for rel in FILES if not is_ignored(tmp_path, rel, False, ignore_files=False)] == FILES
    assert is_ignored(tmp_path, "a.o", False, ["*.o"], ignore_files=False)


@pytest.mark.parametrize(("ignore", "expected"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_one_path_is_ignored_as_the_walk_ignores_it(tmp_path, ignore, expected):
    """What the watcher asks of each changed path agrees with the whole walk."""
    _make(tmp_path, ignore)
    assert sorted(rel for rel in FILES if not is_ignored(tmp_path, rel, False)) == expected
    assert is_ignored(tmp_path, ".git/HEAD", False)
    _make(tmp_path / "x", None)
    assert [rel for rel in FILES if not is_ignored(tmp_path / "x", rel, False, exclude=ignore)] == [
        rel for rel in FILES if rel in expected]
