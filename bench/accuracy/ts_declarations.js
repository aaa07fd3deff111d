// Every named declaration of the TypeScript files listed on stdin, as JSON lines
// {file, name, line, start}: `line` is the line of the name, `start` the line the
// declaration starts on (decorators and modifiers included). Uses the TypeScript compiler's
// own parser, given as the first argument (the path of typescript.js).
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(process.argv[2]);
const root = process.argv[3];

const KINDS = new Map([
  [ts.SyntaxKind.ClassDeclaration, "class"],
  [ts.SyntaxKind.InterfaceDeclaration, "interface"],
  [ts.SyntaxKind.EnumDeclaration, "enum"],
  [ts.SyntaxKind.TypeAliasDeclaration, "type_alias"],
  [ts.SyntaxKind.ModuleDeclaration, "module"],
  [ts.SyntaxKind.FunctionDeclaration, "function"],
  [ts.SyntaxKind.MethodDeclaration, "method"],
  [ts.SyntaxKind.MethodSignature, "method"],
  [ts.SyntaxKind.Constructor, "method"],
  [ts.SyntaxKind.GetAccessor, "method"],
  [ts.SyntaxKind.SetAccessor, "method"],
  [ts.SyntaxKind.PropertyDeclaration, "property"],
  [ts.SyntaxKind.PropertySignature, "property"],
  [ts.SyntaxKind.PropertyAssignment, "property"],
  [ts.SyntaxKind.VariableDeclaration, "variable"],
  [ts.SyntaxKind.EnumMember, "enum_member"],
]);

const input = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
const out = [];
for (const rel of input) {
  const text = fs.readFileSync(path.join(root, rel), "utf8");
  const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node, depth) => {
    const kind = KINDS.get(node.kind);
    if (kind && node.name) {
      const name = node.kind === ts.SyntaxKind.Constructor ? "constructor" : node.name.getText(sf);
      out.push(JSON.stringify({
        file: rel, name, kind, line: lineOf(node.name.getStart(sf)), start: lineOf(node.getStart(sf)),
        top: depth === 0,
      }));
    } else if (node.kind === ts.SyntaxKind.Constructor) {
      out.push(JSON.stringify({
        file: rel, name: "constructor", kind: "method", line: lineOf(node.getStart(sf)),
        start: lineOf(node.getStart(sf)), top: false,
      }));
    }
    const scoped = kind !== undefined && kind !== "variable" && kind !== "property";
    ts.forEachChild(node, (child) => visit(child, depth + (scoped || ts.isFunctionLike(node) ? 1 : 0)));
  };
  ts.forEachChild(sf, (child) => visit(child, 0));
}
process.stdout.write(out.join("\n") + "\n");
