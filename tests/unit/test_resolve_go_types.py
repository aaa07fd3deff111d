"""Go receivers of known type: parameters, locals, fields, call results, promoted methods, and
files that are alternatives for one symbol (build tags)."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.module_config import GoModules
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import incremental_equals_clean, targets_by_source

ENGINE = """package gin

type RouterGroup struct{ engine *Engine }

func (g *RouterGroup) Use(h ...func()) {}
func (g *RouterGroup) Group() *RouterGroup { return g }

type Engine struct {
	RouterGroup
	trees methodTrees
}

type methodTrees []int

func (t methodTrees) get() int { return 0 }

func New() *Engine { return &Engine{} }
func Default() (*Engine, error) { return New(), nil }

func (e *Engine) isTrustedProxy() bool { return true }
func (e *Engine) Run() {}

type Context struct{ engine *Engine }

func (c *Context) Next() {}
func (c *Context) ClientIP() { c.engine.isTrustedProxy() }

type Handler interface{ Handle() *Context }
"""

# Methods of the same names elsewhere: a guess by name alone would be ambiguous.
OTHER = """package other

type X struct{}

func (X) Use()            {}
func (X) Run()            {}
func (X) Next()           {}
func (X) isTrustedProxy() {}
func (X) get()            {}
func (X) Group()          {}
"""

USE = """package gin

import "strings"

func params(e *Engine, c Context, h Handler) {
	e.Run()
	c.Next()
	h.Handle().Next()
}

func locals() {
	engine := New()
	engine.Use()
	d, err := Default()
	d.Run()
	var e Engine
	e.Run()
	p := &Engine{}
	p.Run()
	v := Engine{}
	v.Run()
	_ = err
	b := strings.NewReader("")
	b.Len()
}

func chains(e *Engine) {
	e.Group().Use()
	New().trees.get()
	e.engine.Run()
}

func shadowed() {
	e := New()
	e.Run()
	run := func(e *Context) { e.Next() }
	run(nil)
}
"""


def _calls(files: dict[str, str]) -> dict[str, dict[str, tuple[str, float]]]:
    table = SymbolTable(extract_file(rel, text.encode(), "go") for rel, text in files.items())
    table.set_go_modules(GoModules((("example.com/gin", ""),), frozenset({""})))
    return targets_by_source(resolve_all(table)[0])


CALLS = _calls({"gin.go": ENGINE, "use.go": USE, "other/other.go": OTHER})


def _confident(caller: str) -> set[str]:
    return {dst for dst, (_, conf) in CALLS[caller].items() if conf == 1.0}


def test_parameters_of_declared_types_including_interfaces():
    assert _confident("use.go#params") == {"gin.go#Engine.Run", "gin.go#Context.Next", "gin.go#Handler.Handle"}


def test_locals_from_constructors_declarations_and_composite_literals():
    # x := New(), x, err := Default() (its first result), var x T, &T{}, T{}; Use is promoted
    # from the embedded RouterGroup. The result of an external call is not known: no edge.
    assert CALLS["use.go#locals"] == {
        "gin.go#New": ("scope", 1.0), "gin.go#Default": ("scope", 1.0), "gin.go#RouterGroup.Use": ("type", 1.0),
        "gin.go#Engine.Run": ("type", 1.0), "ext:strings#NewReader": ("external", 1.0),
    }


def test_fields_and_call_results_through_declared_types():
    assert _confident("gin.go#Context.ClientIP") == {"gin.go#Engine.isTrustedProxy"}
    assert _confident("use.go#chains") == {
        "gin.go#RouterGroup.Group", "gin.go#RouterGroup.Use", "gin.go#New", "gin.go#methodTrees.get",
        "gin.go#Engine.Run",  # e.engine: the field promoted from the embedded RouterGroup
    }


def test_a_function_literal_is_a_scope_of_its_own():
    # `e` is an *Engine outside the closure and a *Context inside it, whose own local `g` and
    # the enclosing function's `e` are seen from a closure nested in it.
    files = {"gin.go": ENGINE, "other/other.go": OTHER, "use.go": """package gin

func shadowed() {
	e := New()
	e.Run()
	run := func(e *Context) {
		e.Next()
		g := New()
		func() { g.Run() }()
	}
	run(nil)
	g := e.Group()
	g.Use()
}

func middleware(next *Engine) func(*Context) {
	return func(c *Context) { next.Run(); c.Next() }
}
"""}
    calls = _calls(files)
    assert {dst: r for dst, r in calls["use.go#shadowed"].items() if r[1] == 1.0} == {
        "gin.go#New": ("scope", 1.0), "gin.go#Engine.Run": ("type", 1.0), "gin.go#Context.Next": ("type", 1.0),
        "gin.go#RouterGroup.Group": ("type", 1.0), "gin.go#RouterGroup.Use": ("type", 1.0),
    }
    assert calls["use.go#middleware"] == {"gin.go#Engine.Run": ("type", 1.0), "gin.go#Context.Next": ("type", 1.0)}


def test_if_and_switch_statements_and_cases_are_scopes_of_their_own():
    # `v` is a Handler in one `if`, an *Engine in the next; `x` in a case of one type is of
    # that type, in a case of two it is not known.
    files = {"gin.go": ENGINE, "other/other.go": OTHER, "use.go": """package gin

func asserted(h any, gs []*RouterGroup) {
	if v, ok := h.(Handler); ok {
		v.Handle()
	}
	if v, ok := h.(*Engine); ok {
		v.Run()
	}
	switch x := h.(type) {
	case *Context:
		x.Next()
	case *Engine, *RouterGroup:
		x.Use()
	}
	for _, g := range gs {
		g.Group()
	}
}
"""}
    calls = _calls(files)["use.go#asserted"]
    assert {dst for dst, (_, conf) in calls.items() if conf == 1.0} == {
        "gin.go#Handler.Handle", "gin.go#Engine.Run", "gin.go#Context.Next", "gin.go#RouterGroup.Group"}
    assert calls["gin.go#RouterGroup.Use"][1] < 1.0


def test_a_name_bound_again_in_a_block_reads_the_name_around_it():
    # A method's receiver bound again by a loop or `:=` in a block is that value there (and
    # the receiver elsewhere); the right side of `x := x.Child()` and a range expression read
    # the name as it is around the block.
    files = {"fs.go": """package fs

type File struct{}
type Info struct{}

func (i *Info) Name() string { return "" }
func (i *Info) Parent() *File { return nil }
func (f *File) Name() string { return "" }
func (f *File) Items() []*Info { return nil }

func (f *File) Names() {
	for _, f := range f.Items() {
		f.Name()
	}
	f.Name()
}

func (f *File) Shadowed() {
	if true {
		f := f.Items()[0]
		f.Parent()
	}
}

func walk(x *Info) {
	if true {
		x := x.Parent()
		x.Items()
	}
}

func index(xs []*Info, byName map[string]*Info) {
	first := xs[0]
	first.Name()
	named, ok := byName["a"]
	named.Parent()
}
"""}
    calls = _calls(files)
    assert calls["fs.go#File.Names"] == {
        "fs.go#File.Items": ("self", 1.0), "fs.go#Info.Name": ("type", 1.0), "fs.go#File.Name": ("self", 1.0)}
    assert calls["fs.go#File.Shadowed"] == {"fs.go#File.Items": ("self", 1.0), "fs.go#Info.Parent": ("type", 1.0)}
    assert calls["fs.go#walk"] == {"fs.go#Info.Parent": ("type", 1.0), "fs.go#File.Items": ("type", 1.0)}
    # An element of a slice or map, by any key, is of its element type.
    assert calls["fs.go#index"] == {"fs.go#Info.Name": ("type", 1.0), "fs.go#Info.Parent": ("type", 1.0)}


def test_a_generic_function_given_its_type_arguments_is_called():
    # `F[int](x)` reads as a conversion to a generic type; it calls F, and its result is F's.
    files = {"gen.go": """package gen

type Box[T any] struct{ v T }

func (b *Box[T]) Get() T { return b.v }

func New[T any](v T) *Box[T] { return &Box[T]{v} }

func Parse[T any](s string) (T, error) { var t T; return t, nil }

func use() {
	b := New[int](1)
	b.Get()
	Parse[string]("a")
}
"""}
    assert _calls(files)["gen.go#use"] == {
        "gen.go#New": ("scope", 1.0), "gen.go#Box.Get": ("type", 1.0), "gen.go#Parse": ("scope", 1.0)}


def test_a_field_type_is_read_in_the_package_not_among_the_methods():
    # `response *Response` beside a method `Response()`: the type is the package's Response.
    # A slice element called with arguments a conversion cannot have is a call: `F[T](x, y)`.
    files = {"ctx.go": """package echo

type Response struct{}

func (r *Response) WriteHeader(code int) {}

type context struct {
	response *Response
}

func (c *context) Response() *Response { return c.response }

func (c *context) Blob(code int) {
	c.response.WriteHeader(code)
}

func Parse[T any](s string, opts ...int) T { var t T; return t }

func parseAll[T any](s string) T { return Parse[T](s, 1, 2) }
"""}
    calls = _calls(files)
    assert calls["ctx.go#context.Blob"] == {"ctx.go#Response.WriteHeader": ("type", 1.0)}
    assert calls["ctx.go#parseAll"] == {"ctx.go#Parse": ("type", 1.0)}


def test_a_table_of_anonymous_structs_gives_its_fields_their_types():
    # Go's table-driven tests: `tests := []struct{ ... }{...}; for _, tt := range tests`.
    files = {"uuid.go": """package uuid

type UUID [16]byte

type NullUUID struct {
	UUID  UUID
	Valid bool
}

func (u UUID) String() string { return "" }
func (n NullUUID) Value() (any, error) { return nil, nil }

func TestNull() {
	tests := []struct {
		name string
		in   NullUUID `json:"in"`
	}{
		{name: "zero"},
	}
	for _, tt := range tests {
		tt.in.Value()
		tt.in.UUID.String()
	}
}

func TestInline() {
	for _, u := range []UUID{{}, {}} {
		u.String()
	}
}
"""}
    assert _calls(files)["uuid.go#TestNull"] == {
        "uuid.go#NullUUID.Value": ("type", 1.0), "uuid.go#UUID.String": ("type", 1.0)}
    # A range over a literal: its elements are of the type it is written with.
    assert _calls(files)["uuid.go#TestInline"] == {"uuid.go#UUID.String": ("type", 1.0)}


# binding.go and binding_nomsgpack.go both declare the Binding interface and Form.
_BINDING = "package binding\n\ntype Binding interface{ Bind() }\n\nvar Form Binding = nil\n"


@pytest.mark.parametrize("files, caller, expected", [
    pytest.param({
        "conv_go1.19.go": "//go:build !go1.20\n\npackage conv\n\nfunc StringToBytes(s string) []byte { return nil }\n",
        "conv_go1.20.go": "//go:build go1.20\n\npackage conv\n\nfunc StringToBytes(s string) []byte { return nil }\n",
        "use.go": "package conv\n\nfunc use() { StringToBytes(\"\") }\n",
    }, "use.go#use", {
        "conv_go1.19.go#StringToBytes": ("candidate", 0.5), "conv_go1.20.go#StringToBytes": ("scope", 1.0),
    }, id="of_alternatives_selected_by_build_tags_the_default_build_is_sure"),
    pytest.param({
        "term_linux.go": "package term\n\ntype lock struct{}\n\nfunc (lock) Lock() {}\n\nfunc isTerminal(fd int) bool { return true }\n",
        "term_windows.go": "package term\n\ntype lock struct{}\n\nfunc (lock) Lock() {}\n\nfunc isTerminal(fd int) bool { return false }\n",
        "use.go": "package term\n\nfunc use() {\n\tisTerminal(1)\n\tl := lock{}\n\tl.Lock()\n}\n",
        "other/other.go": OTHER + "\nfunc (X) Lock() {}\n",
    }, "use.go#use", {
        "term_linux.go#isTerminal": ("scope", 1.0), "term_windows.go#isTerminal": ("candidate", 0.5),
        "term_linux.go#lock.Lock": ("type", 1.0), "term_windows.go#lock.Lock": ("candidate", 0.5),
    }, id="of_alternatives_selected_by_file_name_suffixes_the_default_build_is_sure"),
    pytest.param({
        "json.go": "package render\n\ntype JSON struct{ Data any }\n\nfunc (r JSON) Render() error { return nil }\n",
        "other.go": "package render\n\ntype Text struct{}\n\nfunc (Text) Render() error { return nil }\n",
        "use.go": "package render\n\nfunc use() { (JSON{nil}).Render(); (&JSON{}).Render() }\n",
    }, "use.go#use", {"json.go#JSON.Render": ("scope", 1.0)}, id="a_method_of_a_composite_literal"),
    pytest.param({
        "binding.go": "//go:build !nomsgpack\n\n" + _BINDING,
        "binding_nomsgpack.go": "//go:build nomsgpack\n\n" + _BINDING,
        "use.go": "package binding\n\nfunc use() {\n\tb := Form\n\tb.Bind()\n}\n",
        "other/other.go": OTHER + "\nfunc (X) Bind() {}\n",  # not a candidate: b's type is known
    }, "use.go#use", {
        "binding.go#Binding.Bind": ("type", 1.0), "binding_nomsgpack.go#Binding.Bind": ("candidate", 0.5),
    }, id="a_variable_and_a_type_declared_in_alternative_files_give_one_edge_to_each"),
    pytest.param({
        "mux.go": (
            "package mux\n\ntype Route struct{}\n\nfunc (r *Route) Match() bool { return true }\n\n"
            "type Router struct {\n\troutes []*Route\n\tnamed map[string]*Route\n}\n\n"
            "func (r *Router) Match() bool {\n\tfor _, route := range r.routes {\n\t\troute.Match()\n\t}\n"
            "\tfor name, route := range r.named {\n\t\t_ = name\n\t\troute.Match()\n\t}\n\treturn false\n}\n"
        ),
    }, "mux.go#Router.Match", {"mux.go#Route.Match": ("type", 1.0)},
        id="range_over_a_declared_slice_or_map_binds_its_elements"),
    pytest.param({
        "command.go": (
            "package cobra\n\ntype Command struct{ commands []*Command }\n\n"
            "func (c *Command) Commands() []*Command { return c.commands }\n"
            "func (c *Command) Flags() map[string]*Command { return nil }\n"
            "func (c *Command) Name() string { return \"\" }\n\n"
            "func names(cmd *Command) {\n\tfor _, c := range cmd.Commands() {\n\t\tc.Name()\n\t}\n"
            "\tfor _, f := range cmd.Flags() {\n\t\tf.Name()\n\t}\n}\n"
        ),
        "other/other.go": OTHER + "\nfunc (X) Name() {}\n",
    }, "command.go#names", {"command.go#Command.Commands": ("type", 1.0), "command.go#Command.Flags": ("type", 1.0),
                            "command.go#Command.Name": ("type", 1.0)},
        id="a_declared_slice_or_map_result_gives_its_elements"),
    pytest.param({
        "hooks.go": (
            "package logrus\n\ntype Hook interface{ Fire() error }\n\ntype LevelHooks map[int][]Hook\n\n"
            "type errorMsgs []*Error\n\ntype Error struct{}\n\nfunc (e *Error) IsType() bool { return true }\n\n"
            "func (hooks LevelHooks) Fire(level int, a errorMsgs) {\n\tfor _, hook := range hooks[level] {\n"
            "\t\thook.Fire()\n\t}\n\tfor _, msg := range a {\n\t\tmsg.IsType()\n\t}\n\tfor i := range a {\n\t\ta[i].IsType()\n\t}\n}\n"
        ),
        "other/other.go": OTHER + "\nfunc (X) Fire() {}\nfunc (X) IsType() {}\n",
    }, "hooks.go#LevelHooks.Fire", {"hooks.go#Hook.Fire": ("type", 1.0), "hooks.go#Error.IsType": ("type", 1.0)},
        id="a_named_slice_or_map_type_holds_the_elements_of_what_it_stands_for"),
    pytest.param({
        "route.go": "package mux\n\ntype Route struct{}\n\nfunc (r *Route) Path() {}\n",
        "use.go": "package mux\n\nfunc use() {\n\tr := new(Route)\n\tr.Path()\n}\n",
        "other/other.go": OTHER + "\nfunc (X) Path() {}\n",
    }, "use.go#use", {"route.go#Route.Path": ("type", 1.0)}, id="a_local_bound_by_new_is_of_its_type"),
    pytest.param({
        "cli/flag.go": "package cli\n\ntype IntFlag struct{}\n\nfunc (f *IntFlag) Apply() error { return nil }\n",
        "altsrc/flag.go": "package altsrc\n\nimport \"example.com/gin/cli\"\n\n"
                          "type IntFlag struct {\n\t*cli.IntFlag\n\tset int\n}\n\n"
                          "func (f *IntFlag) Apply() error { return f.IntFlag.Apply() }\n",
        "gin.go": ENGINE,
        "use.go": "package gin\n\nfunc use(e *Engine) { e.RouterGroup.Use() }\n",
        "other/other.go": OTHER + "\nfunc (X) Apply() {}\n",
    }, "altsrc/flag.go#IntFlag.Apply", {"cli/flag.go#IntFlag.Apply": ("type", 1.0)},
        id="an_embedded_field_is_a_field_named_by_its_type"),
    pytest.param({
        "args.go": "package cli\n\ntype Args interface{ First() string }\n\ntype args []string\n\n"
                   "func (a *args) First() string { return \"\" }\n\ntype Context struct{}\n\n"
                   "func (c *Context) Args() Args { return nil }\n",
        "help.go": "package cli\n\ntype Command struct{ Action func(*Context) }\n\n"
                   "var helpCommand = &Command{\n\tAction: func(cCtx *Context) {\n\t\targs := cCtx.Args()\n"
                   "\t\targs.First()\n\t},\n}\n",
    }, "help.go", {"args.go#Context.Args": ("type", 1.0), "args.go#Args.First": ("type", 1.0)},
        id="a_local_of_a_closure_outside_functions_hides_a_type_of_that_name"),
])
def test_calls_in_small_packages(files, caller, expected):
    calls = _calls(files)
    assert calls[caller] == expected
    if "use.go" in files and "gin.go" in files:  # the same through a local embedded type
        assert calls["use.go#use"] == {"gin.go#RouterGroup.Use": ("type", 1.0)}


def test_new_gives_its_type_along_a_chain_of_calls():
    files = {
        "route.go": "package mux\n\ntype Route struct{}\n\nfunc (r *Route) Path() *Route { return r }\n"
                    "func (r *Route) Name() *Route { return r }\n",
        "use.go": "package mux\n\nfunc use() {\n\tnew(Route).Path(\"/\").Name(\"a\").Path(\"/b\")\n"
                  "\tr := new(Route).Name(\"c\")\n\tr.Path()\n}\n",
        "other/other.go": OTHER + "\nfunc (X) Path() {}\nfunc (X) Name() {}\n",
    }
    assert _calls(files)["use.go#use"] == {"route.go#Route.Path": ("scope", 1.0), "route.go#Route.Name": ("type", 1.0)}


def test_grouped_variables_are_symbols_and_a_variant_of_another_type_is_a_candidate():
    # With msgpack the variable is the interface, without it the concrete type. As for a
    # function defined in both builds, the default build's target is sure and the variant's
    # a candidate (zerolog's `enc = json.Encoder{}` / `enc = cbor.Encoder{}` under a tag).
    files = {
        "binding.go": "package binding\n\ntype Binding interface{ Bind() }\n\ntype form struct{}\n\n"
                      "func (form) Bind() {}\n\nvar (\n\tForm Binding = form{}\n)\n",
        "binding_nomsgpack.go": "//go:build nomsgpack\n\npackage binding\n\nvar (\n\tForm = form{}\n)\n",
        "use.go": "package binding\n\nfunc use() { Form.Bind() }\n",
        "other/other.go": OTHER + "\nfunc (X) Bind() {}\n",
    }
    exts = [extract_file(rel, text.encode(), "go") for rel, text in files.items()]
    assert ("Form", "variable") in {(s.qualified_name, s.kind) for s in exts[0].symbols}
    assert _calls(files)["use.go#use"] == {
        "binding.go#Binding.Bind": ("type", 1.0), "binding.go#form.Bind": ("candidate", 0.5),
    }
    # gin's variant declares the interface again: its copy is a candidate too.
    files["binding_nomsgpack.go"] = files["binding_nomsgpack.go"].replace(
        "var (", "type Binding interface{ Bind() }\n\nvar (")
    assert _calls(files)["use.go#use"] == {
        "binding.go#Binding.Bind": ("type", 1.0), "binding.go#form.Bind": ("candidate", 0.3333),
        "binding_nomsgpack.go#Binding.Bind": ("candidate", 0.3333),
    }


@pytest.mark.parametrize("path, header, variant", [
    ("mask.go", "// Copyright\n\n//go:build !appengine\n", False),
    ("mask_safe.go", "//go:build appengine\n// +build appengine\n", True),
    ("conv_1.19.go", "//go:build !go1.20\n", True),
    ("net.go", "//go:build (linux || darwin) && !nomsgpack\n", False),
    ("term_windows.go", "", True),
    ("term_linux_arm64_test.go", "", True),
    ("term_linux_test.go", "", False),
    ("windows_helper.go", "", False),
    ("odd.go", "//go:build linux &&\n", False),  # unreadable: built
    ("encoder_cbor.go", "// +build binary_log\n", True),  # the older directive alone
    ("encoder_json.go", "// +build !binary_log\n", False),
    ("old_or.go", "// +build windows,amd64 linux\n", False),
    ("old_and.go", "// +build linux\n// +build arm64\n", True),
    ("both.go", "//go:build linux\n// +build windows\n", False),  # the newer one says
])
def test_files_left_out_of_the_default_build(path, header, variant):
    ext = extract_file(path, f"{header}\npackage p\n\nfunc f() {{}}\n".encode(), "go")
    assert ext.variant is variant


def test_a_value_of_a_type_parameter_has_the_methods_of_its_constraint():
    source = """\
package m

type Stringer interface{ String() string }

func Join[T Stringer, U any](xs []T, u U) {
	for _, x := range xs {
		x.String()
	}
}

type Box[T Stringer] struct{ v T }

func (b Box[T]) Get() string { return b.v.String() }
"""
    calls = targets_by_source(resolve_all(SymbolTable([extract_file("m.go", source.encode(), "go")]))[0])
    assert calls["m.go#Join"] == {"m.go#Stringer.String": ("type", 1.0)}
    assert calls["m.go#Box.Get"] == {"m.go#Stringer.String": ("type", 1.0)}


def test_an_external_test_package_is_another_package_of_the_directory():
    # zap's common_test.go (`package zap`) and stacktrace_ext_test.go (`package zap_test`)
    # each define `withLogger`: each package's files call their own.
    files = {
        "logger.go": "package gin\n\nfunc New() {}\n",
        "common_test.go": "package gin\n\nfunc withLogger() {}\n",
        "clock_test.go": "package gin\n\nfunc TestClock() { withLogger(); New() }\n",
        "ext_test.go": 'package gin_test\n\nimport "example.com/gin"\n\nfunc withLogger() {}\n\n'
                       "func TestExt() { withLogger(); gin.New() }\n",
    }
    calls = _calls(files)
    assert calls["clock_test.go#TestClock"] == {
        "common_test.go#withLogger": ("scope", 1.0), "logger.go#New": ("scope", 1.0)}
    assert calls["ext_test.go#TestExt"] == {
        "ext_test.go#withLogger": ("scope", 1.0), "logger.go#New": ("import", 1.0)}


def test_an_external_test_package_sees_the_test_files_of_the_package_it_imports():
    # redigo's conn_test.go (`package redis_test`) calls `redis.DialDefaultServer()`, defined in
    # test_test.go (`package redis`): `go test` builds them together. Other importers do not.
    files = {
        "logger.go": "package gin\n\nfunc New() {}\n",
        "helpers_test.go": "package gin\n\nfunc DialTest() {}\n",
        "ext_test.go": 'package gin_test\n\nimport "example.com/gin"\n\nfunc TestExt() { gin.DialTest(); gin.New() }\n',
        "app/app.go": 'package app\n\nimport "example.com/gin"\n\nfunc run() { gin.DialTest() }\n',
    }
    calls = _calls(files)
    assert calls["ext_test.go#TestExt"] == {
        "helpers_test.go#DialTest": ("import", 1.0), "logger.go#New": ("import", 1.0)}
    assert "helpers_test.go#DialTest" not in calls.get("app/app.go#run", {})


def test_names_a_call_of_several_results_binds_take_them_by_position():
    # go-sql-driver/mysql's tests: `conn, mc := newRWMockConn(1)`, then `mc.auth(...)`.
    source = """\
package m

type mockConn struct{}
type mysqlConn struct{}

func (c *mysqlConn) auth()  {}
func (c *mockConn) written() {}

func newRWMockConn(seq uint8) (*mockConn, *mysqlConn) { return new(mockConn), &mysqlConn{} }

func named() (conn *mockConn, a, b *mysqlConn, err error) { return }

func TestAuth() {
	conn, mc := newRWMockConn(1)
	mc.auth()
	conn.written()
}

func TestNamed() {
	_, _, b, err := named()
	b.auth()
	_ = err
}
"""
    files = {"m.go": source, "other/other.go": OTHER + "\nfunc (X) auth() {}\nfunc (X) written() {}\n"}
    calls = _calls(files)
    assert calls["m.go#TestAuth"] == {"m.go#newRWMockConn": ("scope", 1.0), "m.go#mysqlConn.auth": ("type", 1.0),
                                      "m.go#mockConn.written": ("type", 1.0)}
    assert calls["m.go#TestNamed"] == {"m.go#named": ("scope", 1.0), "m.go#mysqlConn.auth": ("type", 1.0)}


_ENCODERS = {
    "json/json.go": "package json\n\ntype Encoder struct{}\n\nfunc (Encoder) AppendBool() {}\n",
    "cbor/cbor.go": "package cbor\n\ntype Encoder struct{}\n\nfunc (Encoder) AppendBool() {}\n",
    "enc_json.go": '// +build !binary_log\n\npackage gin\n\nimport "example.com/gin/json"\n\nvar enc = json.Encoder{}\n',
    "enc_cbor.go": '// +build binary_log\n\npackage gin\n\nimport "example.com/gin/cbor"\n\nvar enc = cbor.Encoder{}\n',
    "pair.go": "package gin\n\nfunc pair() (*Conn, *Stmt) { return nil, nil }\n\ntype Conn struct{}\ntype Stmt struct{}\n\n"
               "func (*Stmt) Close() {}\n",
    "use.go": "package gin\n\nfunc use() {\n\tenc.AppendBool()\n\t_, st := pair()\n\tst.Close()\n}\n",
}


@pytest.mark.parametrize("path, new", [
    ("enc_cbor.go", None),  # the variant goes: the default build's value is all there is
    ("enc_json.go", '// +build binary_log2\n\npackage gin\n\nimport "example.com/gin/json"\n\nvar enc = json.Encoder{}\n'),
    ("pair.go", "package gin\n\nfunc pair() (*Stmt, *Conn) { return nil, nil }\n\ntype Conn struct{}\ntype Stmt struct{}\n\n"
                "func (*Stmt) Close() {}\n"),
])
def test_incremental_equals_clean_when_variants_and_results_change(path, new):
    setup = lambda table: table.set_go_modules(GoModules((("example.com/gin", ""),), frozenset({""})))  # noqa: E731
    assert "use.go" in incremental_equals_clean(_ENCODERS, path, new, setup)
    assert _calls(_ENCODERS)["use.go#use"] == {
        "json/json.go#Encoder.AppendBool": ("type", 1.0), "cbor/cbor.go#Encoder.AppendBool": ("candidate", 0.5),
        "pair.go#pair": ("scope", 1.0), "pair.go#Stmt.Close": ("type", 1.0)}


_TEST_PACKAGES = {
    "logger.go": "package gin\n\nfunc New() {}\n",
    "common_test.go": "package gin\n\nfunc withLogger() {}\n",
    "clock_test.go": "package gin\n\nfunc TestClock() { withLogger(); New() }\n",
    "ext_test.go": 'package gin_test\n\nimport "example.com/gin"\n\nfunc withLogger() {}\n\n'
                   "func TestExt() { withLogger(); gin.New() }\n",
}


@pytest.mark.parametrize("path, new", [
    ("common_test.go", "package gin_test\n\nfunc withLogger() {}\n"),  # moves to the external package
    ("ext_test.go", 'package gin\n\nimport "example.com/gin"\n\nfunc TestExt() { gin.New() }\n'),
    ("common_test.go", None),
])
def test_incremental_equals_clean_when_a_file_moves_between_test_packages(path, new):
    setup = lambda table: table.set_go_modules(GoModules((("example.com/gin", ""),), frozenset({""})))  # noqa: E731
    incremental_equals_clean(_TEST_PACKAGES, path, new, setup)


def test_a_conversion_through_an_alias_is_to_the_type_it_names():
    # prometheus/common's `type Secret = secret.Secret`, then `s := Secret(x); s.Reveal()`.
    # A defined type (`type Local string`) is a type of its own; an alias of a builtin converts
    # to the builtin (gorm's `mybool = bool`), no edge.
    files = {
        "secret/secret.go": "package secret\n\ntype Secret string\n\nfunc (s Secret) Reveal() string { return string(s) }\n",
        "config.go": 'package gin\n\nimport "example.com/gin/secret"\n\ntype Secret = secret.Secret\n\n'
                     "type Local string\n\ntype mybool = bool\n\n"
                     "func use(x string) {\n\ts := Secret(x)\n\ts.Reveal()\n\t_ = Local(x)\n\t_ = mybool(true)\n}\n",
        "other/other.go": OTHER + "\nfunc (X) Reveal() string { return \"\" }\n",
    }
    assert _calls(files)["config.go#use"] == {
        "secret/secret.go#Secret": ("scope", 1.0), "secret/secret.go#Secret.Reveal": ("type", 1.0),
        "config.go#Local": ("scope", 1.0)}


def test_a_generic_call_of_several_results_binds_them_by_position():
    # golang-lru's `l, err := New2Q[int, int](128)`, which tree-sitter reads as a conversion.
    source = ("package m\n\ntype Cache[K comparable, V any] struct{}\n\nfunc (c *Cache[K, V]) Add(k K, v V) {}\n\n"
              "func New2Q[K comparable, V any](size int) (*Cache[K, V], error) { return nil, nil }\n\n"
              "func use() {\n\tl, err := New2Q[int, int](128)\n\t_ = err\n\tl.Add(1, 1)\n}\n")
    files = {"m.go": source, "other/other.go": OTHER + "\nfunc (X) Add() {}\n"}
    assert _calls(files)["m.go#use"] == {"m.go#New2Q": ("scope", 1.0), "m.go#Cache.Add": ("type", 1.0)}


def test_constants_of_a_declared_type_and_those_that_repeat_it():
    # go-pretty's `const ( FgHiBlack Color = iota + 90; FgHiRed; FgHiGreen ... )`, then
    # `text.FgHiGreen.Sprint("/")`; an untyped group (`X = 1; Y`) says nothing.
    source = ("package m\n\ntype Color int\n\nfunc (c Color) Sprint(a ...any) string { return \"\" }\n\n"
              "const (\n\tReset Color = iota\n\tBold\n\t// a comment\n\tFaint\n)\n\n"
              "const (\n\tX = 1\n\tY\n)\n\nfunc use() {\n\tFaint.Sprint(\"x\")\n\tReset.Sprint(\"y\")\n}\n\n"
              "func untyped() { Y.Sprint() }\n")
    files = {"m.go": source, "other/other.go": OTHER + "\nfunc (X) Sprint() {}\n"}
    calls = _calls(files)
    assert calls["m.go#use"] == {"m.go#Color.Sprint": ("type", 1.0)}
    assert calls["m.go#untyped"]["m.go#Color.Sprint"][0] != "type"


def test_a_function_of_two_builds_gives_the_default_builds_result():
    # google/btree: btree.go (`//go:build !go1.18`) and btree_generic.go (`go1.18`) both declare
    # `New` and `BTree`; `tr := New(32); tr.ReplaceOrInsert(...)` is the default build's method.
    old = "//go:build !go1.18\n\npackage btree\n\ntype BTree struct{}\n\nfunc New(d int) *BTree { return nil }\n\n" \
          "func (t *BTree) ReplaceOrInsert(i int) {}\n"
    files = {"btree.go": old, "btree_generic.go": old.replace("!go1.18", "go1.18"),
             "use.go": "package btree\n\nfunc use() {\n\ttr := New(32)\n\ttr.ReplaceOrInsert(1)\n}\n",
             "other/other.go": OTHER + "\nfunc (X) ReplaceOrInsert(i int) {}\n"}
    calls = _calls(files)["use.go#use"]
    assert calls["btree_generic.go#New"] == ("scope", 1.0) and calls["btree.go#New"][0] == "candidate"
    assert calls["btree_generic.go#BTree.ReplaceOrInsert"] == ("type", 1.0)
