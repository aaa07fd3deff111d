"""What a workspace's graph is a function of, besides its files: the indexer's fingerprint.

The graph holds what this version of the indexer computed from the files. Another version
(its extraction queries, the extractor or resolver code, the graph model and writer, the
grammar wheels, the schema) or another extraction setting may compute something else from
the same bytes, so the index state records this fingerprint and a run that finds a different
one redoes everything instead of trusting extractions and edges of the old version.

Computed once per process: the code and grammars of a running process do not change.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from functools import cache
from pathlib import Path

import indexers
from graphsvc import model
from graphsvc.graph import schema, writer
from graphsvc.settings import Settings, get_settings
from indexers import languages

_INDEXERS_DIR = Path(indexers.__file__).resolve().parent
_INDEXING_DIR = Path(__file__).resolve().parent
# Code outside the two indexing packages whose change changes what the graph holds.
_GRAPH_CODE = (Path(model.__file__), Path(writer.__file__))


def _distribution_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def _grammar_versions() -> dict[str, str]:
    """tree-sitter and every grammar wheel the language table names."""
    names = {"tree-sitter"} | {spec.package.replace("_", "-") for spec in languages.LANGUAGES.values()}
    return {name: _distribution_version(name) for name in sorted(names)}


def _settings_part(settings: Settings) -> dict:
    # Only the settings extraction reads: which files are parsed at all. Batch sizes and
    # worker counts change how fast, not what. Exclude patterns are per run and already
    # handled file by file (an excluded file is a deleted one).
    return {"max_file_bytes": settings.index.max_file_bytes}


def fingerprint(query_dir: Path, settings: Settings) -> str:
    """The fingerprint of the code under ``query_dir``'s queries with ``settings``; not cached."""
    h = hashlib.sha256()
    # Subpackages too: the extractor and resolver code may live in packages of their own.
    sources = [*sorted(_INDEXERS_DIR.rglob("*.py")), *sorted(_INDEXING_DIR.glob("*.py")),
               *sorted(query_dir.glob("*.scm"))]
    for path in [*sources, *_GRAPH_CODE]:
        data = path.read_bytes()
        h.update(f"{path.name}\0{len(data)}\0".encode())
        h.update(data)
    versions = _grammar_versions()
    schema_version = max((m.version for m in schema.migrations()), default=0)
    h.update(json.dumps([versions, schema_version, _settings_part(settings)], sort_keys=True).encode())
    return h.hexdigest()[:32]


@cache
def _cached(query_dir: Path, settings_key: str) -> str:
    return fingerprint(query_dir, get_settings())


def indexer_fingerprint() -> str:
    """The fingerprint of this process's indexer with the current settings (cached)."""
    settings = get_settings()
    return _cached(languages.QUERY_DIR, json.dumps(_settings_part(settings), sort_keys=True))
