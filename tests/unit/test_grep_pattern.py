"""What grep asks the word index for: the literal runs every match of a regex contains.
Checked against `re` itself: every line a pattern matches holds what `required` says."""

from __future__ import annotations

import re

import pytest

from graphsvc.query.grep import required

LINES = [
    "def get_queryset(self):", "    x = fetch(url)", "# TODO: later", "# FIXME now", "import os",
    "import sys", "class A(Mixin):", "value = get(x)", "ACCEPT-LANGUAGE: en", "if not ready:",
]


@pytest.mark.parametrize(("pattern", "expected"), [
    ("foo.*barbaz", [[["foo"]], [["barbaz"]]]),
    ("TODO|FIXME", [[["TODO"], ["FIXME"]]]),
    (r"(get|fetch)\(", [[["get"], ["fetch"]]]),
    ("(abc|de)ghi", [[["ghi"]]]),  # an alternative without a run: the branch says nothing
    ("x(?:hello)+y", [[["hello"]]]),
    ("a?bcd", [[["bcd"]]]),
    ("(?:abc)?def", [[["def"]]]),
    ("[abc]def", [[["def"]]]),
    (r"\w+", []),
    ("(?i)Accept-Language", [[["Accept-Language"]]]),
    ("(?i)straße", [[["straße"]]]),  # as written: the index's lookup knows how case folds
])
def test_required_runs(pattern, expected):
    assert required(re.compile(pattern)) == expected


@pytest.mark.parametrize("pattern", [r"def \w+\(self", "TODO|FIXME", r"(get|fetch)\(", r"import (os|sys)$",
                                     "(?i)accept-language", r"^class \w+\(.*Mixin", r"if not \w+:"])
def test_every_matching_line_holds_the_runs(pattern):
    compiled = re.compile(pattern)
    for line in LINES:
        if compiled.search(line):
            folded = line.lower()
            assert all(any(all(lit.lower() in folded for lit in alt) for alt in clause)
                       for clause in required(compiled)), (pattern, line)

