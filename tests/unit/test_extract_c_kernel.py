"""C as the Linux kernel writes it: each macro form parses without errors and gives the
right definitions and calls, at the lines of the file."""

import pytest

from indexers.c_macros import clean_macros, edited
from indexers.extract import extract_file
from indexers.languages import get_language, parser_for

HINTS = get_language("c").macros


def _extract(src: str):
    data = src.encode()
    assert len(clean_macros(data, HINTS)) == len(data)
    return extract_file("fs/x.c", data, "c")


def _symbols(ext) -> dict[str, tuple[str, int]]:
    return {s.name: (s.kind, s.start_line) for s in ext.symbols}


def _calls(ext, caller: str) -> set[str]:
    return {c.name for c in ext.calls if c.caller.endswith("#" + caller)}


CASES = {
    "annotations": (
        "static int __init __must_check setup(char __user *buf, void __iomem *io)\n"
        "{\n\treturn probe((u32 __force)buf);\n}\n"
        "static void drop(struct lock *l) __releases(l) __acquires(&l->x)\n{\n\tunlock(l);\n}\n"
        "__printf(2, 3) int say(int lvl, const char *fmt, ...);\n"
        "struct rec { int a; } __packed __aligned(8);\n",
        {"setup": ("function", 1), "drop": ("function", 5), "rec": ("struct", 10)},
        {"setup": {"probe"}, "drop": {"unlock"}},
    ),
    "loop macros": (
        "void walk(struct list_head *head)\n{\n"
        "\tstruct item *pos, *n;\n"
        "\tlist_for_each_entry(pos, head, member) {\n\t\tvisit(pos);\n\t}\n"
        "\tlist_for_each_entry_safe(pos, n, head, member)\n\t\tdrop(pos);\n"
        "\thlist_for_each_entry(pos, head, node)\n\t\tif (pos->x)\n\t\t\tbreak;\n"
        "\tfor_each_cpu(cpu, cpumask_of(0)) {\n\t\tkick(cpu);\n\t}\n"
        "}\n",
        {"walk": ("function", 1)},
        {"walk": {"visit", "drop", "kick", "cpumask_of"}},
    ),
    "types as arguments": (
        "int size(struct work_struct *work, size_t len)\n{\n"
        "\tstruct owner *o = container_of(work, struct owner, work);\n"
        "\tunsigned int n = min_t(unsigned int, len, 4);\n"
        "\tstruct entry *e = rb_entry(node, struct entry, rb);\n"
        "\tstatic DEFINE_RATELIMIT_STATE(rs, 5 * HZ, 10);\n"
        "\treturn o->x + n + offsetof(struct entry, u.rb[2]) + sizeof(struct entry *);\n}\n",
        {"size": ("function", 1)},
        {"size": {"container_of", "min_t", "rb_entry"}},
    ),
    "file-scope macros": (
        "static LIST_HEAD(sessions);\n"
        "static DEFINE_MUTEX(big_lock);\n"
        "static DECLARE_DELAYED_WORK(expiry, expire_timed_out);\n"
        "static int __init start(void)\n{\n\treturn 0;\n}\n"
        "EXPORT_SYMBOL(start);\n"
        "module_init(start)\n"
        "module_exit(stop)\n"
        "MODULE_LICENSE(\"GPL\");\n"
        "int after(void)\n{\n\treturn start();\n}\n",
        {"sessions": ("variable", 1), "big_lock": ("variable", 2), "expiry": ("variable", 3),
         "start": ("function", 4), "after": ("function", 12)},
        {"after": {"start"}},
    ),
    "syscalls": (
        "SYSCALL_DEFINE3(io_cancel, aio_context_t, ctx_id, struct iocb __user *, iocb,\n"
        "\t\tstruct io_event __user *, result)\n{\n\treturn do_cancel(ctx_id, iocb);\n}\n"
        "SYSCALL_DEFINE0(sync)\n{\n\tksys_sync();\n\treturn 0;\n}\n"
        "COMPAT_SYSCALL_DEFINE1(sysinfo, struct compat_sysinfo __user *, info)\n{\n\treturn fill(info);\n}\n",
        {"sys_io_cancel": ("function", 1), "sys_sync": ("function", 6),
         "compat_sys_sysinfo": ("function", 11)},
        {"sys_io_cancel": {"do_cancel"}, "sys_sync": {"ksys_sync"}, "compat_sys_sysinfo": {"fill"}},
    ),
    "conditionals inside braces": (
        "static struct attribute *attrs[] = {\n#ifdef CONFIG_X\n\t&a.attr,\n#endif\n\tNULL,\n};\n"
        "int pick(int x)\n{\n\tif (x) {\n\t\tone();\n#ifdef CONFIG_Y\n\t} else if (x > 1) {\n"
        "\t\ttwo();\n#else\n\t} else {\n#endif\n\t\tthree();\n\t}\n\treturn 0;\n}\n"
        "#define warn(sb, fmt...) report(sb, fmt)\n",
        {"attrs": ("variable", 1), "pick": ("function", 7)},
        {"pick": {"one", "two", "three"}},
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_kernel_macro_forms(name):
    src, symbols, calls = CASES[name]
    ext = _extract(src)
    assert not ext.has_errors, name
    got = _symbols(ext)
    for sym, where in symbols.items():
        assert got.get(sym) == where, (sym, got)
    for caller, names in calls.items():
        assert names <= _calls(ext, caller), (caller, _calls(ext, caller))


def test_names_and_lines_of_untouched_code_stay():
    src = "static int __init a(void)\n{\n\tlist_for_each(p, h)\n\t\tb(p);\n\treturn 0;\n}\nint c(void) { return a(); }\n"
    ext = _extract(src)
    assert _symbols(ext) == {"a": ("function", 1), "c": ("function", 7)}
    assert {(c.name, c.line) for c in ext.calls} >= {("b", 4), ("a", 7)}
    # Signatures are read from the bytes as written.
    assert "__init" in next(s.signature for s in ext.symbols if s.name == "a")


def _nodes(tree) -> list[tuple]:
    cursor, out = tree.walk(), []
    while True:
        n = cursor.node
        out.append((n.type, n.start_byte, n.end_byte, n.start_point, n.end_point, cursor.field_name, n.is_missing))
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


@pytest.mark.parametrize("name", [*CASES, "annotation over lines"])
def test_reparse_of_the_cleaned_bytes_is_a_fresh_parse(name):
    """The parse after cleaning starts from the first tree (`edited`): it must be the tree a
    parse of the cleaned bytes alone gives, rows and columns included (a blanked annotation
    may span lines)."""
    src = CASES[name][0] if name in CASES else "__printf(2,\n\t3) int say(int lvl,\n const char *fmt, ...);\nint x;\n"
    data = src.encode()
    parser = parser_for("c")
    tree = parser.parse(data)
    cleaned = clean_macros(data, HINTS)
    assert cleaned != data
    assert _nodes(parser.parse(cleaned, edited(tree, data, cleaned))) == _nodes(parser.parse(cleaned))
    assert _nodes(tree) == _nodes(parser.parse(data))  # the first tree is left as it was


def test_cpp_constructors_are_not_loops():
    src = b"class A {\npublic:\n  A(int x) { init(x); }\n};\n"
    ext = extract_file("a.cpp", src, "cpp")
    assert not ext.has_errors
    assert "A" in {s.name for s in ext.symbols}


def _resolve(files: dict[str, str], path: str) -> dict[str, tuple[str, float]]:
    from indexers.resolve import SymbolTable, resolve_file

    exts = {p: extract_file(p, src.encode(), "c") for p, src in files.items()}
    table = SymbolTable(exts.values())
    return {e.dst: (e.reason, e.confidence) for e in resolve_file(exts[path], table) if e.type == "CALLS"}


def test_calls_through_a_header_reach_the_one_linked_definition():
    files = {
        "include/linux/thing.h": "int vfs_thing(int x);\nvoid vfs_other(void);\n",
        "fs/a/impl.c": "#include <linux/thing.h>\nint vfs_thing(int x)\n{\n\treturn x;\n}\n",
        # A static function of the same name elsewhere is not what the linker picks.
        "fs/c/copy.c": "static int vfs_thing(int x)\n{\n\treturn -x;\n}\n",
        "fs/d/one.c": "void vfs_other(void)\n{\n}\n",
        "fs/d/two.c": "void vfs_other(void)\n{\n}\n",
        "fs/b/use.c": "#include <linux/thing.h>\nstatic int helper(void)\n{\n\tvfs_other();\n"
                      "\treturn vfs_thing(1);\n}\n",
    }
    calls = _resolve(files, "fs/b/use.c")
    assert calls["fs/a/impl.c#vfs_thing"] == ("import", 1.0)
    assert "fs/c/copy.c#vfs_thing" not in calls
    # Two linked definitions (configurations): no single target, candidates as before.
    assert {calls["fs/d/one.c#vfs_other"][0], calls["fs/d/two.c#vfs_other"][0]} == {"candidate"}


def test_statement_macros_of_one_letter_keep_every_offset():
    """`N(UP) N(DOWN)` inside a function (net/core/dev.c) reads as a statement macro; its name
    has no room for `if`, so it stays as written, and the cleaned text keeps its length."""
    src = ("const char *name(unsigned long cmd)\n{\n#define N(val) case NETDEV_##val: return #val;\n"
           "\tswitch (cmd) {\n\tN(UP) N(DOWN) N(REBOOT)\n\t}\n\treturn later(cmd);\n}\nint after(void) { return 1; }\n")
    data = src.encode()
    cleaned = clean_macros(data, HINTS)
    assert len(cleaned) == len(data)
    ext = _extract(src)
    assert _symbols(ext)["after"] == ("function", 9)
    assert ("later", 7) in {(c.name, c.line) for c in ext.calls}
