"""Walk a repository into directory and file records (pure: no database).

Honours ``.gitignore`` files at every level and ``.graphsvcignore`` (unless told not to:
a source package whose top-level ``.gitignore`` excludes everything, like Debian's
``linux-source``); never follows a
symbolic link to a directory (so no loops and nothing outside the workspace) and only
follows file links whose target stays inside the workspace. Every file that is not indexed
normally gets a skip reason instead of disappearing.
"""

from __future__ import annotations

import errno
import hashlib
import os
import posixpath
import re
import stat
from collections import Counter, deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import count
from pathlib import Path

from graphsvc import model
from graphsvc.errors import InputError
from indexers.records import DirRecord, FileRecord

IGNORE_FILES = (".gitignore", ".graphsvcignore")
ALWAYS_IGNORED = frozenset({".git", ".hg", ".svn"})
BINARY_SNIFF_BYTES = 8192
# Files a walk asks the kernel to read ahead before it hashes the oldest: with a cold page
# cache each read would otherwise wait on the disk in turn.
READ_AHEAD_FILES = 128


class Skip:
    """Why a file is recorded but not indexed."""

    BINARY = "binary"
    TOO_LARGE = "too-large"
    EMPTY = "empty"
    UNREADABLE = "unreadable"
    INVALID_NAME = "invalid-utf8-name"
    SYMLINK_DIR = "symlink-to-directory"
    SYMLINK_OUTSIDE = "symlink-outside-workspace"
    SYMLINK_BROKEN = "broken-symlink"
    SYMLINK_LOOP = "symlink-loop"
    SPECIAL = "not-a-regular-file"


# Kinds of text that are not parsed for symbols but worth a language tag.
_OTHER_LANGUAGES = {
    ".md": "markdown", ".rst": "restructuredtext", ".txt": "text", ".json": "json",
    ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".ini": "ini", ".cfg": "ini",
    ".html": "html", ".css": "css", ".sh": "shell", ".sql": "sql", ".xml": "xml",
    ".cypher": "cypher", ".scm": "query", ".graphql": "graphql",
}


def language_of(rel_path: str) -> str | None:
    return _language_of_extension(os.path.splitext(rel_path)[1].lower())


@cache
def _language_of_extension(ext: str) -> str | None:
    from indexers.languages import language_for_path

    spec = language_for_path("x" + ext)
    if spec is not None:
        return spec.name
    return _OTHER_LANGUAGES.get(ext)


@dataclass(slots=True)
class ScanChanges:
    """What `rescan_tree` changed of the scan it started from (the one of generation
    `since`): the records it listed again (changed or not), sorted by path, and the ids of
    the records no longer in the tree."""

    since: int
    listed: list[DirRecord | FileRecord]
    gone: set[str]


_GENERATIONS = count()


@dataclass(slots=True)
class TreeScan:
    root: Path
    dirs: list[DirRecord] = field(default_factory=list)
    files: list[FileRecord] = field(default_factory=list)
    # (size, mtime_ns) per file id, so the next scan can skip hashing unchanged files.
    stamps: dict[str, tuple[int, int]] = field(default_factory=dict)
    bytes_read: int = 0
    links: set[str] = field(default_factory=set)  # files that are symbolic links (to a file inside)
    # (device, inode) of each directory listed: a directory replaced by another (deleted and
    # made again, moved over) is a new one to a rescan, whatever its path
    identities: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)
    # rescan_tree's index of the records by path, handed from one rescan to the next
    index: tuple | None = field(default=None, repr=False, compare=False)
    # Which scan this is in this process, and what a rescan changed (None: a full scan)
    generation: int = field(default_factory=_GENERATIONS.__next__, repr=False, compare=False)
    changes: ScanChanges | None = field(default=None, repr=False, compare=False)

    def skipped(self) -> Counter[str]:
        return Counter(f.skip_reason for f in self.files if f.skip_reason)


@dataclass(frozen=True, slots=True)
class _Pattern:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def _glob_regex(glob: str) -> str:
    """One path segment's glob (``*``, ``?``, ``[...]``, backslash escapes) as a regex."""
    out, i = [], 0
    while i < len(glob):
        ch = glob[i]
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))
        elif ch == "[":
            end = i + 1
            if end < len(glob) and glob[end] in "!^":
                end += 1
            if end < len(glob) and glob[end] == "]":
                end += 1
            end = glob.find("]", end)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = glob[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                body = body.replace("\\", "\\\\").replace("[", "\\[")
                out.append(f"(?!/)[{'^' if negate else ''}{body}]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _compile_pattern(line: str) -> _Pattern | None:
    """A gitignore line as a regex over one exact path (relative, no trailing slash).

    pathspec matches a path *or any of its parents*, which is right for a flat file list but
    wrong for this walker, which asks about each directory before entering it: with
    ``*/`` then ``!src/``, pathspec re-includes ``src/sub/`` because its parent ``src/``
    matches the negation, where git keeps it ignored. So each pattern is matched against
    the path itself, as git does, and parents are handled by not descending into them.
    """
    if not line or line.startswith("#"):
        return None
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "  # a trailing space escaped with a backslash is kept
    negated = stripped.startswith("!")
    body = stripped[1:] if negated else stripped
    dir_only = body.endswith("/")
    body = body.rstrip("/")
    if not body:
        return None
    anchored = "/" in body
    parts = body.lstrip("/").split("/")
    regex = "" if anchored else "(?:.*/)?"
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**" and len(parts) > 1:
            if i == 0:
                regex += "(?:.*/)?"  # leading **/: in any directory
            elif last:
                regex += ".+"  # trailing /**: everything inside, not the directory itself
            else:
                regex += "(?:.*/)?"  # /**/: zero or more directories
            continue
        regex += _glob_regex(part) + ("" if last else "/")
    return _Pattern(re.compile(regex, re.DOTALL), negated, dir_only)


def _compile(lines: Sequence[str]) -> tuple[_Pattern, ...]:
    return tuple(p for p in map(_compile_pattern, lines) if p is not None)


class _Ignore:
    """The stack of ignore patterns in force for one directory, each list with its base."""

    def __init__(self, specs: tuple[tuple[str, tuple[_Pattern, ...]], ...] = ()):
        self.specs = specs

    def child(self, dir_abs: str, dir_rel: str, present: Collection[str] = IGNORE_FILES) -> _Ignore:
        """The patterns in force inside the directory; `present`: names it holds, when known
        (only ignore files among them are opened)."""
        lines: list[str] = []
        for name in IGNORE_FILES:
            if name not in present:
                continue
            try:
                with open(os.path.join(dir_abs, name), encoding="utf-8", errors="replace") as fh:
                    lines.extend(fh.read().splitlines())
            except OSError:
                continue
        patterns = _compile(lines)
        if not patterns:
            return self
        return _Ignore(self.specs + ((dir_rel, patterns),))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether this path is ignored; the walker never asks about the inside of an
        ignored directory (git cannot re-include a file whose parent is excluded)."""
        result = False
        for base, patterns in self.specs:
            sub = rel[len(base) + 1 :] if base else rel
            # The last matching pattern decides; a deeper file's verdict overrides a shallower one.
            for pattern in patterns:
                if (is_dir or not pattern.dir_only) and pattern.regex.fullmatch(sub):
                    result = not pattern.negated
        return result


def _clean_name(name: str) -> tuple[str, bool]:
    """Names that are not valid UTF-8 arrive with surrogates; Neo4j cannot store those."""
    try:
        name.encode("utf-8")
        return name, True
    except UnicodeEncodeError:
        raw = os.fsencode(name)
        return raw.decode("utf-8", errors="replace"), False


def _hash_file(path: str, size: int) -> tuple[str, bool]:
    """SHA-256 of the content and whether it looks binary (a NUL byte near the start)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        head = fh.read(max(BINARY_SNIFF_BYTES, min(size, 1 << 20)))
        digest.update(head)
        binary = b"\0" in head[:BINARY_SNIFF_BYTES]
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest(), binary


def scan_tree(
    root: str | os.PathLike[str],
    *,
    max_file_bytes: int,
    known: Mapping[str, tuple[int, int, str, str | None]] | None = None,
    exclude: Sequence[str] = (),
    progress: Callable[[int, str], None] | None = None,
    ignore_files: bool = True,
    on_listing: Callable[[str, str], None] | None = None,
) -> TreeScan:
    """Walk ``root`` and return its directories and files.

    ``known`` maps file ids to (size, mtime_ns, hash, skip_reason) from an earlier scan: a
    file with the same size and mtime keeps its hash without being read again. ``exclude``
    holds extra gitignore-style patterns, relative to the root. ``ignore_files=False`` reads
    no ``.gitignore`` or ``.graphsvcignore`` (``exclude`` still applies). ``on_listing(path,
    rel)`` is called with each directory's absolute and relative paths just before it is
    listed (a watcher starts watching it there: what changes after the listing is reported).
    """
    root_path = Path(root)
    if not root_path.exists():
        raise InputError(f"{root}: no such directory; give the path of a repository to index")
    if not root_path.is_dir():
        raise InputError(f"{root}: not a directory; give the path of a repository to index")
    root_path = root_path.resolve()
    root_str = str(root_path)
    scan = TreeScan(root=root_path)
    scan.dirs.append(DirRecord(id=model.WORKSPACE_ID, name=root_path.name, path=""))
    walker = _Walker(scan, root_str, max_file_bytes, known or {}, ignore_files, progress, on_listing)
    root_stat = os.stat(root_str)
    walker.walk([(root_str, "", walker.base(exclude), (root_stat.st_dev, root_stat.st_ino))])
    if progress:
        progress(walker.seen, "")
    return scan


class _Walker:
    """Lists directories into a TreeScan: `scan_tree`'s walk, and `rescan_tree`'s of the
    directories that changed (which keeps the subdirectories it was told are known).

    A file to hash is read ahead by the kernel and hashed a few files later: its place in
    `scan.files` is kept, so the records are the same, in the same order, as a walk hashing
    each file when found."""

    def __init__(self, scan: TreeScan, root_str: str, max_file_bytes: int,
                 known: Mapping[str, tuple[int, int, str, str | None]], ignore_files: bool,
                 progress: Callable[[int, str], None] | None = None,
                 on_listing: Callable[[str, str], None] | None = None):
        self.scan, self.root_str, self.max_file_bytes, self.known = scan, root_str, max_file_bytes, known
        self.child = _Ignore.child if ignore_files else (lambda ignore, _abs, _rel, _names=(): ignore)
        self.progress, self.on_listing = progress, on_listing
        self.seen = 0
        self.kept_seen: set[str] = set()  # the `kept` subdirectories a walk found still there
        self.reading: deque[tuple[int, _ToHash]] = deque()  # (place in scan.files, file), oldest first

    @staticmethod
    def base(exclude: Sequence[str]) -> _Ignore:
        return _Ignore((("", _compile(list(exclude))),) if exclude else ())

    def walk(self, stack: list[tuple[str, str, _Ignore, tuple[int, int]]],
             kept: Mapping[str, tuple[int, int]] | None = None) -> None:
        """List the directories on `stack` (absolute path, relative path, patterns of the
        parent, (device, inode) when listed) and every new one below them; a subdirectory in
        `kept` (by path, with its identity) is recorded by the caller and not entered."""
        scan = self.scan
        while stack:
            dir_abs, dir_rel, ignore, identity = stack.pop()
            scan.identities[dir_rel] = identity
            try:
                if self.on_listing is not None:
                    self.on_listing(dir_abs, dir_rel)
                _check_same_directory(dir_abs, identity)
                entries = sorted(os.scandir(dir_abs), key=lambda e: e.name)
            except OSError as exc:
                # The directory stays in the graph with the reason; its contents cannot be read.
                i = next(i for i in reversed(range(len(scan.dirs))) if scan.dirs[i].path == dir_rel)
                scan.dirs[i] = replace(scan.dirs[i], skip_reason=f"{Skip.UNREADABLE}: {exc.strerror or exc}")
                continue
            ignore = self.child(ignore, dir_abs, dir_rel, [e.name for e in entries if e.name in IGNORE_FILES])
            for entry in entries:
                if entry.name in ALWAYS_IGNORED:
                    continue
                name, valid = _clean_name(entry.name)
                rel = f"{dir_rel}/{name}" if dir_rel else name
                try:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_link, is_dir = False, False
                if ignore.ignored(rel, is_dir):
                    continue
                if is_dir and not is_link:
                    if not valid:
                        scan.files.append(_skipped(rel, name, Skip.INVALID_NAME))
                        continue
                    identity = _identity(entry)
                    if kept and kept.get(rel) == identity:
                        self.kept_seen.add(rel)
                    else:
                        scan.dirs.append(DirRecord(id=model.dir_id(rel), name=name, path=rel))
                        stack.append((entry.path, rel, ignore, identity))
                    continue
                if is_link:
                    scan.links.add(rel)
                self.seen += 1
                if self.progress and self.seen % 500 == 0:
                    self.progress(self.seen, rel)
                self.add_file(_file_record(entry, rel, name, valid, self.root_str, self.max_file_bytes,
                                           self.known, scan))
        self.hash_read_ahead(0)

    def add_file(self, record: FileRecord | _ToHash) -> None:
        """Append a file's record, or its place while the kernel reads it ahead."""
        if isinstance(record, FileRecord):
            self.scan.files.append(record)
            return
        _read_ahead(record.path)
        self.reading.append((len(self.scan.files), record))
        self.scan.files.append(None)  # filled when hashed
        self.hash_read_ahead(READ_AHEAD_FILES)

    def hash_read_ahead(self, left: int) -> None:
        """Hash the files read ahead, oldest first, until `left` remain."""
        while len(self.reading) > left:
            index, file = self.reading.popleft()
            self.scan.files[index] = _hashed(file, self.scan)


def _identity(entry: os.DirEntry[str]) -> tuple[int, int]:
    try:
        st = entry.stat(follow_symlinks=False)
        return st.st_dev, st.st_ino
    except OSError:
        return -1, -1  # gone since listed: reported unreadable when its turn comes


def rescan_tree(
    previous: TreeScan,
    changed: Collection[str],
    *,
    max_file_bytes: int,
    exclude: Sequence[str] = (),
    ignore_files: bool = True,
    on_listing: Callable[[str, str], None] | None = None,
) -> TreeScan | None:
    """`previous` (a scan of the same root with the same settings) brought up to date, as
    `scan_tree` would find the tree now, given every path that changed since it (relative,
    '/'-separated; a change to a directory's entries names the entry). Lists again only the
    directories holding a changed path (and a changed directory itself), entering only new
    subdirectories; every file link's directory too, as its target may have changed. None
    when only a full scan can tell: the root or an ignore file changed. The scan's `changes`
    name what differs from `previous`, for a caller that compares only those records."""
    if "" in changed or any(posixpath.basename(c) in IGNORE_FILES for c in changed):
        return None
    root_str = str(previous.root)
    stamps = dict(previous.stamps)
    links = set(previous.links)
    identities = dict(previous.identities)
    # Records by path and each directory's entries: taken over from the rescan that made
    # `previous` (which keeps its lists, and builds them anew if rescanned again).
    index, previous.index = previous.index, None
    if index is None:
        dirs = {d.path: d for d in previous.dirs}
        files = {f.path: f for f in previous.files}
        children: dict[str, set[str]] = {}  # directory -> the paths of its entries
        for p in (*files, *dirs):
            if p:
                children.setdefault(posixpath.dirname(p), set()).add(p)
    else:
        dirs, files, children = index
    touched: set[str] = set()  # the paths of every record listed again or dropped
    dropped: set[str] = set()  # the ids of the records dropped

    def drop(p: str) -> None:
        """Forget an entry, and everything below it when it is a directory."""
        touched.add(p)
        if (f := files.pop(p, None)) is not None:
            dropped.add(f.id)
            stamps.pop(p, None)
            links.discard(p)
        if (d := dirs.pop(p, None)) is not None:
            dropped.add(d.id)
            identities.pop(p, None)
            for c in children.pop(p, set()):
                drop(c)
        children.get(posixpath.dirname(p), set()).discard(p)

    known = _KnownFrom(files, previous.stamps)  # read before `d`'s entries are replaced
    ignores: dict[str, _Ignore] = {}
    dirty = {posixpath.dirname(c) for c in changed} | {c for c in changed if c in dirs}
    dirty |= {posixpath.dirname(link) for link in previous.links}
    bytes_read = 0
    for d in sorted(dirty):  # parents first: a directory gone is gone before its own turn
        if d not in dirs:
            continue  # removed with its parent, or inside a directory the scan does not enter
        # A directory whose own entry changed (made again, moved, replaced) is listed whole:
        # a subdirectory's (device, inode) may be a freed one reused, not the same directory.
        subdirs = {} if d in changed else {p: identities.get(p) for p in children.get(d, ()) if p in dirs}
        part = TreeScan(root=previous.root, dirs=[DirRecord(id=dirs[d].id, name=dirs[d].name, path=d)])
        walker = _Walker(part, root_str, max_file_bytes, known, ignore_files, on_listing=on_listing)
        path = os.path.join(root_str, d) if d else root_str
        try:
            st = os.lstat(path)
            identity = (st.st_dev, st.st_ino)
        except OSError:
            identity = (-1, -1)
        walker.walk([(path, d, _ignore_above(d, root_str, exclude, walker, ignores), identity)], kept=subdirs)
        # Its entries as listed now; the subdirectories still there keep what is below them.
        for p in list(children.get(d, ())):
            if p not in walker.kept_seen:
                drop(p)
        for r in (*part.dirs, *part.files):
            (dirs if isinstance(r, DirRecord) else files)[r.path] = r
            touched.add(r.path)
            if r.path:
                children.setdefault(posixpath.dirname(r.path), set()).add(r.path)
        stamps.update(part.stamps)
        links |= part.links
        identities.update(part.identities)
        bytes_read += part.bytes_read
    listed = [r for p in sorted(touched) for r in (dirs.get(p), files.get(p)) if r is not None]
    gone = dropped - {r.id for r in listed}
    return TreeScan(root=previous.root, dirs=[dirs[p] for p in sorted(dirs)], files=[files[p] for p in sorted(files)],
                    stamps=stamps, bytes_read=bytes_read, links=links, identities=identities,
                    index=(dirs, files, children), changes=ScanChanges(previous.generation, listed, gone))


class _KnownFrom(Mapping):
    """`scan_tree`'s `known` read from an earlier scan's records."""

    def __init__(self, files: dict[str, FileRecord], stamps: dict[str, tuple[int, int]]):
        self.files, self.stamps = files, stamps

    def __getitem__(self, fid: str) -> tuple[int, int, str, str | None]:
        f, stamp = self.files[fid], self.stamps[fid]
        return stamp[0], stamp[1], f.hash, f.skip_reason

    def get(self, fid, default=None):
        return self[fid] if fid in self.stamps and fid in self.files else default

    def __iter__(self):
        return iter(self.stamps)

    def __len__(self) -> int:
        return len(self.stamps)


def _ignore_above(d: str, root_str: str, exclude: Sequence[str], walker: _Walker, memo: dict[str, _Ignore]) -> _Ignore:
    """The patterns in force for the entries of `d`'s parent, as the walk from the root has them."""
    if d == "":
        return walker.base(exclude)
    parent = posixpath.dirname(d)
    if parent not in memo:
        above = _ignore_above(parent, root_str, exclude, walker, memo)
        memo[parent] = walker.child(above, os.path.join(root_str, parent) if parent else root_str, parent)
    return memo[parent]


def _check_same_directory(path: str, identity: tuple[int, int]) -> None:
    """Raise OSError unless `path` is still the directory listed as (device, inode) `identity`:
    a directory, or one above it, replaced by a link since must not lead out of the root.
    (Cheaper than comparing `realpath`, which stats every component in Python.)"""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(path):
            raise OSError(f"{path} was replaced by a link; not followed") from None
        raise
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    if (st.st_dev, st.st_ino) != identity:
        raise OSError(f"{path} was replaced by a link; not followed")


def is_ignored(root: str | os.PathLike[str], rel: str, is_dir: bool, exclude: Sequence[str] = (),
               ignore_files: bool = True) -> bool:
    """Whether `scan_tree` leaves out the path `rel` (relative to `root`, '/'-separated): by
    the same ignore files (unless `ignore_files` is false, as for `scan_tree`), `exclude`
    patterns and always-ignored names, read as they are now."""
    parts = rel.split("/")
    if any(part in ALWAYS_IGNORED for part in parts):
        return True
    root_str = str(Path(root).resolve())
    child = _Ignore.child if ignore_files else (lambda ignore, _abs, _rel: ignore)
    ignore = child(_Ignore((("", _compile(list(exclude))),) if exclude else ()), root_str, "")
    for i in range(1, len(parts)):
        dir_rel = "/".join(parts[:i])
        if ignore.ignored(dir_rel, True):
            return True
        ignore = child(ignore, os.path.join(root_str, dir_rel), dir_rel)
    return ignore.ignored(rel, is_dir)


def _skipped(rel: str, name: str, reason: str, size: int = 0) -> FileRecord:
    return FileRecord(
        id=model.file_id(rel), name=name, path=rel, size=size, lang=None, hash=None, skip_reason=reason
    )


def _file_record(
    entry: os.DirEntry[str],
    rel: str,
    name: str,
    valid: bool,
    root_str: str,
    max_file_bytes: int,
    known: Mapping[str, tuple[int, int, str, str | None]],
    scan: TreeScan,
) -> FileRecord | _ToHash:
    """The file's record, or what to hash to make it (a regular file not known unchanged)."""
    if not valid:
        return _skipped(rel, name, Skip.INVALID_NAME)
    path = entry.path
    if entry.is_symlink():
        try:
            target = os.path.realpath(path, strict=True)
        except OSError as exc:
            return _skipped(rel, name, Skip.SYMLINK_LOOP if "loop" in str(exc).lower() else Skip.SYMLINK_BROKEN)
        if not (target == root_str or target.startswith(root_str + os.sep)):
            return _skipped(rel, name, Skip.SYMLINK_OUTSIDE)
        if os.path.isdir(target):
            return _skipped(rel, name, Skip.SYMLINK_DIR)
        path = target
    try:
        st = os.stat(path)
    except OSError:
        return _skipped(rel, name, Skip.UNREADABLE)
    if not stat.S_ISREG(st.st_mode):
        return _skipped(rel, name, Skip.SPECIAL)
    size = st.st_size
    lang = language_of(rel)
    if size > max_file_bytes:
        return FileRecord(id=model.file_id(rel), name=name, path=rel, size=size, lang=lang, hash=None,
                          skip_reason=Skip.TOO_LARGE)
    fid = model.file_id(rel)
    scan.stamps[fid] = (size, st.st_mtime_ns)
    prior = known.get(fid)
    if prior is not None and prior[0] == size and prior[1] == st.st_mtime_ns and prior[2]:
        return _record(_ToHash(fid, name, rel, size, lang, path), prior[2], prior[3])
    return _ToHash(fid, name, rel, size, lang, path)


@dataclass(frozen=True, slots=True)
class _ToHash:
    """A regular file whose content must be read: what its record holds but the hash."""

    id: str
    name: str
    rel: str
    size: int
    lang: str | None
    path: str  # the file to read (a link's target)


def _read_ahead(path: str) -> None:
    """Have the kernel start reading the file into the page cache (and return at once)."""
    if not hasattr(os, "posix_fadvise"):
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # NONBLOCK: a file replaced by a FIFO
    except OSError:
        return
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
    finally:
        os.close(fd)


def _hashed(file: _ToHash, scan: TreeScan) -> FileRecord:
    try:
        digest, binary = _hash_file(file.path, file.size)
    except OSError:
        return _skipped(file.rel, file.name, Skip.UNREADABLE, file.size)
    scan.bytes_read += file.size
    return _record(file, digest, Skip.BINARY if binary else (Skip.EMPTY if file.size == 0 else None))


def _record(file: _ToHash, digest: str, reason: str | None) -> FileRecord:
    return FileRecord(id=file.id, name=file.name, path=file.rel, size=file.size,
                      lang=None if reason == Skip.BINARY else file.lang, hash=digest, skip_reason=reason)
