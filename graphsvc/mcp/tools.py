"""The MCP tools: one line of `TOOLS` per engine function, its arguments read off its signature.

A tool has no logic of its own. Its input schema is made from the function's parameters as
the GraphQL and REST surfaces make theirs (`graphsvc.api.graph_api`): the positional ones
(ids and text) under the names the verb gives them, the keyword-only ones as typed, a
`**walk: Unpack[Walk]` as that dict's keys, and never `graph`. A parameter that takes a
string is offered as a string. The answer is the result's `text()` (compact, every list saying
how many more there are) and the result itself as JSON (`structuredContent`); an error is the
error's message, never a crash.

Adding a verb to `graphsvc.query.verbs.VERBS` and a `_verb(...)` line here makes it a tool.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import inspect
import json
import logging
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from graphsvc.context.cache import ContentCache, get_cache
from graphsvc.context.events import EventLog
from graphsvc.context.store import get_store
from graphsvc.errors import AmbiguousError, GraphsvcError
from graphsvc.query import engine
from graphsvc.query.arguments import results_at_most
from graphsvc.query.verbs import VERBS

log = logging.getLogger(__name__)

# What the server decides, not the caller: its connection, and the time of a recorded event.
_NOT_ARGUMENTS = ("self", "graph", "at")
# What the common arguments mean, shown to the agent in each tool's input schema.
ARGUMENT_DOCS = {
    "ref": "The entity: an id (src/app.py#App.run), a dotted name (pkg.mod.Class.method), file:line, "
    "or a unique suffix of an id.",
    "workspace": "The indexed workspace's name (`graphsvc workspaces list`).",
    "depth": "How many levels (hops) to follow.",
    "limit": "At most this many results; the answer says how many more there are.",
    "min_confidence": "0-1: leave out edges resolved with less confidence.",
    "include_candidates": "Also follow guessed calls (one of several same-named targets).",
    "turn_id": "A turn of the context store: its workspace and runtime facts.",
    "since": "A git ref (HEAD, a branch, a commit) to compare the files with as they are now, or a unified diff.",
}


@dataclass(frozen=True)
class Tool:
    """Engine function `fn` served as MCP tool `name`. `names` renames its parameters (as the
    verb does for GraphQL); a method (`fn` of a class) is called on the instance `on()` gives."""

    name: str
    fn: Callable
    description: str
    names: dict[str, str] = field(default_factory=dict)
    on: Callable[[], object] | None = None
    writes: bool = False
    docs: dict[str, str] = field(default_factory=dict)  # what its own arguments mean


def _verb(name: str, verb: str, description: str) -> Tool | None:
    """The tool of the verb named `verb` in `VERBS`, or None while there is no such verb."""
    found = next((v for v in VERBS if v.name == verb), None)
    return None if found is None else Tool(name, found.fn, description, found.names)


_TOOLS = (
    _verb("find_symbol", "symbol", "Resolve a name, dotted path, file:line or id suffix to the entity it names (or ranked candidates when ambiguous)."),
    Tool("search", engine.search, "Full-text search over names, qualified names, paths, signatures and docstrings; "
         "`OR` or `|` between words means either.", {"terms": "text"}, docs={"text": "Keywords, all of which must match."}),
    _verb("grep", "grep", "Find the lines of the indexed files holding a literal (or a regex with regex=true), each with its enclosing symbol."),
    _verb("callers", "callers", "Who calls a function or method, to `depth` levels, with file and line per call site and how many calls stayed unresolved."),
    _verb("callees", "callees", "What a function or method calls, to `depth` levels, plus its calls the index could not resolve."),
    _verb("impact", "impact", "What breaks if a symbol, some files or a unified diff change: dependents by hop, files and tests reached."),
    _verb("detect_changes", "changes", "What the uncommitted change (or the change since a git ref) touches: changed symbols, their callers, files and tests at risk."),
    _verb("subclasses", "subclasses", "The classes inheriting from a class: direct, or at any depth with transitive=true."),
    _verb("superclasses", "superclasses", "The classes a class inherits from: direct, or at any depth with transitive=true."),
    _verb("overrides", "overrides", "The base-class methods that a method overrides."),
    _verb("overridden_by", "overriddenBy", "The subclass methods that override a method."),
    _verb("call_path", "callPath", "The shortest chain of calls from one symbol to another, or where the chain breaks when there is none."),
    Tool("explain", engine.explain, "An entity in context: its neighbourhood in numbers, the hubs around it and the path to the nearest hub."),
    _verb("source", "source", "The source lines of a symbol or file as indexed; refused when the file changed since."),
    _verb("community", "community", "One stored Leiden community by number: label, size, top files and members, neighbouring communities."),
    _verb("community_of", "communityOf", "The stored Leiden community a symbol or file belongs to, with its top members and neighbours."),
    Tool("context_query", engine.context_query, "Run a context_query string: "
         "`@workspace [kind=… neigh=id path=a->b explain=id communities=1 limit=N] keywords`.",
         docs={"query": "For example `@myrepo neigh=src/app.py#App depth=2` or `@myrepo kind=class Parser`."}),
    Tool("recall", ContentCache.recall, "Search the content cache's stored texts (BM25) for earlier tool outputs or "
         "files; snippets with §ref§ handles.", on=get_cache),
    Tool("expand", ContentCache.expand, "The original content behind a §ref:HASH§ (or a hash prefix), optionally only "
         "lines START-END.", {"prefix": "ref", "line_range": "lines"}, on=get_cache,
         docs={"ref": "A §ref:HASH§ or a hash prefix of 4+ characters.", "lines": "START-END, 1-based and inclusive."}),
    Tool("record_event", EventLog.append, "Append an event (type, optional turn, workspace and JSON payload) to the "
         "context store's log.", on=lambda: get_store().events, writes=True,
         docs={"type": "The event type, e.g. FileEdited.", "payload": "A JSON object."}),
)
TOOLS: dict[str, Tool] = {t.name: t for t in _TOOLS if t is not None}


@dataclass(frozen=True)
class Answer:
    """What a call answers: text for the agent to read, the result as JSON, and whether it failed."""

    text: str
    structured: dict[str, Any]
    is_error: bool = False


def _takes_string(hint: Any) -> bool:
    return hint is str or (typing.get_origin(hint) in (typing.Union, types.UnionType) and str in typing.get_args(hint))


def _parameters(tool: Tool) -> list[inspect.Parameter]:
    """The function's parameters that a caller gives, a `**kwargs: Unpack[TypedDict]` as its keys,
    each annotated with its type (a parameter that takes a string: as a string)."""
    hints = typing.get_type_hints(tool.fn)
    out = []
    for p in inspect.signature(tool.fn).parameters.values():
        if p.name in _NOT_ARGUMENTS:
            continue
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            (declared,) = typing.get_args(hints[p.name])
            out += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, annotation=h, default=None)
                    for k, h in typing.get_type_hints(declared).items()]
            continue
        hint = hints.get(p.name, Any)
        if _takes_string(hint):
            hint = str | None if type(None) in typing.get_args(hint) else str
        out.append(p.replace(annotation=hint))
    return out


@functools.cache
def arguments_model(name: str, workspace: str | None = None) -> type[BaseModel]:
    """The arguments of tool `name` as a pydantic model (its JSON schema is the tool's input
    schema); `workspace`: the default of a `workspace` argument."""
    tool = TOOLS[name]
    fields = {}
    for p in _parameters(tool):
        default = p.default
        if p.name == "workspace" and workspace is not None:
            default = workspace
        shown = tool.names.get(p.name, p.name)
        fields[p.name] = (p.annotation, Field(
            ... if default is inspect.Parameter.empty else default, alias=shown,
            description=tool.docs.get(shown, ARGUMENT_DOCS.get(shown)),
        ))
    return create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)


def input_schema(name: str, workspace: str | None = None) -> dict[str, Any]:
    schema = arguments_model(name, workspace).model_json_schema(by_alias=True)
    schema.pop("title", None)
    for prop in schema["properties"].values():
        prop.pop("title", None)  # the name again: only longer to read
    return schema


def call(name: str, arguments: dict[str, Any], workspace: str | None = None, max_results: int | None = None) -> Answer:
    """Run tool `name` with `arguments` (as the agent sent them): its answer, or the error's message."""
    tool = TOOLS.get(name)
    if tool is None:
        return _error(f"no tool {name!r}: use one of {', '.join(TOOLS)}")
    try:
        given = arguments_model(name, workspace).model_validate(arguments).model_dump()
    except ValidationError as exc:
        return _error(f"{name}: " + "; ".join(
            f"{'.'.join(str(x) for x in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors(include_url=False)
        ))
    fn = tool.fn if tool.on is None else functools.partial(tool.fn, tool.on())
    try:
        if max_results is None:
            result = fn(**given)
        else:
            with results_at_most(max_results):
                result = fn(**given)
    except AmbiguousError as exc:
        return _error(str(exc), candidates=exc.candidates)
    except GraphsvcError as exc:
        return _error(str(exc))
    except Exception:
        log.exception("MCP tool %s failed", name)
        return _error(f"{name} failed unexpectedly; the server's log has the details")
    structured = _structured(result)
    return Answer(_text(result, structured), structured)


def _error(message: str, **more: Any) -> Answer:
    return Answer(message, {"error": message, **more}, is_error=True)


def _structured(result: Any) -> dict[str, Any]:
    """The result as a JSON object (a list as `items`, with the list's own fields beside it)."""
    if hasattr(result, "to_dict"):
        value = result.to_dict()
    elif dataclasses.is_dataclass(result):
        value = dataclasses.asdict(result)
    elif isinstance(result, list):
        value = {"items": [dataclasses.asdict(x) if dataclasses.is_dataclass(x) else x for x in result]}
        value |= {k: getattr(result, k) for k in typing.get_type_hints(type(result))}
    else:
        value = {"result": result}
    return json.loads(json.dumps(value, default=_json_value, ensure_ascii=False))


def _json_value(value: Any) -> Any:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return base64.b64encode(value).decode("ascii")
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _text(result: Any, structured: dict[str, Any]) -> str:
    """The result's own `text()` (or a `text` it holds, as an expanded entry does), else compact JSON."""
    text = getattr(result, "text", None)
    if callable(text):
        return text()
    if isinstance(text, str):
        return text
    return json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
