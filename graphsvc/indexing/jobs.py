"""Background index jobs with pollable progress.

The API starts `index-tree` / `index-symbols` here instead of on the request's clock. Jobs
run one at a time (two writers on one workspace would race) on a worker thread; each reports
`done`/`total`/`message` through the index run's progress callback. Paths are accepted only
inside `server.workspace_roots`: checked when the job is submitted and again, on the real path,
when it starts (the directory may have been replaced by a link meanwhile). The workspace name
is checked at submit; an existing workspace is re-rooted only when the job says `replace`.
"""

from __future__ import annotations

import threading
import time
import traceback
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

from graphsvc.errors import GraphsvcError, InputError
from graphsvc.graph.driver import get_graph
from graphsvc.graph.reads import workspace_root
from graphsvc.indexing.pipeline import check_workspace_root, index_symbols, index_tree, workspace_name
from graphsvc.settings import Settings, get_settings

KINDS = ("index-tree", "index-symbols")
KEEP_FINISHED = 100


@dataclass
class Job:
    """A background index job; poll it for `state`, `done`/`total` and `message`."""

    id: str
    kind: str
    path: str
    workspace: str
    replace: bool = False  # may index into a workspace that holds another root
    ignore_files: bool = True  # honour .gitignore and .graphsvcignore files
    state: str = "queued"  # queued | running | done | failed
    done: int = 0
    total: int | None = None
    message: str = ""
    error: str | None = None
    summary: dict[str, Any] | None = None
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_index_path(path: str, roots: list[Path]) -> Path:
    """The real directory to index, if it lies inside one of `roots`; else InputError.

    Relative paths are taken against the first root. `..` components are refused outright,
    and symlinks are resolved before the containment check, so a link out of a root fails.
    """
    if not roots:
        raise InputError(
            "indexing through the API is off: set server.workspace_roots "
            "(GRAPHSVC_SERVER__WORKSPACE_ROOTS='[\"/path/to/repos\"]') to the directories it may read"
        )
    if not path or "\0" in path:
        raise InputError("path must be a directory under one of the workspace roots")
    raw = Path(path)
    if ".." in raw.parts:
        raise InputError(f"path {path!r} contains '..': give a path inside a workspace root")
    candidate = raw if raw.is_absolute() else Path(roots[0]) / raw
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python 3.11)
        raise InputError(f"{path!r} cannot be resolved: {exc}") from None
    for root in roots:
        real_root = Path(root).expanduser().resolve()
        if resolved == real_root or resolved.is_relative_to(real_root):
            if not resolved.is_dir():
                raise InputError(f"{path!r} is not a directory")
            return resolved
    raise InputError(
        f"{path!r} is outside the workspace roots ({', '.join(str(r) for r in roots)}); "
        "only paths inside them can be indexed"
    )


class JobRegistry:
    def __init__(self, settings: Settings | None = None):
        self.settings = settings or get_settings()
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphsvc-job")

    def submit(self, kind: str, path: str, workspace: str | None = None, replace: bool = False,
               ignore_files: bool = True) -> Job:
        if kind not in KINDS:
            raise InputError(f"unknown job kind {kind!r}: use {' or '.join(KINDS)}")
        real = check_index_path(path, list(self.settings.server.workspace_roots))
        ws = workspace_name(real, workspace)
        # Checked again when the job runs, against what is stored then.
        check_workspace_root(ws, workspace_root(get_graph(), ws), real, replace)
        job = Job(id=uuid.uuid4().hex[:12], kind=kind, path=str(real), workspace=ws, replace=replace,
                  ignore_files=ignore_files)
        with self._lock:
            self._jobs[job.id] = job
            self._forget_old()
        self._pool.submit(self._run, job)
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def list(self) -> list[Job]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: j.created_at, reverse=True)

    def wait(self, job_id: str, timeout_s: float = 60.0) -> Job:
        """Block until the job finishes (for the CLI and tests)."""
        deadline = time.monotonic() + timeout_s
        while True:
            job = self.get(job_id)
            if job is None or job.state in ("done", "failed") or time.monotonic() > deadline:
                return job
            time.sleep(0.05)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.state in ("done", "failed")]
        for j in sorted(finished, key=lambda j: j.created_at)[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._jobs[j.id]

    def _run(self, job: Job) -> None:
        job.state, job.started_at = "running", time.time()

        def progress(done: int, total: int | None, message: str) -> None:
            job.done, job.total, job.message = done, total, message

        try:
            real = check_index_path(job.path, list(self.settings.server.workspace_roots))
            # The server indexes the same trees again and again: each is watched between jobs.
            summary = _indexer(job.kind)(real, workspace=job.workspace, replace=job.replace, progress=progress,
                                           ignore_files=job.ignore_files, watch_tree=True)
            job.summary = _plain(summary)
            job.state, job.message = "done", "finished"
        except GraphsvcError as exc:
            job.state, job.error = "failed", str(exc)
        except Exception as exc:  # a bug in an indexer must not kill the worker
            job.state = "failed"
            job.error = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
        finally:
            job.finished_at = time.time()


def _indexer(kind: str) -> Callable[..., Any]:
    return index_tree if kind == "index-tree" else index_symbols


def _plain(summary: Any) -> dict[str, Any] | None:
    if summary is None:
        return None
    if hasattr(summary, "to_dict"):
        return summary.to_dict()
    if is_dataclass(summary):
        return asdict(summary)
    return summary if isinstance(summary, dict) else {"result": str(summary)}
