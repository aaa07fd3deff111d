// Every named class and interface of the TypeScript files listed on stdin with all its
// ancestors as the TypeScript checker sees them (base types, transitively: a class's
// `extends`, an interface's `extends`; a base named by a type alias is the alias), as JSON lines {file, name, line, start, kind,
// ancestors: [{file, name, line, start}]} (`file` null outside the project root).
// Arguments: the path of typescript.js and the project root.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(process.argv[2]);
const root = path.resolve(process.argv[3]);

const rels = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
const program = ts.createProgram(rels.map((r) => path.join(root, r)), {
  allowJs: true, checkJs: false, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve,
  experimentalDecorators: true, lib: ["lib.esnext.d.ts", "lib.dom.d.ts"],
});
const checker = program.getTypeChecker();

const relOf = (fileName) => {
  const rel = path.relative(root, path.resolve(fileName));
  return rel.startsWith("..") || path.isAbsolute(rel) || rel.split(path.sep).includes("node_modules")
    ? null : rel.split(path.sep).join("/");
};
const lineOf = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;

function place(decl) {
  const sf = decl.getSourceFile();
  return { file: relOf(sf.fileName), name: decl.name ? decl.name.getText(sf) : null,
           line: lineOf(sf, (decl.name || decl).getStart(sf)), start: lineOf(sf, decl.getStart(sf)) };
}

const isType = (d) => ts.isClassDeclaration(d) || ts.isInterfaceDeclaration(d) || ts.isClassExpression(d);

function ancestors(type) {
  const out = new Map();
  const todo = [type];
  const seen = new Set([type]);
  while (todo.length) {
    const t = todo.pop();
    let bases = [];
    try {
      bases = checker.getBaseTypes(t) || [];
    } catch (e) {
      bases = [];
    }
    for (let b of bases) {
      // A base named by a type alias (`interface A extends Alias`) is the alias's declaration.
      for (const d of (b.aliasSymbol && b.aliasSymbol.declarations) || []) {
        if (ts.isTypeAliasDeclaration(d)) {
          const p = place(d);
          out.set(`${p.file}:${p.line}:${p.name}`, p);
        }
      }
      b = b.target || b;
      if (seen.has(b) || !(b.flags & ts.TypeFlags.Object) || !(b.objectFlags & ts.ObjectFlags.ClassOrInterface)) continue;
      seen.add(b);
      todo.push(b);
      for (const d of (b.symbol && b.symbol.declarations) || []) {
        if (isType(d)) {
          const p = place(d);
          out.set(`${p.file}:${p.line}:${p.name}`, p);
        }
      }
    }
  }
  return [...out.values()];
}

const lines = [];
for (const rel of rels) {
  const sf = program.getSourceFile(path.join(root, rel));
  if (!sf) continue;
  const visit = (node) => {
    if ((ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name) {
      const symbol = checker.getSymbolAtLocation(node.name);
      if (symbol) {
        const type = checker.getDeclaredTypeOfSymbol(symbol);
        lines.push(JSON.stringify({ ...place(node), kind: ts.SyntaxKind[node.kind], ancestors: ancestors(type) }));
      }
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sf, visit);
}
process.stdout.write(lines.join("\n") + (lines.length ? "\n" : ""));
