"""Files hashed after the kernel reads them ahead give the records of hashing each in turn."""

from __future__ import annotations

import hashlib
import os

import indexers.tree as tree
from indexers.tree import Skip, scan_tree


def _fixture(root) -> None:
    """Many files in a few directories, with every kind of file the walk skips or hashes."""
    for d in range(6):
        sub = root / f"d{d}" / "inner"
        sub.mkdir(parents=True)
        for i in range(150):
            (root / f"d{d}" / f"f{i}.py").write_text(f"x = {d * 1000 + i}\n" * (i % 7))
        (sub / "data.bin").write_bytes(b"\0\1\2" * 100)
        (sub / "big.txt").write_text("y" * 5000)
        (sub / "empty.txt").write_text("")
    (root / "locked.py").write_text("secret = 1\n")
    os.chmod(root / "locked.py", 0)
    os.symlink("d0/f1.py", root / "link.py")
    os.symlink("nowhere.py", root / "broken.py")
    os.symlink("d1", root / "dirlink")


def test_read_ahead_scan_equals_scanning_each_file_in_turn(tmp_path, monkeypatch):
    _fixture(tmp_path)
    ahead = scan_tree(tmp_path, max_file_bytes=4096)
    monkeypatch.setattr(tree, "READ_AHEAD_FILES", 0)
    in_turn = scan_tree(tmp_path, max_file_bytes=4096)
    os.chmod(tmp_path / "locked.py", 0o644)
    assert len(ahead.files) > 2 * tree.READ_AHEAD_FILES
    assert ahead.files == in_turn.files and ahead.dirs == in_turn.dirs
    assert ahead.stamps == in_turn.stamps and ahead.bytes_read == in_turn.bytes_read
    assert None not in ahead.files
    by_path = {f.path: f for f in ahead.files}
    assert by_path["d2/f9.py"].hash == hashlib.sha256((tmp_path / "d2/f9.py").read_bytes()).hexdigest()
    assert by_path["d0/inner/data.bin"].skip_reason == Skip.BINARY
    assert by_path["d0/inner/big.txt"].skip_reason == Skip.TOO_LARGE
    assert by_path["d0/inner/empty.txt"].skip_reason == Skip.EMPTY
    assert by_path["link.py"].hash == by_path["d0/f1.py"].hash
    assert by_path["broken.py"].skip_reason == Skip.SYMLINK_BROKEN
    assert by_path["dirlink"].skip_reason == Skip.SYMLINK_DIR
    if os.geteuid() != 0:
        assert by_path["locked.py"].skip_reason == Skip.UNREADABLE
