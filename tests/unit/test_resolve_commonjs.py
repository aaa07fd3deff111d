"""CommonJS as Node writes it: constructor functions with methods on their prototype,
``module.exports = Router`` as the module's value and ``require`` of it, and what ``new``
of a constructor function makes."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import incremental_equals_clean

FILES = {
    "lib/router.js": """\
function Router(options) {
  if (!(this instanceof Router)) return new Router(options);
  this.stack = [];
}
Router.prototype.use = function use(fn) { this.stack.push(fn); return this; };
Router.prototype.handle = function (req) { return this.use(req); };
module.exports = Router;
""",
    "lib/util.js": "exports.helper = function helper() {};\nfunction local() {}\n",
    "app.js": """\
const Router = require('./lib/router');
const util = require('./lib/util');
function main() {
  const router = new Router();
  router.use(() => 1);
  Router().handle({});
  util.helper();
}
""",
}


def _calls() -> dict[str, dict[str, tuple[str, float]]]:
    table = SymbolTable(extract_file(p, t.encode(), language_for_path(p).name) for p, t in FILES.items())
    calls: dict[str, dict[str, tuple[str, float]]] = {}
    for e in resolve_all(table)[0]:
        if e.type == "CALLS":
            calls.setdefault(e.src, {})[e.dst] = (e.reason, e.confidence)
    return calls


CALLS = _calls()


def test_prototype_assignments_are_methods_of_the_constructor_function():
    syms = {s.id: s for s in extract_file("lib/router.js", FILES["lib/router.js"].encode(), "javascript").symbols}
    assert syms["lib/router.js#Router.use"].kind == "method"
    assert syms["lib/router.js#Router.handle"].kind == "method"
    assert CALLS["lib/router.js#Router.handle"] == {"lib/router.js#Router.use": ("self", 1.0)}


def test_require_of_a_module_that_sets_module_exports_is_that_value():
    main = CALLS["app.js#main"]
    assert main["lib/router.js#Router"] == ("import", 1.0)
    assert main["lib/router.js#Router.use"] == ("type", 1.0)  # `new Router()`: an instance
    assert main["lib/router.js#Router.handle"] == ("type", 1.0)
    assert main["lib/util.js#helper"] == ("import", 1.0)  # no `module.exports =`: the module


def test_setting_module_exports_re_resolves_its_requirers():
    changed = FILES["lib/router.js"].replace("module.exports = Router;\n", "")
    assert "app.js" in incremental_equals_clean(FILES, "lib/router.js", changed)


def test_a_member_of_a_required_module_self_and_exports_of_the_module():
    files = {
        "lib/utils.js": "exports.etag = function (x) { return x; };\n"
                        "exports.both = function (t) { return exports.etag(t); };\n",
        "lib/auth.js": "function Auth(r) { this.r = r; }\n"
                       "Auth.prototype.basic = function (u) { return u; };\n"
                       "Auth.prototype.onRequest = function (u) {\n  var self = this;\n  self.basic(u);\n};\n"
                       "exports.Auth = Auth;\n",
        "app.js": "var etag = require('./lib/utils').etag;\nvar Auth = require('./lib/auth').Auth;\n"
                  "function main() {\n  etag(1);\n  new Auth().basic();\n}\n",
    }
    table = SymbolTable(extract_file(p, t.encode(), language_for_path(p).name) for p, t in files.items())
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}
    assert calls[("app.js#main", "lib/utils.js#etag")] == ("import", 1.0)  # not the variable `etag`
    assert ("app.js#main", "app.js#etag") not in calls
    assert calls[("app.js#main", "lib/auth.js#Auth.basic")] == ("type", 1.0)
    assert calls[("lib/auth.js#Auth.onRequest", "lib/auth.js#Auth.basic")] == ("type", 1.0)  # `self = this`
    assert calls[("lib/utils.js#both", "lib/utils.js#etag")] == ("import", 1.0)  # `exports.etag()`


def test_a_function_with_nested_functions_only_is_no_constructor():
    source = b"function outer() {\n  function inner() { this.run(); }\n  return inner;\n}\n" \
             b"function Other() {}\nOther.prototype.run = function () {};\n"
    table = SymbolTable([extract_file("m.js", source, "javascript")])
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}
    assert calls.get(("m.js#outer.inner", "m.js#Other.run"), ("", 0.0))[1] < 1.0


def test_fields_and_this_of_a_constructor_function():
    files = {
        "lib/qs.js": "function Qs(r) { this.r = r; }\nQs.prototype.stringify = function (o) { return o; };\n"
                     "exports.Qs = Qs;\n",
        "request.js": "var Qs = require('./lib/qs').Qs;\n"
                      "function Request(options) {\n  this._qs = new Qs(this);\n  this.init(options);\n}\n"
                      "Request.prototype.init = function (o) { this._tunnel = new Qs(this); };\n"
                      "Request.prototype.start = function () {\n  this._qs.stringify(1);\n"
                      "  this._tunnel.stringify(2);\n};\n",
    }
    table = SymbolTable(extract_file(p, t.encode(), language_for_path(p).name) for p, t in files.items())
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}
    assert calls[("request.js#Request", "request.js#Request.init")] == ("self", 1.0)  # `this` in its own body
    assert calls[("request.js#Request.start", "lib/qs.js#Qs.stringify")] == ("type", 1.0)


def test_module_exports_object_names_members_as_its_keys_say():
    files = {
        "lib/utils.js": "function clone(o) { return o; }\nfunction convenienceClone(o) { return clone(o); }\n"
                        "function replyToObject(r) { return r; }\n"
                        "module.exports = {\n  clone: convenienceClone,\n  replyToObject\n};\n",
        "lib/es5.js": "if (isES5) {\n  module.exports = { keys: Object.keys };\n} else {\n"
                      "  var ObjectKeys = function (o) { return []; };\n  module.exports = { keys: ObjectKeys };\n}\n",
        "lib/mocha.js": "function Mocha() {}\nMocha.prototype.run = function () {};\nexports = module.exports = Mocha;\n",
        "app.js": "var utils = require('./lib/utils');\nvar keys = require('./lib/es5').keys;\n"
                  "var Mocha = require('./lib/mocha');\n"
                  "function main() {\n  utils.clone(1);\n  utils.replyToObject(2);\n  keys({});\n"
                  "  new Mocha().run();\n}\n",
    }
    table = SymbolTable(extract_file(p, t.encode(), language_for_path(p).name) for p, t in files.items())
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0]
             if e.type == "CALLS" and e.src == "app.js#main"}
    assert calls[("app.js#main", "lib/utils.js#convenienceClone")] == ("import", 1.0)  # not its own `clone`
    assert ("app.js#main", "lib/utils.js#clone") not in calls
    assert calls[("app.js#main", "lib/utils.js#replyToObject")] == ("import", 1.0)
    assert not [dst for (_, dst), (_, conf) in calls.items() if dst.startswith("lib/es5.js") and conf == 1.0]
    assert calls[("app.js#main", "lib/mocha.js#Mocha.run")] == ("type", 1.0)  # `exports = module.exports = Mocha`


def test_static_members_and_variables_declared_by_require():
    files = {
        "lib/base.js": "function Base(runner) { this.runner = runner; }\n"
                       "Base.color = function (type, str) { return str; };\n"
                       "Base.prototype.epilogue = function () { return Base.color('x', 'y'); };\n"
                       "exports = module.exports = Base;\n",
        "lib/list.js": "var Base = require('./base');\nvar color = Base.color;\n"
                       "exports.Base = Base;\n"
                       "function List(runner) {\n  color('pass', 'x');\n  Base.color('a', 'b');\n"
                       "  new exports.Base(runner);\n}\n",
    }
    table = SymbolTable(extract_file(p, t.encode(), language_for_path(p).name) for p, t in files.items())
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}
    assert calls[("lib/base.js#Base.epilogue", "lib/base.js#Base.color")] == ("type", 1.0)
    assert calls[("lib/list.js#List", "lib/base.js#Base.color")] == ("type", 1.0)  # both calls
    assert ("lib/list.js#List", "lib/list.js#color") not in calls  # not the variable holding it
    assert calls[("lib/list.js#List", "lib/base.js#Base")] == ("type", 1.0)  # `exports.Base`: the import


def test_a_variable_aliasing_a_builtin_is_no_callee():
    # `var cr = Object.create; cr(null)` calls Object.create, not the variable; a variable bound
    # to a call's result (a class made at run time) stays the name the graph has for it.
    source = b"var cr = Object.create;\nvar Made = makeClass();\nfunction f() { cr(null); Made(); }\n"
    table = SymbolTable([extract_file("m.js", source, "javascript")])
    calls = {e.dst for e in resolve_all(table)[0] if e.type == "CALLS" and e.src == "m.js#f"}
    assert "m.js#cr" not in calls
    assert "m.js#Made" in calls


def test_chained_prototype_assignments_and_methods_added_by_another_file():
    files = {
        "index.js": "function RedisClient() {}\n"
                    "RedisClient.prototype.internal_send_command = function (c) { return c; };\n"
                    "module.exports = RedisClient;\n",
        "lib/commands.js": "var RedisClient = require('../index');\n"
                           "RedisClient.prototype.multi = RedisClient.prototype.MULTI = function multi(a) {\n"
                           "  return this.internal_send_command(a);\n};\n",
    }
    table = SymbolTable(extract_file(p, t.encode(), language_for_path(p).name) for p, t in files.items())
    ids = {s for e in table.files.values() for s in (x.id for x in e.symbols)}
    assert "lib/commands.js#RedisClient.MULTI" in ids  # the last name of the chain is the method's
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}
    assert calls[("lib/commands.js#RedisClient.MULTI", "index.js#RedisClient.internal_send_command")][1] == 1.0


_SELF_FIELDS = {
    "lib/redirect.js": (
        "function Redirect (request) {\n  this.request = request\n}\n"
        "Redirect.prototype.onRequest = function (options) {\n  return options\n}\n"
        "exports.Redirect = Redirect\n"
    ),
    "request.js": (
        "var Redirect = require('./lib/redirect').Redirect\n"
        "function Request (options) {\n  var self = this\n  self._redirect = new Redirect(self)\n"
        "  var other = {}\n  other._redirect = 1\n}\n"
        "Request.prototype.init = function (options) {\n  var self = this\n  self._redirect.onRequest(options)\n}\n"
        "function helper (that) {\n  that._cache = new Redirect(that)\n}\n"
    ),
}


def test_a_field_assigned_through_a_name_bound_to_this_is_the_instances():
    table = SymbolTable(extract_file(p, t.encode(), "javascript") for p, t in _SELF_FIELDS.items())
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}
    assert calls[("request.js#Request.init", "lib/redirect.js#Redirect.onRequest")] == ("type", 1.0)
    fields = {(b.scope, b.name) for b in table.files["request.js"].bindings if b.context}
    assert fields == {("request.js#Request", "_redirect")}  # not `other._redirect`, not a parameter `that`


_REPORTERS = {
    "lib/base.js": (
        "exports = module.exports = Base;\n"
        "var color = (exports.color = function (type, str) {\n  return str;\n});\n"
        "var generateDiff = (exports.generateDiff = function (actual, expected) {\n  return color('diff', actual);\n});\n"
        "function Base(runner) {\n  this.runner = runner;\n}\n"
        "Base.prototype.grep = function (re) {\n  this.re = re;\n  return this;\n};\n"
        "Base.prototype.done = function () {\n  return this.grep('a').grep('b').epilogue();\n};\n"
        "Base.prototype.epilogue = function () {\n  [1].map(function (x) { return x; });\n};\n"
    ),
    "lib/landing.js": (
        "var Base = require('./base');\nvar color = Base.color;\n"
        "function Landing(runner) {\n  Base.call(this, runner);\n  color('plane', 'p');\n}\n"
    ),
}


def _reporter_calls() -> dict[tuple[str, str], tuple[str, float]]:
    table = SymbolTable(extract_file(p, t.encode(), "javascript") for p, t in _REPORTERS.items())
    return {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}


def test_a_function_assigned_to_exports_inside_a_declaration_is_that_name():
    calls = _reporter_calls()
    assert calls[("lib/base.js#generateDiff", "lib/base.js#color")] == ("scope", 1.0)


def test_a_property_of_the_exported_function_is_the_modules_export():
    assert _reporter_calls()[("lib/landing.js#Landing", "lib/base.js#color")] == ("type", 1.0)


def test_a_method_returning_this_chains_on_the_instance():
    calls = _reporter_calls()
    assert calls[("lib/base.js#Base.done", "lib/base.js#Base.grep")][1] == 1.0
    assert calls[("lib/base.js#Base.done", "lib/base.js#Base.epilogue")] == ("type", 1.0)


_INHERITS = {
    "lib/runnable.js": (
        "var EventEmitter = require('events').EventEmitter;\nvar utils = require('./utils');\n"
        "module.exports = Runnable;\nfunction Runnable(title) { this.title = title; }\n"
        "utils.inherits(Runnable, EventEmitter);\n"
        "Runnable.prototype.fullTitle = function () { return this.title; };\n"
    ),
    "lib/test.js": (
        "var Runnable = require('./runnable');\nvar inherits = require('util').inherits;\n"
        "module.exports = Test;\nfunction Test(title) { Runnable.call(this, title); }\n"
        "inherits(Test, Runnable);\n"
        "Test.prototype.clone = function () {\n  this.fullTitle();\n  return new Test(this.title);\n};\n"
    ),
    "lib/utils.js": "exports.inherits = require('util').inherits;\n",
}


def test_util_inherits_makes_a_constructor_functions_base():
    table = SymbolTable(extract_file(p, t.encode(), "javascript") for p, t in _INHERITS.items())
    edges = resolve_all(table)[0]
    inherits = {(e.src, e.dst) for e in edges if e.type == "INHERITS"}
    assert ("lib/test.js#Test", "lib/runnable.js#Runnable") in inherits
    assert ("lib/runnable.js#Runnable", "ext:events#EventEmitter") in inherits
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    assert calls[("lib/test.js#Test.clone", "lib/runnable.js#Runnable.fullTitle")][1] == 1.0


@pytest.mark.parametrize("new", [
    _REPORTERS["lib/base.js"].replace("var color = (exports.color = function (type, str) {\n  return str;\n});\n", ""),
    _REPORTERS["lib/base.js"].replace("  return this;\n", "  return 1;\n"),
    None,
])
def test_incremental_equals_clean_when_the_exporting_module_changes(new):
    incremental_equals_clean(_REPORTERS, "lib/base.js", new)


@pytest.mark.parametrize("path, new", [
    ("lib/runnable.js", _INHERITS["lib/runnable.js"].replace("Runnable.prototype.fullTitle", "Runnable.prototype.title")),
    ("lib/test.js", _INHERITS["lib/test.js"].replace("inherits(Test, Runnable);\n", "")),
])
def test_incremental_equals_clean_when_inheritance_changes(path, new):
    incremental_equals_clean(_INHERITS, path, new)


_INLINE = {
    "lib/util.js": "exports.merge = function merge(a, b) { return a; };\nexports.obj = {};\n",
    "bin/cli.js": """\
require('../lib/util').merge({}, {});
function main() {
  return require("../lib/util").merge(1, 2);
}
require('../lib/util').missing();
require('fs').readFileSync('x');
require('').nothing();
""",
}


def test_a_require_call_read_as_a_module_is_that_module():
    table = SymbolTable(extract_file(p, t.encode(), "javascript") for p, t in _INLINE.items())
    edges, stats = resolve_all(table)
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    assert calls[("bin/cli.js", "lib/util.js#merge")] == ("import", 1.0)
    assert calls[("bin/cli.js#main", "lib/util.js#merge")] == ("import", 1.0)
    assert calls[("bin/cli.js", "ext:fs#readFileSync")] == ("external", 1.0)
    assert ("bin/cli.js", "lib/util.js") in {(e.src, e.dst) for e in edges if e.type == "IMPORTS"}
    assert not [e for e in edges if e.dst.startswith("ext:#") or e.dst == "ext:"]  # `require("")` names no module
    # What is left unresolved is reported as written.
    (missed,) = stats.unresolved_sites
    assert missed.unresolved_sites == ['5: require("../lib/util").missing()']


@pytest.mark.parametrize("new", ["exports.merge = 1;\n", None])
def test_incremental_equals_clean_when_a_module_required_inline_changes(new):
    incremental_equals_clean(_INLINE, "lib/util.js", new)


_KEYED = {
    "lib/sequence.js": """\
function Sequence() {}
Sequence.prototype.end = function (err) {};
Sequence.prototype._toError = function (packet) { return packet; };
Sequence.prototype['ErrorPacket'] = function (packet) {
  this.end(this._toError(packet));
};
['get', 'post'].forEach(function (method) {
  Sequence.prototype[method] = function (path) {
    this.end(path);
    return this;
  };
});
module.exports = Sequence;
""",
}


def test_prototype_members_by_key_are_methods_and_see_their_this():
    table = SymbolTable(extract_file(p, t.encode(), "javascript") for p, t in _KEYED.items())
    syms = {s.qualified_name: s.kind for s in table.files["lib/sequence.js"].symbols}
    assert syms["Sequence.ErrorPacket"] == "method"  # `Foo.prototype['m'] = function`
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}
    assert calls[("lib/sequence.js#Sequence.ErrorPacket", "lib/sequence.js#Sequence._toError")] == ("self", 1.0)
    # `Foo.prototype[name] = function` in a loop: no name of its own, but `this` is a Foo.
    assert calls[("lib/sequence.js", "lib/sequence.js#Sequence.end")] == ("type", 1.0)


@pytest.mark.parametrize("new", [_KEYED["lib/sequence.js"].replace("Sequence.prototype.end =", "Sequence.end ="), None])
def test_incremental_equals_clean_when_a_keyed_prototype_changes(new):
    incremental_equals_clean(_KEYED, "lib/sequence.js", new)


_EXPORTS_ALIAS = {
    "lib/auth.js": """\
var Auth = exports;
function auth(name) { return Auth.token(name); }
Auth.token = function (password) { return password; };
""",
    "lib/app.js": "var app = exports = module.exports = {};\napp.init = function init() { this.set(1); };\n"
                  "app.set = function set(v) { return v; };\n",
    "lib/use.js": "var Auth = require('./auth');\nvar app = require('./app');\nfunction go() { Auth.token(1); app.init(); }\n",
}


def test_members_of_a_name_for_the_modules_exports_are_its_exports():
    table = SymbolTable(extract_file(p, t.encode(), "javascript") for p, t in _EXPORTS_ALIAS.items())
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}
    assert calls[("lib/auth.js#auth", "lib/auth.js#Auth.token")][1] == 1.0
    assert calls[("lib/use.js#go", "lib/auth.js#Auth.token")] == ("import", 1.0)
    assert calls[("lib/use.js#go", "lib/app.js#app.init")] == ("import", 1.0)
    assert calls[("lib/app.js#app.init", "lib/app.js#app.set")] == ("self", 1.0)


@pytest.mark.parametrize("new", [_EXPORTS_ALIAS["lib/auth.js"].replace("var Auth = exports;", "var Auth = {};"), None])
def test_incremental_equals_clean_when_a_name_for_the_exports_changes(new):
    incremental_equals_clean(_EXPORTS_ALIAS, "lib/auth.js", new)


_ALIASES = {
    "lib/client.js": """\
function Client() {}
Client.prototype.send = Client.prototype.SEND = function (cmd) { return cmd; };
Client.prototype.hmset = Client.prototype.HMSET;
Client.prototype.HMSET = function () {};
Client.prototype.run = function () { this.send(1); this.hmset(); };
module.exports = Client;
""",
    "app.js": "var Client = require('./lib/client');\nfunction main() { new Client().send(2); }\n",
}


def test_a_prototype_member_assigned_another_holds_that_method():
    table = SymbolTable(extract_file(p, t.encode(), "javascript") for p, t in _ALIASES.items())
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}
    # `Foo.prototype.a = Foo.prototype.b = function`: the method is b, and a holds it.
    assert calls[("lib/client.js#Client.run", "lib/client.js#Client.SEND")][1] == 1.0
    assert calls[("lib/client.js#Client.run", "lib/client.js#Client.HMSET")][1] == 1.0
    assert calls[("app.js#main", "lib/client.js#Client.SEND")][1] == 1.0


@pytest.mark.parametrize("new", [_ALIASES["lib/client.js"].replace("Client.prototype.hmset = Client.prototype.HMSET;\n", ""),
                                 None])
def test_incremental_equals_clean_when_a_prototype_alias_changes(new):
    incremental_equals_clean(_ALIASES, "lib/client.js", new)
