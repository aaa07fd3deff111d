"""C declarations written for a preprocessor: export and calling-convention macros between
type and name, storage-class macros before the type, prototype wrappers, include guards."""

from indexers.c_macros import blank_macros
from indexers.extract import extract_file
from indexers.languages import get_language

HEADER = b"""\
#ifndef ZLIB_H
#define ZLIB_H

typedef unsigned char Byte;
typedef Byte FAR Bytef;
extern int ZLIB_INTERNAL z_verbose;
ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));
ZEXTERN const z_crc_t FAR * ZEXPORT get_crc_table(void);

#endif
"""

SOURCE = b"""\
#include "zlib.h"

local const z_crc_t FAR crc_table[] = {
    0x00000000UL, 0x77073096UL, 0xee0e612cUL
};
local once_t made = ONCE_INIT;
int ZLIB_INTERNAL z_verbose = 0;

int ZEXPORT deflate(z_streamp strm, int flush) {
    unsigned char FAR *put;
    int total;
    put = strm->next_out;
    total = strm->avail * WSIZE * 2;
    return total;
}

local unsigned syncsearch(unsigned FAR *have, const unsigned char FAR *buf, unsigned len) {
    return deflate(0, len);
}
"""


def _symbols(ext):
    return {(s.name, s.kind, s.start_line) for s in ext.symbols}


def test_definitions_behind_macros_are_found_on_their_lines():
    ext = extract_file("crc32.c", SOURCE, "c")
    got = _symbols(ext)
    assert {("crc_table", "variable", 3), ("made", "variable", 6), ("z_verbose", "variable", 7),
            ("deflate", "function", 9), ("syncsearch", "function", 17)} <= got
    # Neither the macros nor the locals of the functions are symbols.
    assert not {name for name, _, _ in got} & {"FAR", "ZEXPORT", "ZLIB_INTERNAL", "local", "z_crc_t", "put", "total"}
    deflate = next(s for s in ext.symbols if s.name == "deflate")
    assert deflate.end_line == 15
    assert deflate.signature == "int ZEXPORT deflate(z_streamp strm, int flush)"  # as written
    assert ("syncsearch", "deflate") in {(c.caller.rpartition("#")[2], c.name) for c in ext.calls}


def test_header_behind_an_include_guard_declares_prototypes_and_defines_types():
    ext = extract_file("zlib.h", HEADER, "c")
    got = _symbols(ext)
    assert {("Byte", "type_alias", 4), ("Bytef", "type_alias", 5)} <= got
    # Prototypes and extern declarations promise definitions made elsewhere.
    assert not {name for name, _, _ in got} & {"deflate", "get_crc_table", "z_verbose", "int", "ZEXPORT"}
    assert {"deflate", "get_crc_table"} <= set(ext.declared)


def test_blanking_keeps_every_byte_offset_and_leaves_expressions_alone():
    hints = get_language("c").macros
    source = b"int f(int a) { return a * N * b; }  /* int FAR x; */\nchar *s = \"int FAR x\";\nsize_t const n = 2;\n"
    assert blank_macros(source, hints) == source
    cleaned = blank_macros(SOURCE, hints)
    assert len(cleaned) == len(SOURCE)
    assert cleaned.count(b"\n") == SOURCE.count(b"\n")
    assert b"int " + b" " * len(b"ZEXPORT") + b" deflate(" in cleaned
    assert b"const z_crc_t     crc_table[]" in cleaned
    assert b"z_verbose" in cleaned and b"WSIZE" in cleaned


def test_a_macro_argument_of_a_star_alone_is_left_as_written():
    # `FOO(a, *)`: an argument with no name and no keyword (once an IndexError that ended
    # the parse of the whole kernel).
    ext = extract_file("x.c", b"int f(int a)\n{\n\treturn FOO(a, *);\n}\n", "c")
    assert [s.name for s in ext.symbols] == ["f"] and ext.skip_reason is None
