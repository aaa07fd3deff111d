"""What the last completed symbol run saw, kept beside the graph for incremental runs.

One pickle per workspace under ``<home>/index/``: each file's content hash and extraction.
It is replaced atomically only after the graph writes of a run have committed, and carries a
token that the run also writes to the workspace node: if the two disagree (a run died
between them, the database was replaced, another machine indexed it) the next run is a full
one. A state that cannot be read is treated the same way: it is derived data.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from indexers.extract import FileExtraction

FORMAT = 1


@dataclass(slots=True)
class IndexState:
    token: str | None = None
    # file id -> (content hash, extraction)
    files: dict[str, tuple[str, FileExtraction]] = field(default_factory=dict)

    @staticmethod
    def new_token() -> str:
        return uuid.uuid4().hex


def state_path(home: Path, workspace: str, uri: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", workspace)[:60]
    digest = hashlib.sha256(f"{uri}\0{workspace}".encode()).hexdigest()[:12]
    return home / "index" / f"{safe}-{digest}.pickle"


def load_state(path: Path) -> IndexState:
    try:
        with path.open("rb") as fh:
            version, state = pickle.load(fh)
        if version == FORMAT and isinstance(state, IndexState):
            return state
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
        pass
    return IndexState()


def save_state(path: Path, state: IndexState) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".state-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump((FORMAT, state), fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
