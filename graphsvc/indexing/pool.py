"""The parser processes: read and extract files, in worker processes when there are many.

Workers import this module and the extractor only, never the graph driver.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence

from graphsvc.indexing.state import decode, encode
from graphsvc.indexing.summary import Progress
from indexers.extract import FileExtraction, extract_file
from indexers.languages import GrammarError

# Below this many changed files, parsing in-process beats starting worker processes.
INLINE_PARSE_FILES = 24


def _parse_one(job: tuple[str, str, str]) -> bytes:
    """Worker: read and extract one file; unreadable files come back with a skip reason.

    The result travels encoded as the index state stores it (`graphsvc.indexing.state.encode`):
    the parent loads that faster than a pickle and saves the same bytes without encoding again.
    """
    root, rel, lang = job
    path = os.path.join(root, rel)
    # A directory replaced by a link since the scan must not lead the read out of the root.
    if not os.path.realpath(path).startswith(os.path.join(root, "")):
        return encode(FileExtraction(path=rel, lang=lang, skip_reason=f"unreadable: {path} left the workspace"))
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return encode(FileExtraction(path=rel, lang=lang, skip_reason=f"unreadable: {exc.strerror or exc}"))
    try:
        return encode(extract_file(rel, data, lang))
    except GrammarError as exc:
        # A broken grammar install must not stop the other languages; the reason names it.
        return encode(FileExtraction(path=rel, lang=lang, skip_reason=f"grammar-error: {exc}"))
    except MemoryError:
        raise  # the machine's trouble, not the file's
    except Exception as exc:  # noqa: BLE001 - any defect of the extractor, whatever its class
        # A file the extractor trips on must not stop an index of tens of thousands (the
        # kernel's took 20 minutes); the file is kept, skipped, with the error as its reason.
        return encode(FileExtraction(path=rel, lang=lang, skip_reason=f"extract-error: {type(exc).__name__}: {exc}"))


def parse_files(
    root: str, files: Sequence[tuple[str, str]], jobs: int, progress: Progress | None, texts: bool = True
) -> Iterator[tuple[FileExtraction, bytes]]:
    """Extract ``(rel_path, lang)`` files using ``jobs`` processes; yields each extraction and
    its encoded form as they come. Without ``texts`` the extractions are decoded without the
    symbols' signatures and docs (`decode`), which only the encoded form then holds."""
    work = [(root, rel, lang) for rel, lang in files]
    total = len(work)
    if jobs <= 1 or total <= INLINE_PARSE_FILES:
        for i, job in enumerate(work, 1):
            blob = _parse_one(job)
            yield decode(blob, texts), blob
            if progress and (i % 50 == 0 or i == total):
                progress(i, total, "parsing: " + job[1])
        return
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    # Largest files first keeps both workers busy until the end.
    work.sort(key=lambda j: -_size(os.path.join(j[0], j[1])))
    with ctx.Pool(jobs) as pool:
        for i, blob in enumerate(pool.imap_unordered(_parse_one, work, chunksize=8), 1):
            ext = decode(blob, texts)
            yield ext, blob
            if progress and (i % 50 == 0 or i == total):
                progress(i, total, "parsing: " + ext.path)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
