"""The paths of a tree that changed, told by the kernel, for a process that indexes it again
and again (the server's index jobs, `graphsvc watch`): its next run lists only the
directories holding them (`indexers.tree.rescan_tree`) instead of walking the whole tree.

Linux's inotify, through ctypes: a watch on every directory the walk lists, added just before
it lists it, so a change is either in the listing or reported. The kernel queues an event
before the write that causes it returns, so reading the queue when a run starts sees every
change made before the run was asked for. Wherever that cannot be relied on (another system,
the watch limit reached, the queue overflowed, the root itself moved) `changes()` says None
and the caller walks the whole tree, watching it anew.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from indexers.tree import TreeScan, rescan_tree

# <sys/inotify.h>
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF = 0x400, 0x800
_IN_UNMOUNT, _IN_Q_OVERFLOW, _IN_IGNORED = 0x2000, 0x4000, 0x8000
_IN_ONLYDIR, _IN_DONT_FOLLOW = 0x01000000, 0x02000000
_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
         | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR | _IN_DONT_FOLLOW)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then len bytes of NUL-padded name

_libc = None
_libc_guard = threading.Lock()


def _inotify():
    global _libc
    with _libc_guard:
        if _libc is None:
            libc = ctypes.CDLL(None, use_errno=True)
            if not all(hasattr(libc, f) for f in ("inotify_init1", "inotify_add_watch", "inotify_rm_watch")):
                raise OSError("no inotify")
            _libc = libc
        return _libc


class TreeWatch:
    """inotify watches on the directories of one tree, as `scan_tree`'s `on_listing`."""

    def __init__(self, root: str):
        self.root = root
        self.wds: dict[int, str] = {}  # watch descriptor -> the directory's path relative to the root
        self.broken = False  # a change may have gone unreported: only a full walk can tell
        self.fd = -1
        if not sys.platform.startswith("linux"):
            self.broken = True
            return
        try:
            self.libc = _inotify()
        except OSError:
            self.broken = True
            return
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            self.broken = True  # too many instances for this user

    def add(self, path: str, rel: str) -> None:
        """Watch the directory at absolute `path`, `rel` in the tree (just before it is listed)."""
        if self.broken:
            return
        wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), _MASK)
        if wd < 0:
            self.broken = True  # e.g. ENOSPC: fs.inotify.max_user_watches reached
            return
        self.wds[wd] = rel

    def changes(self) -> set[str] | None:
        """The paths (relative to the root) of every entry changed since the last call, or
        None when that cannot be told."""
        changed: set[str] = set()
        while not self.broken:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                self.broken = True
                break
            self._parse(data, changed)
        return None if self.broken else changed

    def _parse(self, data: bytes, changed: set[str]) -> None:
        offset = 0
        while offset < len(data):
            wd, mask, _, size = _EVENT.unpack_from(data, offset)
            name = data[offset + _EVENT.size: offset + _EVENT.size + size].rstrip(b"\0")
            offset += _EVENT.size + size
            if mask & (_IN_Q_OVERFLOW | _IN_UNMOUNT):
                self.broken = True
                return
            if mask & _IN_IGNORED:
                self.wds.pop(wd, None)  # the directory is gone, or its watch was removed
                continue
            where = self.wds.get(wd)
            if where is None:
                continue
            if name:
                entry = os.fsdecode(name)
                changed.add(f"{where}/{entry}" if where else entry)
                continue
            if where == "" and mask & (_IN_DELETE_SELF | _IN_MOVE_SELF):
                self.broken = True  # the root itself went away
                return
            changed.add(where)
            if mask & _IN_MOVE_SELF:
                # Listed again under its new path (if it is still in the tree), it is watched
                # anew there; its old path must not name its changes meanwhile.
                self.libc.inotify_rm_watch(self.fd, wd)
                self.wds.pop(wd, None)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self.broken = True


@dataclass(slots=True)
class _Watched:
    key: tuple  # what the scan was made with: root, exclude patterns, ignore files, size limit
    watch: TreeWatch
    scan: TreeScan


# The last scan of each workspace this process watches (by index state path), at most a few
# at a time: each holds an inotify instance, of which a user has 128 by default.
_WATCHED: dict[Path, _Watched] = {}
_WATCHED_GUARD = threading.Lock()  # runs of different workspaces go on side by side
MAX_WATCHED = 16


def watched_scan(spath: Path, root: Path, full_scan: Callable[[Callable[[str, str], None] | None], TreeScan], *,
                 max_file_bytes: int, exclude: Sequence[str], ignore_files: bool) -> TreeScan:
    """The tree's scan: the last one brought up to date from what the kernel reported since,
    or else `full_scan(on_listing)`, watched from then on."""
    key = (str(root.resolve()), tuple(exclude), ignore_files, max_file_bytes)
    with _WATCHED_GUARD:
        watched = _WATCHED.pop(spath, None)
    scan = None
    if watched is not None and watched.key == key:
        changed = watched.watch.changes()
        if changed is not None:
            scan = rescan_tree(watched.scan, changed, max_file_bytes=max_file_bytes, exclude=exclude,
                               ignore_files=ignore_files, on_listing=watched.watch.add)
    if scan is None:
        if watched is not None:
            watched.watch.close()
        watch = TreeWatch(key[0])
        try:
            scan = full_scan(None if watch.broken else watch.add)
        except BaseException:
            watch.close()
            raise
        watched = _Watched(key, watch, scan)
    watched.scan = scan
    if watched.watch.broken:
        watched.watch.close()
        return scan
    with _WATCHED_GUARD:
        while len(_WATCHED) >= MAX_WATCHED:
            _WATCHED.pop(next(iter(_WATCHED))).watch.close()
        _WATCHED[spath] = watched
    return scan
