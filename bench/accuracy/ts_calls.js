// Every call site of the TypeScript/JavaScript files listed on stdin, with what the
// TypeScript checker says the callee is, as JSON lines:
//   {file, line, col, name, receiver, caller, targets}
// `caller` is the innermost enclosing named function, method, accessor, constructor,
// class, namespace, variable/property initialised with a function, or named function a
// `return` gives ({name, line, start};
// null at the top level). `targets` are the declarations of the callee's symbol, aliases
// followed ({file, name, line, start, kind}; `file` null outside the project root), null
// when the checker has no symbol for the callee. Arguments: the path of typescript.js and
// the project root; the listed files are the program's root files.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(process.argv[2]);
const root = path.resolve(process.argv[3]);

const rels = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
const program = ts.createProgram(rels.map((r) => path.join(root, r)), {
  allowJs: true,
  checkJs: false,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.Preserve,
  experimentalDecorators: true,
  lib: ["lib.esnext.d.ts", "lib.dom.d.ts"],
});
const checker = program.getTypeChecker();

const relOf = (fileName) => {
  const rel = path.relative(root, path.resolve(fileName));
  return rel.startsWith("..") || path.isAbsolute(rel) || rel.split(path.sep).includes("node_modules")
    ? null : rel.split(path.sep).join("/");
};

const lineOf = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;

const isFunctionValue = (node) => node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

// The name of a node that callers are attributed to, or null when the node is transparent.
function callerName(node) {
  switch (node.kind) {
    case ts.SyntaxKind.FunctionDeclaration:
    case ts.SyntaxKind.ClassDeclaration:
    case ts.SyntaxKind.MethodDeclaration:
    case ts.SyntaxKind.GetAccessor:
    case ts.SyntaxKind.SetAccessor:
    case ts.SyntaxKind.ModuleDeclaration:
      return node.name ? node.name.getText() : null;
    case ts.SyntaxKind.Constructor:
      return "constructor";
    case ts.SyntaxKind.VariableDeclaration:
    case ts.SyntaxKind.PropertyDeclaration:
      // `#validate = async () => {}` too: a private name is the function's name (`#validate`).
      return (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name)) && isFunctionValue(node.initializer)
        ? node.name.getText() : null;
    case ts.SyntaxKind.FunctionExpression:
      // `return function make() {}`: the graph names the function a factory returns.
      if (node.name && node.parent && ts.isReturnStatement(node.parent)) return node.name.getText();
      return assignedMethodName(node);
    case ts.SyntaxKind.ArrowFunction:
      return assignedMethodName(node);
    default:
      return null;
  }
}

// A function assigned as a method of a constructor function's prototype, as a CommonJS
// export, or at the top level as a property of a name (`Foo.prototype.m = function () {}`,
// `exports.f = () => {}`, `module.exports.f = ...`, `Base.color = function`): named by the
// property, as the graph names these definitions; null for other assignments.
function assignedMethodName(node) {
  const p = node.parent;
  if (!p || !ts.isBinaryExpression(p) || p.operatorToken.kind !== ts.SyntaxKind.EqualsToken || p.right !== node
      || !ts.isPropertyAccessExpression(p.left)) return null;
  const owner = p.left.expression;
  const topLevel = ts.isExpressionStatement(p.parent) && ts.isSourceFile(p.parent.parent);
  const named = owner.getText() === "exports" || owner.getText() === "module.exports"
    || (ts.isPropertyAccessExpression(owner) && owner.name.getText() === "prototype")
    || (topLevel && ts.isIdentifier(owner));
  return named ? p.left.name.getText() : null;
}

function declarationOf(decl) {
  const sf = decl.getSourceFile();
  const nameNode = ts.getNameOfDeclaration(decl);
  const name = decl.kind === ts.SyntaxKind.Constructor ? "constructor"
    : nameNode ? nameNode.getText(sf) : (ts.isSourceFile(decl) ? null : "default");
  return {
    file: relOf(sf.fileName),
    name,
    line: lineOf(sf, (nameNode || decl).getStart(sf)),
    start: lineOf(sf, decl.getStart(sf)),
    kind: ts.SyntaxKind[decl.kind],
  };
}

function targetsOf(nameNode) {
  let symbol = checker.getSymbolAtLocation(nameNode);
  if (!symbol) return null;
  if (symbol.flags & ts.SymbolFlags.Alias) {
    try {
      symbol = checker.getAliasedSymbol(symbol);
    } catch (e) {
      return null;
    }
  }
  if (!symbol.declarations || symbol.declarations.length === 0) return null;
  const holding = held(symbol);
  return holding ? holding.declarations.map(declarationOf) : null;
}

// A variable or object property holding a function or class (`var md5 = helpers.md5`,
// `module.exports = {clone: clone}`): the call calls what it holds, as far as such holders go
// (the Python oracle does the same with what Jedi infers a called variable to hold); null
// when the checker has no symbol for what it holds (`var extname = path.extname` without
// Node's types).
function held(symbol) {
  for (let hop = 0; hop < 4; hop++) {
    const decls = symbol.declarations || [];
    const decl = decls.length === 1 ? decls[0] : null;
    const property = decl && destructured(decl);
    if (property) {  // `const { run } = make()`: the property of what it is taken from
      symbol = property;
      continue;
    }
    const init = decl && (ts.isVariableDeclaration(decl) || ts.isPropertyAssignment(decl)
                          || ts.isPropertyDeclaration(decl)) ? decl.initializer
      : decl && ts.isShorthandPropertyAssignment(decl) ? decl.name : null;  // `module.exports = {clone}`
    if (init && ts.isCallExpression(init)) {
      // What a call returns (`maybeNotify = memo(...)`): the one function its callee returns,
      // as Jedi infers it for the Python oracle; else the holder itself, as before.
      return returnedFunction(init) || symbol;
    }
    if (!init || !(ts.isIdentifier(init) || ts.isPropertyAccessExpression(init))) break;
    let next = decl && ts.isShorthandPropertyAssignment(decl) ? checker.getShorthandAssignmentValueSymbol(decl)
      : checker.getSymbolAtLocation(ts.isPropertyAccessExpression(init) ? init.name : init);
    if (next && next.flags & ts.SymbolFlags.Alias) {
      try { next = checker.getAliasedSymbol(next); } catch (e) { next = null; }
    }
    if (!next || !next.declarations || !next.declarations.length) return null;
    const kinds = ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Method | ts.SymbolFlags.Variable
      | ts.SymbolFlags.Property;
    if (!(next.flags & kinds)) break;
    symbol = next;
  }
  return symbol;
}

// The function a call returns when its callee (a function of the project) returns one named
// function and nothing else (`function memo() { function run() {}; return run }`, `return
// function run() {}`); null for
// any other call.
function returnedFunction(call) {
  let signature = null;
  try { signature = checker.getResolvedSignature(call); } catch (e) { return null; }
  const decl = signature && signature.declaration;
  if (!decl || !decl.body || !ts.isBlock(decl.body)) return null;
  const returned = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;  // another function's returns
    if (ts.isReturnStatement(node)) returned.push(node.expression);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(decl.body, visit);
  let found = null;
  for (const expr of returned) {
    // `return run` of `function run() {}`, or `return function run() {}`
    const named = expr && ts.isFunctionExpression(expr) && expr.name ? expr.name : null;
    const symbol = named ? checker.getSymbolAtLocation(named)
      : expr && ts.isIdentifier(expr) ? checker.getSymbolAtLocation(expr) : null;
    const fdecl = symbol && symbol.declarations && symbol.declarations.length === 1 ? symbol.declarations[0] : null;
    if (!fdecl || !(ts.isFunctionDeclaration(fdecl) || fdecl === expr) || (found && found !== symbol)) return null;
    found = symbol;
  }
  return found;
}

// A call through a property of a declared type (`provider.run()`, `run: RunFunction` in
// `interface Provider`) on a constant initialised with an object literal (`const provider:
// Provider = { run() {} }`): the literal's member is what runs, as the checker's
// go-to-definition on the literal reads it; the checker's own targets for any other call.
function literalMember(callee, targets) {
  if (!targets || !targets.length || !targets.every((t) => t.kind === "PropertySignature")
      || !ts.isPropertyAccessExpression(callee) || !ts.isIdentifier(callee.expression)) return targets;
  let symbol = checker.getSymbolAtLocation(callee.expression);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) {
    try { symbol = checker.getAliasedSymbol(symbol); } catch (e) { return targets; }
  }
  const decl = symbol && symbol.declarations && symbol.declarations.length === 1 ? symbol.declarations[0] : null;
  if (!decl || !ts.isVariableDeclaration(decl) || !(ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const)
      || !decl.initializer || !ts.isObjectLiteralExpression(decl.initializer)) return targets;
  const name = callee.name.text;
  const member = decl.initializer.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === name);
  const code = member && (ts.isMethodDeclaration(member)
    || (ts.isPropertyAssignment(member) && isFunctionValue(member.initializer)));
  return code ? [declarationOf(member)] : targets;
}

// The property a name destructured from an object stands for (`const { run } = make()`: the
// `run` of make()'s result), as the language service's go-to-definition takes it; null for
// any other declaration.
function destructured(decl) {
  if (!ts.isBindingElement(decl) || !ts.isObjectBindingPattern(decl.parent) || decl.dotDotDotToken) return null;
  const key = decl.propertyName || decl.name;
  if (!ts.isIdentifier(key)) return null;
  const type = checker.getTypeAtLocation(decl.parent);
  const property = type && checker.getPropertyOfType(type, key.text);
  return property && property.declarations && property.declarations.length ? property : null;
}

const out = [];
for (const rel of rels) {
  const sf = program.getSourceFile(path.join(root, rel));
  if (!sf) continue;
  const visit = (node, caller) => {
    const name = callerName(node);
    const inner = name ? { name, line: lineOf(sf, (ts.getNameOfDeclaration(node) || node).getStart(sf)),
                           start: lineOf(sf, node.getStart(sf)) } : caller;
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const callee = node.expression;
      let nameNode = null;
      let receiver = null;
      if (ts.isIdentifier(callee)) {
        nameNode = callee;
      } else if (ts.isPropertyAccessExpression(callee)) {
        nameNode = callee.name;
        receiver = callee.expression.getText(sf);
      }
      if (nameNode) {
        const pos = sf.getLineAndCharacterOfPosition(nameNode.getStart(sf));
        out.push(JSON.stringify({
          file: rel, line: pos.line + 1, col: pos.character, name: nameNode.getText(sf),
          receiver, caller, targets: literalMember(callee, targetsOf(nameNode)),
        }));
      }
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  ts.forEachChild(sf, (child) => visit(child, null));
}

process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
