"""The accuracy harness itself: oracles read the right things and the scoring is honest."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from bench.accuracy import ctags_defs, go_calls, python_calls, python_defs
from bench.accuracy.corpora import Corpus
from bench.accuracy.common import CallEdge, FileState, Sym

SOURCE = b'''\
import os

X = Y = 1

class A:
    @staticmethod
    def m():
        def inner():
            return os.getcwd()
        return inner()

    if True:
        def n(self):
            return self.m()

def f():
    return A()

def f():
    pass
'''


def _judged(ours: int, confirmed: int, precision: float) -> dict:
    """A precision group's figures: it counts only our edges, so it has no oracle keys and no recall."""
    return {"oracle": 0, "ours": ours, "found": 0, "confirmed": confirmed, "recall": None, "precision": precision}


def test_ast_oracle_qualifies_by_definitions_and_uses_the_def_line():
    defs, variables = python_defs.definitions("m.py", ast.parse(SOURCE))
    got = {(d.qual, d.kind, d.line) for d in defs}
    assert got == {
        ("A", "class", 5), ("A.m", "method", 7), ("A.m.inner", "function", 8),
        ("A.n", "method", 13), ("f", "function", 16), ("f", "function", 19),
    }
    assert {(v.name, v.line) for v in variables} == {("X", 3), ("Y", 3)}


def test_definition_scores_strip_redefinition_suffixes_and_name_the_disagreement():
    defs, _ = python_defs.definitions("m.py", ast.parse(SOURCE))
    ours = [
        Sym("m.py", "A", "A", "class", 5, 14),
        Sym("m.py", "A.m", "m", "method", 7, 10),
        Sym("m.py", "A.inner", "inner", "function", 8, 9),  # wrong nesting
        Sym("m.py", "A.n", "n", "method", 13, 14),
        Sym("m.py", "f", "f", "function", 16, 17),
        Sym("m.py", "f@2", "f", "function", 19, 20),
        Sym("m.py", "g", "g", "function", 30, 31),  # not a definition at all
    ]
    result = python_defs._compare(defs, ours, {"m.py": FileState()})
    assert (result.score.oracle, result.score.ours, result.score.found) == (6, 7, 5)
    assert result.missed == {"same line, other qualified name": 1}
    assert result.extra == {"same line, other qualified name": 1, "absent": 1}


def test_call_sites_know_their_caller_and_the_column_of_the_name():
    sites = python_calls.call_sites("m.py", ast.parse(SOURCE), SOURCE)
    by_name = {s.name: s for s in sites}
    assert by_name["getcwd"].caller == ("m.py", "A.m.inner", 8)
    assert by_name["getcwd"].col == len("            return os.")
    assert by_name["inner"].caller == ("m.py", "A.m", 7)
    assert by_name["A"].caller == ("m.py", "f", 16)
    assert "staticmethod" not in by_name  # a decorator without parentheses is no call


def _site(line, name, caller, verdict, targets=()):
    return {"file": "m.py", "line": line, "col": 0, "name": name, "caller": caller,
            "verdict": verdict, "targets": [[*t, "function"] for t in targets]}


@pytest.fixture()
def symbols():
    return [
        Sym("m.py", "A", "A", "class", 5, 14),
        Sym("m.py", "A.m", "m", "method", 7, 10),
        Sym("m.py", "A.m.inner", "inner", "function", 8, 9),
        Sym("m.py", "f", "f", "function", 16, 17),
        Sym("m.py", "f@2", "f", "function", 19, 20),
        Sym("o.py", "helper", "helper", "function", 1, 2),
    ]


def test_call_scoring_right_wrong_and_unjudged_edges(symbols):
    data = {"files": ["m.py"], "sites": [
        _site(10, "inner", ["m.py", "A.m", 7], "workspace-def", [("m.py", 8, "inner")]),
        _site(17, "A", ["m.py", "f", 16], "workspace-def", [("m.py", 5, "A")]),
        _site(20, "f", ["m.py", "f", 19], "outside"),
        _site(9, "helper", ["m.py", "A.m.inner", 8], "none"),
    ]}
    edges = [
        CallEdge("m.py#A.m", "m.py#A.m.inner", "scope", 1.0, 10, 1, False),  # right
        CallEdge("m.py#f@2", "m.py#f", "scope", 1.0, 20, 1, False),  # Jedi says: outside
        CallEdge("m.py#A.m.inner", "o.py#helper", "unique-name", 0.5, 9, 1, False),  # no verdict
    ]
    r = python_calls.measure(data, symbols, edges)
    assert r["oracle_pairs"] == 2
    assert r["precision"]["band 1.0"] == _judged(ours=2, confirmed=1, precision=0.5)
    assert r["precision"]["band 0.50"]["ours"] == 0  # not judged, so not counted either way
    assert r["recall"]["confidence = 1"]["found"] == 1  # f -> A is missing
    assert r["oracle_pairs_not_confident"] == {
        "no edge to the target (unresolved, external or another target)": 1}


def test_a_protocol_method_no_call_on_its_line_names_is_not_judged(symbols):
    # `for x in A(): ...` on line 17: Jedi's verdict is the class call's; the loop's `__iter__`
    # is no call site Jedi is asked about. `a.__iter__()` written out is judged as any call.
    symbols = [*symbols, Sym("m.py", "A.__iter__", "__iter__", "method", 11, 12)]
    data = {"files": ["m.py"], "sites": [
        _site(17, "A", ["m.py", "f", 16], "workspace-def", [("m.py", 5, "A")]),
        _site(20, "__iter__", ["m.py", "f", 19], "outside"),
    ]}
    edges = [
        CallEdge("m.py#f", "m.py#A", "scope", 1.0, 17, 1, False),
        CallEdge("m.py#f", "m.py#A.__iter__", "type", 1.0, 17, 1, False),
        CallEdge("m.py#f@2", "m.py#A.__iter__", "type", 1.0, 20, 1, False),
    ]
    r = python_calls.measure(data, symbols, edges)
    assert r["implicit_protocol_edges_not_judged"] == 1
    assert r["precision"]["band 1.0"] == _judged(ours=2, confirmed=1, precision=0.5)


def test_merged_edges_count_once_per_pair(symbols):
    data = {"files": ["m.py"], "sites": [
        _site(17, "A", ["m.py", "f", 16], "workspace-def", [("m.py", 5, "A")]),
        _site(17, "A", ["m.py", "f", 16], "workspace-def", [("m.py", 5, "A")]),
    ]}
    edges = [CallEdge("m.py#f", "m.py#A", "scope", 1.0, 17, 2, False)]
    r = python_calls.measure(data, symbols, edges)
    assert r["oracle_pairs"] == 1
    assert r["recall"]["confidence = 1"]["recall"] == 1.0
    assert r["precision"]["band 1.0"]["precision"] == 1.0


@pytest.mark.skipif(shutil.which("ctags") is None, reason="needs Universal Ctags")
def test_ctags_scoring_maps_kinds_excludes_fields_and_accepts_annotation_lines(tmp_path):
    (tmp_path / "a.c").write_text(
        "struct point {\n  int x;\n};\n\n"
        "static int\nadd(int a, int b)\n{\n  return a + b;\n}\n\n"
        "#define TWICE(x) (2 * (x))\n"
        "int counter;\n"
    )
    corpus = Corpus("c", "test", tmp_path)
    ours = [
        Sym("a.c", "point", "point", "struct", 1, 3),
        Sym("a.c", "add", "add", "function", 5, 9),  # ctags reports the name line, 6
        Sym("a.c", "ghost", "ghost", "function", 12, 12),
    ]
    r = ctags_defs.measure(corpus, ours, {"a.c": FileState()})
    assert r["score"]["oracle"] == 3  # point, add, counter; not the field, not the macro
    assert r["score"]["found"] == 2 and r["matched_with_name_below_start"] == 1
    assert r["score"]["confirmed"] == 2 and r["score"]["ours"] == 3
    assert r["excluded_ctags_kinds"] == {"member: struct and union members": 1, "macro: preprocessor macros": 1}
    assert r["missed"] == {"ctags variable: a symbol of ours starts on that line under another name": 1}


def test_a_top_level_variable_bound_to_a_callable_is_a_target_only_when_it_is_our_symbol(symbols):
    symbols = [*symbols, Sym("o.py", "Lock", "Lock", "variable", 5, 5)]
    data = {"files": ["m.py"], "sites": [
        {"file": "m.py", "line": 17, "col": 0, "name": "Lock", "caller": ["m.py", "f", 16],
         "verdict": "workspace-other", "targets": [["o.py", 5, "Lock", "statement"]]},
        {"file": "m.py", "line": 20, "col": 0, "name": "x", "caller": ["m.py", "f", 19],
         "verdict": "workspace-other", "targets": [["o.py", 9, "x", "statement"]]},
    ]}
    edges = [CallEdge("m.py#f", "o.py#Lock", "import", 1.0, 17, 1, False)]
    r = python_calls.measure(data, symbols, edges)
    assert r["oracle_pairs"] == 1
    assert r["precision"]["band 1.0"]["precision"] == 1.0
    assert r["jedi_targets_not_in_graph"] == 0  # a local statement is not a missing definition


@pytest.mark.parametrize(("text", "form"), [
    ("    f(x)", "f()"), ("    self.m()", "self.m()"), ("    self.gen.seed()", "self.attr.m()"),
    ("    ns.add(1)", "name.m()"), ("    os.path.join(a)", "a.b.m()"), ("    Parser().parse(s)", "call().m()"),
    ("    super().close()", "super().m()"),
])
def test_call_form_names_how_the_callee_is_written(text, form):
    col = text.index("(") if form == "f()" else text.rindex(".") + 1
    col = text.index("f") if form == "f()" else col
    assert python_calls.call_form(text, col) == form


def test_go_call_scores_judge_pairs_conversions_and_external_packages():


    def site(line, name, kind, **kw):
        return {"file": "a.go", "line": line, "col": 2, "name": name, "caller": {"name": "F", "line": 1},
                "kind": kind, "form": "f()", **kw}

    data = {"module": "example.com/m", "files": ["a.go"], "sites": [
        site(2, "G", "static", pkg="example.com/m", callee="G", decl_file="a.go", decl_line=10),
        site(3, "T", "conversion", pkg="example.com/m", callee="T", decl_file="a.go", decl_line=12),
        site(4, "Encode", "static", pkg="encoding/base64", recv="Encoding", callee="Encode"),
        site(5, "H", "static", pkg="example.com/m", callee="H", decl_file="a.go", decl_line=11),
        site(6, "f", "dynamic"),
    ]}
    syms = [Sym("a.go", "F", "F", "function", 1, 8), Sym("a.go", "G", "G", "function", 10, 10),
            Sym("a.go", "H", "H", "function", 11, 11), Sym("a.go", "T", "T", "type_alias", 12, 12)]
    calls = [
        CallEdge("a.go#F", "a.go#G", "scope", 1.0, 2, 1, False),  # right
        CallEdge("a.go#F", "a.go#T", "scope", 1.0, 3, 1, False),  # a conversion: not judged
        CallEdge("a.go#F", "ext:encoding/base64.StdEncoding#Encode", "external", 1.0, 4, 1, True),  # right
        CallEdge("a.go#F", "ext:example.com/m#H", "external", 1.0, 5, 1, True),  # wrong: H is ours
    ]
    r = go_calls.measure(data, syms, calls)
    assert r["oracle_pairs"] == 2
    assert r["precision"]["at confidence = 1"] == _judged(ours=1, confirmed=1, precision=1.0)
    assert r["precision"]["external at confidence = 1"]["ours"] == 2
    assert r["precision"]["external at confidence = 1"]["confirmed"] == 1
    assert r["recall"]["confidence = 1"]["found"] == 1  # F -> G; F -> H is missed
    # Sites other than builtins and conversions without any edge of their name: the dynamic f().
    assert r["unresolved_sites"]["sites"] == 4 and r["unresolved_sites"]["without an edge"] == 1


def _ts_site(line, name, caller, targets, receiver=None):
    return {"file": "a.ts", "line": line, "col": 4, "name": name, "receiver": receiver,
            "caller": caller, "targets": targets}


def test_ts_call_scoring_counts_one_callee_per_checker_symbol():
    from bench.accuracy import ts_calls

    run = {"name": "run", "line": 10, "start": 10}
    scale = [{"file": "a.ts", "name": "scale", "line": n, "start": n, "kind": "FunctionDeclaration"} for n in (1, 2)]
    helper = [{"file": "a.ts", "name": "helper", "line": 5, "start": 5, "kind": "FunctionDeclaration"}]
    outside = [{"file": None, "name": "log", "line": 3, "start": 3, "kind": "MethodSignature"}]
    data = {"files": ["a.ts"], "sites": [
        _ts_site(11, "scale", run, scale),  # an overloaded function: one callee, two declarations
        _ts_site(12, "helper", run, helper),
        _ts_site(13, "log", run, outside, receiver="console"),
        _ts_site(14, "other", run, None, receiver="x"),
    ]}
    symbols = [Sym("a.ts", "scale", "scale", "function", 1, 1), Sym("a.ts", "scale@2", "scale", "function", 2, 2),
               Sym("a.ts", "helper", "helper", "function", 5, 7), Sym("a.ts", "run", "run", "function", 10, 20),
               Sym("a.ts", "log", "log", "function", 30, 31)]
    calls = [
        CallEdge("a.ts#run", "a.ts#scale@2", "candidate", 0.5, 11, 1, False),  # either overload is the callee
        CallEdge("a.ts#run", "a.ts#helper", "import", 1.0, 12, 1, False),
        CallEdge("a.ts#run", "a.ts#log", "unique-name", 1.0, 13, 1, False),  # the checker says console.log
    ]
    result = ts_calls.measure(data, symbols, calls)
    assert result["oracle_pairs"] == 2
    assert result["precision"]["at confidence = 1"] == _judged(ours=2, confirmed=1, precision=0.5)
    assert result["recall"]["any edge (candidates too)"]["found"] == 2
    assert result["recall"]["confidence = 1"]["found"] == 1
    assert result["checker_verdicts"] == {"workspace-def": 2, "outside": 1, "none": 1}


def test_jedi_reads_a_django_corpus_not_the_stubs_it_bundles(tmp_path):
    """Jedi bundles django-stubs and reads them for any top-level ``django``; when the corpus
    is Django, the oracle's verdicts come from its source (with the stubs, this call goes to
    ``testcases.pyi``: "outside", and our right edge into the workspace counted as wrong)."""
    pytest.importorskip("jedi")
    (tmp_path / "django" / "test").mkdir(parents=True)
    (tmp_path / "django" / "__init__.py").write_text("")
    (tmp_path / "django" / "test" / "__init__.py").write_text("from django.test.testcases import SimpleTestCase\n")
    (tmp_path / "django" / "test" / "testcases.py").write_text(
        "class SimpleTestCase:\n    def assertRaisesMessage(self, e, m):\n        pass\n")
    (tmp_path / "app.py").write_text("from django.test import SimpleTestCase\n\n"
                                     "class T(SimpleTestCase):\n    def test(self):\n"
                                     "        self.assertRaisesMessage(1, 2)\n")
    data = python_calls.oracle(tmp_path, seed=1, min_sites=1, cache_dir=tmp_path / "cache", progress=lambda m: None)
    site = next(s for s in data["sites"] if s["name"] == "assertRaisesMessage")
    assert site["verdict"] == python_calls.IN_WORKSPACE
    assert [list(t) for t in site["targets"]] == [["django/test/testcases.py", 2, "assertRaisesMessage", "function"]]
