"""A scan brought up to date from the paths that changed must be the scan of the tree now."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from indexers.tree import TreeScan, rescan_tree, scan_tree

LIMIT = 1000


def _same(a: TreeScan, b: TreeScan) -> None:
    assert sorted(a.dirs, key=lambda d: d.path) == sorted(b.dirs, key=lambda d: d.path)
    assert sorted(a.files, key=lambda f: f.path) == sorted(b.files, key=lambda f: f.path)
    assert a.stamps == b.stamps
    assert a.links == b.links


class _Tree:
    """Random edits of a small tree, each reporting the paths it changed as a watcher does."""

    def __init__(self, root: Path, seed: int):
        self.root, self.rng = root, random.Random(seed)

    def _dirs(self) -> list[Path]:
        return [self.root] + sorted(p for p in self.root.rglob("*") if p.is_dir() and not p.is_symlink())

    def _files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*") if p.is_file() or p.is_symlink())

    def rel(self, p: Path) -> str:
        return p.relative_to(self.root).as_posix()

    def step(self) -> set[str]:
        rng, dirs, files = self.rng, self._dirs(), self._files()
        op = rng.choice(["new", "new", "edit", "edit", "delete", "mkdir", "rmdir", "rename", "link", "big", "chmod"])
        parent = rng.choice(dirs)
        if op == "new" or (not files and op in ("edit", "delete", "link")):
            p = parent / f"f{rng.randrange(1000)}.py"
            p.write_text(f"x = {rng.random()}\n" * rng.randint(0, 3))
            return {self.rel(p)}
        if op == "edit":
            p = rng.choice(files)
            if p.is_symlink():
                p = p.resolve()
                if not p.exists() or not p.is_relative_to(self.root):
                    return set()
            with p.open("a") as fh:  # in place, as an editor saving it may
                fh.write("y = 1\n")
            return {self.rel(p)}
        if op == "delete":
            p = rng.choice(files)
            p.unlink()
            return {self.rel(p)}
        if op == "mkdir":
            p = parent / f"d{rng.randrange(100)}"
            p.mkdir(exist_ok=True)
            (p / "inner.py").write_text("z = 1\n")
            (p / "sub").mkdir(exist_ok=True)
            (p / "sub" / "deep.py").write_text("w = 1\n")
            return {self.rel(p)}
        if op == "rmdir" and len(dirs) > 1:
            p = rng.choice(dirs[1:])
            for q in sorted(p.rglob("*"), reverse=True):
                q.unlink() if q.is_file() or q.is_symlink() else q.rmdir()
            p.rmdir()
            return {self.rel(p)}
        if op == "rename" and len(dirs) > 1:
            p = rng.choice(dirs[1:])
            target = self.root / f"moved{rng.randrange(100)}"
            if target.exists() or target.is_relative_to(p):
                return set()
            p.rename(target)
            return {self.rel(p), self.rel(target)}
        if op == "link" and files:
            target = rng.choice(files)
            p = parent / f"l{rng.randrange(100)}.py"
            if p.exists() or p.is_symlink():
                return set()
            p.symlink_to(target)
            return {self.rel(p)}
        if op == "big":
            p = parent / "big.py"
            p.write_bytes(b"# " + b"x" * (LIMIT + rng.randint(-2, 2)) + b"\n")
            return {self.rel(p)}
        if op == "chmod" and len(dirs) > 1:
            p = rng.choice(dirs[1:])
            mode = p.stat().st_mode & 0o777
            p.chmod(0o700 if mode == 0 else 0)
            return {self.rel(p)}
        return set()


def _seed_tree(root: Path) -> None:
    for rel in ("a.py", "pkg/__init__.py", "pkg/mod.py", "pkg/sub/x.py", "docs/readme.md", "empty.py"):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("" if rel == "empty.py" else f"# {rel}\n")
    (root / "pkg" / "data.bin").write_bytes(b"\0\1\2")
    (root / "ignored").mkdir()
    (root / "ignored" / "skip.py").write_text("s = 1\n")
    (root / ".gitignore").write_text("ignored/\n*.log\n")


def test_rescans_after_random_edits_equal_full_scans(tmp_path):
    rescans = 0
    for seed in range(12):
        root = tmp_path / f"tree{seed}"
        root.mkdir()
        _seed_tree(root)
        tree = _Tree(root, seed)
        scan = scan_tree(root, max_file_bytes=LIMIT)
        for _ in range(25):
            changed = set()
            for _ in range(tree.rng.randint(1, 3)):
                changed |= tree.step()
            updated = rescan_tree(scan, changed, max_file_bytes=LIMIT)
            full = scan_tree(root, max_file_bytes=LIMIT)
            if updated is None:  # an ignore file changed
                assert any(c.endswith(".gitignore") for c in changed)
                updated = full
            else:
                rescans += 1
            _same(updated, full)
            scan = updated
        for p in [root, *root.rglob("*")]:
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
    assert rescans > 250


def test_a_directory_made_again_under_its_old_name_is_listed_whole(tmp_path):
    _seed_tree(tmp_path)
    scan = scan_tree(tmp_path, max_file_bytes=LIMIT)
    for q in sorted((tmp_path / "pkg").rglob("*"), reverse=True):
        q.unlink() if q.is_file() else q.rmdir()
    (tmp_path / "pkg").rmdir()
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "other.py").write_text("o = 1\n")
    # What a watcher reports: the directory's entry in the root; the old `pkg/sub` had its
    # own watch, the new one none yet.
    _same(rescan_tree(scan, {"pkg"}, max_file_bytes=LIMIT), scan_tree(tmp_path, max_file_bytes=LIMIT))


def test_a_changed_ignore_file_or_root_asks_for_a_full_scan(tmp_path):
    _seed_tree(tmp_path)
    scan = scan_tree(tmp_path, max_file_bytes=LIMIT)
    assert rescan_tree(scan, {".gitignore"}, max_file_bytes=LIMIT) is None
    assert rescan_tree(scan, {"pkg/.graphsvcignore"}, max_file_bytes=LIMIT) is None
    assert rescan_tree(scan, {""}, max_file_bytes=LIMIT) is None
    _same(rescan_tree(scan, set(), max_file_bytes=LIMIT), scan)


def test_the_kernels_report_of_random_edits_gives_the_full_scan(tmp_path):
    """What inotify reports is enough: each rescan from it equals a walk of the whole tree."""
    watch_mod = pytest.importorskip("graphsvc.indexing.tree_watch")
    for seed in range(6):
        root = tmp_path / f"tree{seed}"
        root.mkdir()
        _seed_tree(root)
        tree = _Tree(root, seed + 100)
        watch = watch_mod.TreeWatch(str(root.resolve()))
        if watch.broken:
            pytest.skip("no inotify here")
        scan = scan_tree(root, max_file_bytes=LIMIT, on_listing=watch.add)
        try:
            for _ in range(25):
                for _ in range(tree.rng.randint(1, 3)):
                    tree.step()
                changed = watch.changes()
                assert changed is not None
                updated = rescan_tree(scan, changed, max_file_bytes=LIMIT, on_listing=watch.add)
                full = scan_tree(root, max_file_bytes=LIMIT)
                _same(updated if updated is not None else full, full)
                scan = updated if updated is not None else scan_tree(root, max_file_bytes=LIMIT, on_listing=watch.add)
        finally:
            watch.close()
            for p in [root, *root.rglob("*")]:
                if p.is_dir() and not p.is_symlink():
                    p.chmod(0o755)


def test_a_moved_root_or_a_full_queue_asks_for_a_full_scan(tmp_path):
    from graphsvc.indexing.tree_watch import TreeWatch

    root = tmp_path / "tree"
    root.mkdir()
    _seed_tree(root)
    watch = TreeWatch(str(root))
    if watch.broken:
        pytest.skip("no inotify here")
    scan_tree(root, max_file_bytes=LIMIT, on_listing=watch.add)
    (root / "a.py").write_text("changed\n")
    assert watch.changes() == {"a.py"}
    assert watch.changes() == set()
    root.rename(tmp_path / "elsewhere")
    assert watch.changes() is None
    watch.close()
