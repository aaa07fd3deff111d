// Command go_oracle lists every call site of a Go module as go/types sees it, as JSON.
//
//	go run . -dir /path/to/module > sites.json
//
// It loads the module's packages ("./...", tests included) with golang.org/x/tools/go/packages
// and, for each call expression, reports where it is (file relative to the module, line,
// column), the function or method it is written in (the innermost top-level declaration:
// calls inside function literals belong to the declaration around them; calls in package-level
// initialisers belong to the file) and what it calls:
//
//	static     a function or a concrete method, known at compile time
//	interface  a method called through an interface value (the target is the interface's method)
//	dynamic    a call of a func value: a variable, parameter, field, call result or literal
//	builtin    len, append, panic, ...
//	conversion T(x): a type, not a call
//
// For static and interface calls the callee is named by its package path, receiver type and
// name, and located (file relative to the module and line of its name) when it is declared
// inside the module. Generic functions and methods are reported as their declaration.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"
)

type caller struct {
	Name string `json:"name"` // "F" or "Recv.M", as the graph qualifies it
	Line int    `json:"line"` // line of the func keyword
}

type site struct {
	File     string  `json:"file"`
	Line     int     `json:"line"`
	Col      int     `json:"col"`
	Name     string  `json:"name"` // the called name as written (selector or identifier), "" for other callees
	Caller   *caller `json:"caller"`
	Kind     string  `json:"kind"`
	Pkg      string  `json:"pkg,omitempty"`
	Recv     string  `json:"recv,omitempty"`
	Callee   string  `json:"callee,omitempty"`
	DeclFile string  `json:"decl_file,omitempty"` // set when the callee is declared inside the module
	DeclLine int     `json:"decl_line,omitempty"`
	Promoted bool    `json:"promoted,omitempty"` // a method reached through an embedded field
	Form     string  `json:"form"`               // how the callee is written: f(), pkg.f(), recv.m(), ...
}

type report struct {
	Module   string   `json:"module"`
	Dir      string   `json:"dir"`
	Packages int      `json:"packages"`
	Files    []string `json:"files"`
	Errors   []string `json:"errors"`
	Sites    []site   `json:"sites"`
}

func main() {
	dir := flag.String("dir", ".", "module directory")
	tests := flag.Bool("tests", true, "include _test.go files")
	flag.Parse()
	root, err := filepath.Abs(*dir)
	if err != nil {
		fail(err)
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps | packages.NeedModule,
		Dir:   root,
		Tests: *tests,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		fail(err)
	}
	out := report{Dir: root, Files: []string{}, Errors: []string{}, Sites: []site{}}
	seen := map[string]bool{}
	files := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			out.Errors = append(out.Errors, e.Error())
		}
	})
	for _, p := range pkgs {
		if p.Module != nil && out.Module == "" && p.Module.Dir == root {
			out.Module = p.Module.Path
		}
		if p.TypesInfo == nil {
			continue
		}
		out.Packages++
		for _, f := range p.Syntax {
			name := p.Fset.Position(f.Pos()).Filename
			rel, ok := inside(root, name)
			if !ok {
				continue // generated test main
			}
			files[rel] = true
			for _, s := range callSites(p, f, root, rel) {
				key := fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
				if !seen[key] {
					seen[key] = true
					out.Sites = append(out.Sites, s)
				}
			}
		}
	}
	for f := range files {
		out.Files = append(out.Files, f)
	}
	sort.Strings(out.Files)
	sort.Slice(out.Sites, func(i, j int) bool {
		a, b := out.Sites[i], out.Sites[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "go_oracle:", err)
	os.Exit(1)
}

// inside gives the slash-separated path of name relative to root, when it is below root.
func inside(root, name string) (string, bool) {
	rel, err := filepath.Rel(root, name)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func callSites(p *packages.Package, f *ast.File, root, rel string) []site {
	var out []site
	for _, decl := range f.Decls {
		var who *caller
		var recv types.Object
		if fd, ok := decl.(*ast.FuncDecl); ok {
			who = &caller{Name: funcName(fd), Line: p.Fset.Position(fd.Pos()).Line}
			if fd.Recv != nil && len(fd.Recv.List) > 0 && len(fd.Recv.List[0].Names) > 0 {
				recv = p.TypesInfo.Defs[fd.Recv.List[0].Names[0]]
			}
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			s := describe(p, call, who, root, rel)
			s.Form = form(p.TypesInfo, call.Fun, recv)
			out = append(out, s)
			return true
		})
	}
	return out
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := unparen(fd.Recv.List[0].Type)
	for star, ok := t.(*ast.StarExpr); ok; star, ok = t.(*ast.StarExpr) {
		t = unparen(star.X)
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// calledName is the identifier naming the callee (F in F(), x.F(), F[T]()), and where it is.
func calledName(fun ast.Expr) *ast.Ident {
	switch x := unparen(fun).(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

func describe(p *packages.Package, call *ast.CallExpr, who *caller, root, rel string) site {
	info := p.TypesInfo
	pos := p.Fset.Position(call.Lparen)
	s := site{File: rel, Line: pos.Line, Col: pos.Column, Caller: who, Kind: "dynamic"}
	if id := calledName(call.Fun); id != nil {
		s.Name = id.Name
		at := p.Fset.Position(id.Pos())
		s.Line, s.Col = at.Line, at.Column
	}
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		s.Kind = "conversion"
		if named, ok := types.Unalias(tv.Type).(*types.Named); ok && named.Obj().Pkg() != nil {
			s.Pkg, s.Callee = named.Obj().Pkg().Path(), named.Obj().Name()
			locate(p, &s, named.Obj(), root)
		}
		return s
	}
	switch obj := typeutil.Callee(info, call).(type) {
	case *types.Builtin:
		s.Kind, s.Callee = "builtin", obj.Name()
	case *types.Func:
		obj = obj.Origin()
		s.Kind = "static"
		if obj.Pkg() != nil {
			s.Pkg = obj.Pkg().Path()
		}
		s.Callee = obj.Name()
		if sig, ok := obj.Type().(*types.Signature); ok && sig.Recv() != nil {
			recv := sig.Recv().Type()
			if ptr, ok := recv.(*types.Pointer); ok {
				recv = ptr.Elem()
			}
			if types.IsInterface(recv) {
				s.Kind = "interface"
			}
			switch r := types.Unalias(recv).(type) {
			case *types.Named:
				s.Recv = r.Obj().Name()
			case *types.Interface:
				s.Recv = "interface{}" // a method of an embedded or literal interface
			}
		}
		if sel, ok := unparen(call.Fun).(*ast.SelectorExpr); ok {
			if selection, ok := info.Selections[sel]; ok && len(selection.Index()) > 1 {
				s.Promoted = true
			}
		}
		locate(p, &s, obj, root)
	}
	return s
}

// unparen is e without the parentheses and type arguments around it: F for (F), F[T], F[K, V].
func unparen(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		default:
			return e
		}
	}
}

func locate(p *packages.Package, s *site, obj types.Object, root string) {
	if !obj.Pos().IsValid() {
		return
	}
	at := p.Fset.Position(obj.Pos())
	if rel, ok := inside(root, at.Filename); ok {
		s.DeclFile, s.DeclLine = rel, at.Line
	}
}

// form says how the callee is written, by the shape of its receiver.
func form(info *types.Info, fun ast.Expr, recv types.Object) string {
	switch x := unparen(fun).(type) {
	case *ast.Ident:
		return "f()"
	case *ast.SelectorExpr:
		switch r := unparen(x.X).(type) {
		case *ast.Ident:
			obj := info.Uses[r]
			if _, ok := obj.(*types.PkgName); ok {
				return "pkg.f()"
			}
			if obj != nil && obj == recv {
				return "recv.m()"
			}
			if _, ok := obj.(*types.TypeName); ok {
				return "T.m()"
			}
			return "name.m()"
		case *ast.SelectorExpr:
			return "a.b.m()"
		case *ast.CallExpr:
			return "call().m()"
		case *ast.CompositeLit:
			return "T{}.m()"
		case *ast.UnaryExpr:
			return "&T{}.m()"
		default:
			return "expr.m()"
		}
	default:
		return "expr()"
	}
}
