"""A defect of the extractor on one file costs that file, not the whole index."""

from __future__ import annotations

import pytest

from graphsvc.indexing import pool
from graphsvc.indexing.state import decode


@pytest.mark.parametrize("error", [OverflowError("int too big to convert"), ZeroDivisionError("division by zero"),
                                   AttributeError("no attribute 'x'"), ValueError("bad")])
def test_an_extractor_error_skips_the_file_naming_the_error(tmp_path, monkeypatch, error):
    (tmp_path / "a.c").write_text("int f(void) { return 0; }\n")

    def broken(rel, data, lang):
        raise error

    monkeypatch.setattr(pool, "extract_file", broken)
    ext = decode(pool._parse_one((str(tmp_path), "a.c", "c")), True)
    assert ext.path == "a.c"
    assert ext.skip_reason == f"extract-error: {type(error).__name__}: {error}"
    assert ext.symbols == []


def test_running_out_of_memory_is_not_taken_for_the_file(tmp_path, monkeypatch):
    (tmp_path / "a.c").write_text("int f(void) { return 0; }\n")

    def broken(rel, data, lang):
        raise MemoryError

    monkeypatch.setattr(pool, "extract_file", broken)
    with pytest.raises(MemoryError):
        pool._parse_one((str(tmp_path), "a.c", "c"))
