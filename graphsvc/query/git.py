"""What git says changed in a workspace's directory: the `git` executable, run with an
argument list (never a shell) in that directory, its answers bounded.

Paths are relative to the directory (`--relative`), the way the workspace's file ids are,
also when the repository's root is above it.
"""

from __future__ import annotations

import subprocess
import tempfile
import threading
from pathlib import Path

from graphsvc.errors import InputError

# Git answers the questions asked here at once; beyond this something is wrong (a lock, a
# network file system), and the caller is better told than kept waiting.
GIT_TIMEOUT_S = 60
MAX_UNTRACKED = 10_000


def _git(root: Path, *args: str, limit: int | None = None) -> str:
    """`git args…` in `root`: its output, or InputError with git's own reason. With `limit`,
    more than `limit` characters of output is refused without reading the rest."""
    shown = f"`git {' '.join(args)}` in {root}"
    with tempfile.TemporaryFile() as err:  # not a pipe: git never waits for us to read it
        try:
            proc = subprocess.Popen(
                ["git", "-c", "core.quotepath=off", *args], cwd=root, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=err, text=True, encoding="utf-8", errors="replace",
            )
        except FileNotFoundError:
            raise InputError("the git executable is not on PATH: install git, "
                             "or give the change as a unified diff") from None
        except NotADirectoryError:
            raise InputError(f"{root} is not a directory: index the workspace again from where it is now") from None
        timed_out = threading.Event()
        timer = threading.Timer(GIT_TIMEOUT_S, lambda: (timed_out.set(), proc.kill()))
        timer.start()
        try:
            out = proc.stdout.read(-1 if limit is None else limit + 1)
            if limit is not None and len(out) > limit:
                proc.kill()
        finally:
            proc.stdout.close()
            proc.wait()
            timer.cancel()
        if limit is not None and len(out) > limit:
            raise InputError(f"{shown} gives more than {limit} characters: "
                             "compare with a nearer ref, or give a smaller unified diff")
        if timed_out.is_set():
            raise InputError(f"{shown} took over {GIT_TIMEOUT_S} s: is the repository locked or on a slow disk?")
        if proc.returncode:
            err.seek(0)
            text = err.read().decode("utf-8", "replace").strip()
            reason = text.splitlines()[-1] if text else f"exit status {proc.returncode}"
            raise InputError(f"{shown} failed: {reason}")
    return out


def check_repository(root: Path) -> None:
    """InputError unless `root` is a directory inside a git work tree."""
    if not root.is_dir():
        raise InputError(f"{root} is not a directory: index the workspace again from where it is now")
    try:
        inside = _git(root, "rev-parse", "--is-inside-work-tree").strip()
    except InputError as exc:
        if "not a git repository" not in str(exc):
            raise
        inside = "false"
    if inside != "true":
        raise InputError(f"{root} is not in a git repository: give the change as a unified diff instead of a ref")


def commit_of(root: Path, ref: str) -> str:
    """The commit `ref` (a branch, tag, commit or expression such as `HEAD~2`) names in `root`."""
    if not ref or ref.startswith("-") or any(c.isspace() or c == "\0" for c in ref):
        raise InputError(f"{ref!r} is not a git ref: give a branch, tag or commit such as HEAD or main")
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    except InputError:
        raise InputError(f"unknown git ref {ref!r} in {root}: give a branch, tag or commit that exists there") from None


def diff_against(root: Path, commit: str, limit: int) -> str:
    """The unified diff from `commit` to the files as they are now (staged or not), without
    context lines: at most `limit` characters."""
    return _git(root, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "--relative",
                "--unified=0", commit, "--", limit=limit)


def untracked(root: Path) -> list[str]:
    """The files under `root` git does not track and does not ignore: at most `MAX_UNTRACKED`."""
    names = [n for n in _git(root, "ls-files", "--others", "--exclude-standard", "-z").split("\0") if n]
    if len(names) > MAX_UNTRACKED:
        raise InputError(f"{root} has {len(names)} untracked files, more than {MAX_UNTRACKED}: "
                         "add them to .gitignore or commit them")
    return names
