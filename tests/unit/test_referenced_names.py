"""The names a file's references depend on, computed once by the parser process: the same as
the symbol table reads from the records, in every language, and kept in the index state."""

from pathlib import Path

import pytest

from graphsvc.indexing.state import decode, encode
from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve.table import _referenced_names

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "symbols"


def _fixture_files():
    for path in sorted(FIXTURES.rglob("*")):
        spec = language_for_path(str(path)) if path.is_file() else None
        if spec is not None:
            yield pytest.param(path, spec.name, id=str(path.relative_to(FIXTURES)))


_FILES = list(_fixture_files())


def test_the_fixtures_cover_every_language():
    assert {p.values[1] for p in _FILES} >= {"python", "go", "typescript", "javascript", "c", "cpp", "java", "rust"}


@pytest.mark.parametrize(("path", "lang"), _FILES)
def test_the_parser_process_names_what_the_records_name(path, lang):
    ext = decode(encode(extract_file(path.name, path.read_bytes(), lang)), texts=False)
    if ext.skip_reason is not None:
        assert ext.referenced is None  # nothing extracted: nothing computed
        return
    assert ext.referenced is not None
    computed = ext.referenced
    ext.referenced = None  # as an extraction made otherwise: read from its records
    assert computed == _referenced_names(ext)
