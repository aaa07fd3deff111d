"""TypeScript the grammar cannot read, rewritten byte for byte before a second parse: the
file's definitions after such syntax are found, at their own lines."""

import pytest

from indexers.extract import extract_file
from indexers.ts_syntax import readable, without_variance

SOURCES = {
    "variance": b"export interface Store<in out T, out U> { a: T }\n"
                b"export interface Obj<\n  /** @ts-ignore */\n  out Shape extends object = {},\n> { s: Shape }\n"
                b"for (const k in obj) { }\nexport const after = make()\n",
    "call-signatures": b"export interface Factory {\n  name: string\n  <T>(fn: T): T\n  <\n    R,\n    A = void,\n  >(a: A): R\n"
                       b"  withTypes<T>(): Factory\n}\nexport const after = make()\n",
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_rewritten_files_parse_and_keep_their_definitions(name):
    data = SOURCES[name]
    assert len(readable(data)) == len(data)
    ext = extract_file("a.ts", data, "typescript")
    assert not ext.has_errors
    lines = {s.qualified_name: s.start_line for s in ext.symbols}
    assert lines["after"] == data[:data.index(b"export const after")].count(b"\n") + 1


def test_what_is_not_such_syntax_stays_as_written():
    # A generic arrow function on the line after `=`, a comment before it, a `for ... in`
    text = (b"const f =\n  <T>(x: T) => x\nconst g = wrap(\n  // a comment\n  <T>(x: T) => x,\n)\n"
            b"for (const k in obj) {}\nif (a < out && b) {}\n")
    assert readable(text) == text
    assert without_variance(b"<in T>") == b"<   T>"
    ext = extract_file("a.ts", text, "typescript")
    assert not ext.has_errors
