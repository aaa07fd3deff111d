"""C declarations whose name sits inside a pointer, array or function-pointer declarator."""

from indexers.extract import extract_file

SOURCE = b"""\
typedef void *voidp;
typedef int (*compare_fn)(const void *, const void *);
typedef char name_t[32];
static const int table[4] = {1, 2, 3, 4};
int grid[2][2];
char *message;

int lookup(int i) {
    int local[3];
    return table[i] + local[0];
}
"""


def test_typedefs_and_top_level_variables_behind_declarators_are_symbols():
    ext = extract_file("t.c", SOURCE, "c")
    got = {(s.name, s.kind, s.start_line) for s in ext.symbols}
    assert {("voidp", "type_alias", 1), ("compare_fn", "type_alias", 2), ("name_t", "type_alias", 3),
            ("table", "variable", 4), ("grid", "variable", 5), ("message", "variable", 6),
            ("lookup", "function", 8)} <= got
    assert not any(name == "local" for name, _, _ in got)  # locals are not symbols
