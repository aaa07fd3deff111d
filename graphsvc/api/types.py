"""API types generated from the library's dataclasses, so each shape is stated once.

`gql_type(cls)` is the strawberry type of a dataclass, `rest_model(cls)` the pydantic model
of the same fields (for FastAPI's `response_model` and the OpenAPI document), `to_gql(value)`
and `to_rest(value)` a library value as each surface sends it. Nested dataclasses become
nested types. `shape(cls, ...)` says, once per class, where the API differs from the class:
its names, description, field docs, which fields or properties it shows, GraphQL pairs and
dicts GraphQL shows as fields.

Inputs are dataclasses too: `gql_arguments(cls)` are its fields as the arguments of a GraphQL
field, `rest_input(cls, name)` the pydantic model of a JSON body with the same fields and
defaults, and `from_arguments(cls, given)` the dataclass either surface received.
`gql_mutation(fn, cls, description)` serves `fn(cls instance)` as a GraphQL mutation.

What a library value holds and what goes over the wire differ only by these rules:
- bytes (`bytes`, `str | bytes`) go as text followed by an `encoding` field, "utf-8" or
  "base64" (JSON has no bytes);
- a `datetime` goes as ISO 8601 ending in `Z`, an int typed `Micros` as ISO 8601 ending in `+00:00`;
- a dict is a JSON object; GraphQL has no maps, so there it is the JSON scalar, or a list of
  two-field objects where `shape(..., pairs=...)` names them;
- `Literal[...]` is a string in GraphQL and an enumeration in OpenAPI; a `StrEnum` is an
  enumeration on both (GraphQL names its members, OpenAPI lists their values) and reaches
  the library as its value;
- an int typed `Int64` is a Float in GraphQL, whose Int has 32 bits.
"""

from __future__ import annotations

import base64
import dataclasses
import inspect
import types
import typing
from collections.abc import Callable
from datetime import datetime, timezone
from enum import StrEnum
from typing import Annotated, Any, Literal

import strawberry
from pydantic import BaseModel, Field, create_model
from strawberry.scalars import JSON

from graphsvc.context.db import Int64, Micros
from graphsvc.context.events import iso, to_us
from graphsvc.errors import InputError

ENCODINGS = ("utf-8", "base64")


@dataclasses.dataclass(frozen=True)
class Shape:
    name: str  # GraphQL's type name
    rest_name: str  # the OpenAPI schema's name
    description: str | None
    hints: dict[str, Any]  # shown field -> type hint, in order
    docs: dict[str, str]
    # dict field -> (GraphQL type, key field, value field[, the type's description])
    pairs: dict[str, tuple[str, ...]]
    resolvers: dict[str, Any]  # GraphQL fields computed by a resolver
    inline: dict[str, dict[str, Any]]  # dict field -> its keys and their types, GraphQL fields in its place


_SHAPES: dict[type, Shape] = {}
_GQL: dict[type, type] = {}
_REST: dict[type, type[BaseModel]] = {}
_PAIRS: dict[str, type] = {}
_ENUMS: dict[type, type] = {}


def shape(
    cls: type,
    name: str | None = None,
    *,
    rest_name: str | None = None,
    description: str | None = None,
    fields: tuple[str, ...] | None = None,
    omit: tuple[str, ...] = (),
    docs: dict[str, str] | None = None,
    pairs: dict[str, tuple[str, ...]] | None = None,
    resolvers: dict[str, Any] | None = None,
    inline: dict[str, dict[str, Any]] | None = None,
) -> type:
    """Declare how `cls` appears on the API; returns its GraphQL type.

    `fields` (dataclass fields or properties, in order) replaces the dataclass's own fields;
    `omit` leaves some of them out; GraphQL shows each dict named in `inline` as fields in its
    place, one for each key given there with its type (REST sends the dict)."""
    if cls in _SHAPES:
        raise ValueError(f"{cls.__name__} has a shape already")
    hints = typing.get_type_hints(cls, include_extras=True)
    names = fields or tuple(f.name for f in dataclasses.fields(cls))
    shown = {}
    for field_name in names:
        if field_name in omit:
            continue
        attr = getattr(cls, field_name, None)
        if isinstance(attr, property):
            shown[field_name] = typing.get_type_hints(attr.fget, include_extras=True)["return"]
        else:
            shown[field_name] = hints[field_name]
    _SHAPES[cls] = Shape(
        name=name or cls.__name__,
        rest_name=rest_name or name or cls.__name__,
        description=description if description is not None else _docstring(cls),
        hints=shown,
        docs=docs or {},
        pairs=pairs or {},
        resolvers=resolvers or {},
        inline=inline or {},
    )
    return gql_type(cls)


def _docstring(cls: type) -> str | None:
    doc = (cls.__doc__ or "").strip()
    # The signature dataclasses writes when a class has no docstring is no description.
    return None if not doc or doc.startswith(cls.__name__ + "(") else doc


def _shape(cls: type) -> Shape:
    if cls not in _SHAPES:
        shape(cls)
    return _SHAPES[cls]


def _binary(hint: Any) -> bool:
    return hint is bytes or (_union(hint) and bytes in typing.get_args(hint))


def _union(hint: Any) -> bool:
    return typing.get_origin(hint) in (types.UnionType, typing.Union)


def _optional(hint: Any) -> tuple[Any, bool]:
    """`hint` without `None`, and whether it allowed None."""
    if not _union(hint):
        return hint, False
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    return (args[0] if len(args) == 1 else typing.Union[tuple(args)]), len(args) < len(typing.get_args(hint))


def _wire_hint(hint: Any, gql: bool) -> Any:
    """The type a field of type `hint` has in GraphQL (`gql`) or in the REST model."""
    inner, nullable = _optional(hint)
    if nullable:
        return _wire_hint(inner, gql) | None
    if dataclasses.is_dataclass(hint):
        return gql_type(hint) if gql else rest_model(hint)
    origin = typing.get_origin(hint)
    if origin is list:
        return list[_wire_hint(typing.get_args(hint)[0], gql)]
    if origin is dict:
        return JSON if gql else hint
    if origin is Literal:
        return str if gql else hint
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return _gql_enum(hint) if gql else Literal[tuple(m.value for m in hint)]
    if hint == Int64 and gql:
        return float
    return _text_hint(hint)


def _gql_enum(cls: type[StrEnum]) -> type:
    if cls not in _ENUMS:
        _ENUMS[cls] = strawberry.enum(cls, description=_docstring(cls))
    return _ENUMS[cls]


def _text_hint(hint: Any) -> Any:
    """The wire type of a value that is not a dataclass, list or dict."""
    if hint == Micros or hint is datetime or _binary(hint):
        return str
    if typing.get_origin(hint) is Annotated:
        return typing.get_args(hint)[0]
    return hint


# --- GraphQL -------------------------------------------------------------------------------


def gql_type(cls: type) -> type:
    """The strawberry object type of dataclass `cls` (made once)."""
    if cls in _GQL:
        return _GQL[cls]
    s = _shape(cls)
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    for field_name, hint in _gql_hints(s).items():
        if field_name in s.pairs:
            annotations[field_name] = list[_pair_type(_value_hint(hint), *s.pairs[field_name])]
        else:
            annotations[field_name] = _gql_hint(hint)
        if field_name in s.docs:
            namespace[field_name] = strawberry.field(description=s.docs[field_name])
        if _binary(hint):
            annotations["encoding"] = str
    namespace.update(s.resolvers)
    new = type(s.name, (), {"__annotations__": annotations, "__doc__": s.description, **namespace})
    _GQL[cls] = strawberry.type(new, description=s.description)
    return _GQL[cls]


def _gql_hints(s: Shape) -> dict[str, Any]:
    """The fields GraphQL shows: those of `s`, an inlined dict's keys in its place."""
    out: dict[str, Any] = {}
    for field_name, hint in s.hints.items():
        if field_name in s.inline:
            out.update(s.inline[field_name])
        else:
            out[field_name] = hint
    return out


def _value_hint(hint: Any) -> Any:
    return typing.get_args(_optional(hint)[0])[1]


def _pair_type(value_hint: Any, name: str, key: str, value: str, description: str | None = None) -> type:
    if name not in _PAIRS:
        new = type(name, (), {"__annotations__": {key: str, value: _gql_hint(value_hint)}})
        _PAIRS[name] = strawberry.type(new, description=description)
    return _PAIRS[name]


def _gql_hint(hint: Any) -> Any:
    return _wire_hint(hint, gql=True)


def gql_input(cls: type, name: str, description: str) -> type:
    """The strawberry input type of dataclass `cls`: its fields and defaults (a factory's: null)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    annotations: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        annotations[f.name] = _gql_hint(hints[f.name])
        if f.default is not dataclasses.MISSING:
            defaults[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            annotations[f.name] = annotations[f.name] | None
            defaults[f.name] = None
    return strawberry.input(type(name, (), {"__annotations__": annotations, **defaults}), description=description)


def from_gql(cls: type, value: Any) -> Any:
    """The dataclass `cls` from an instance of its `gql_input` type."""
    args = {}
    for f in dataclasses.fields(cls):
        item = getattr(value, f.name)
        if item is None and f.default_factory is not dataclasses.MISSING:
            item = f.default_factory()
        args[f.name] = item
    return cls(**args)


def to_gql(value: Any) -> Any:
    """A library dataclass as an instance of its GraphQL type."""
    return _wire(value, gql=True)


# --- inputs: a dataclass's fields as arguments and as a JSON body ---------------------------


def _input_fields(cls: type) -> list[tuple[str, Any, Any]]:
    """(name, type hint, default or `inspect.Parameter.empty`) of each field of input `cls`."""
    hints = typing.get_type_hints(cls, include_extras=True)
    out = []
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: an input field takes a plain default")
        default = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        out.append((f.name, hints[f.name], default))
    return out


def gql_arguments(cls: type) -> list[inspect.Parameter]:
    """The fields of dataclass `cls` as keyword parameters of a GraphQL resolver."""
    return [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=_gql_hint(hint), default=default)
        for name, hint, default in _input_fields(cls)
    ]


def gql_mutation(fn: Callable[[Any], Any], inputs: type, description: str) -> Any:
    """A GraphQL mutation whose arguments are the fields of dataclass `inputs`, answering with
    `fn(inputs(...))` as its GraphQL type."""
    returns = typing.get_type_hints(fn)["return"]

    def resolve(**given: Any) -> Any:
        return to_gql(fn(from_arguments(inputs, given)))

    resolve.__signature__ = inspect.Signature(gql_arguments(inputs), return_annotation=gql_type(returns))
    return strawberry.mutation(resolve, description=description)


def rest_input(cls: type, name: str, docs: dict[str, str] | None = None) -> type[BaseModel]:
    """The pydantic model of a JSON body holding the fields of dataclass `cls`, with its defaults."""
    fields: dict[str, Any] = {}
    for field_name, hint, default in _input_fields(cls):
        default = ... if default is inspect.Parameter.empty else getattr(default, "value", default)
        fields[field_name] = (_rest_hint(hint), Field(default, description=(docs or {}).get(field_name)))
    return create_model(name, __doc__=_docstring(cls), **fields)


def from_arguments(cls: type, given: dict[str, Any] | BaseModel) -> Any:
    """The dataclass `cls` from the arguments or JSON body a client sent (enums as their values)."""
    if isinstance(given, BaseModel):
        given = dict(given)
    return cls(**{k: v.value if isinstance(v, StrEnum) else v for k, v in given.items()})


# --- REST ----------------------------------------------------------------------------------


def rest_model(cls: type) -> type[BaseModel]:
    """The pydantic model of dataclass `cls` (made once): every field present in a response."""
    if cls in _REST:
        return _REST[cls]
    s = _shape(cls)
    fields: dict[str, Any] = {}
    for field_name, hint in s.hints.items():
        fields[field_name] = (_rest_hint(hint), Field(..., description=s.docs.get(field_name)))
        if _binary(hint):
            fields["encoding"] = (str, Field(..., description=f"how the text above is encoded: {' or '.join(ENCODINGS)}"))
    _REST[cls] = create_model(s.rest_name, __doc__=s.description, **fields)
    return _REST[cls]


def _rest_hint(hint: Any) -> Any:
    return _wire_hint(hint, gql=False)


def to_rest(value: Any) -> Any:
    """A library dataclass (or a list of them) as its REST body: plain JSON values."""
    return _wire(value, gql=False)


# --- values --------------------------------------------------------------------------------


def _wire(value: Any, gql: bool) -> Any:
    if isinstance(value, list):
        return [_wire(v, gql) for v in value]
    if not dataclasses.is_dataclass(value):
        return value
    s = _shape(type(value))
    out: dict[str, Any] = {}
    for field_name, hint in s.hints.items():
        item = getattr(value, field_name)
        if _binary(hint):
            out[field_name], out["encoding"] = encode(item)
        elif gql and field_name in s.inline:
            out.update({key: item[key] for key in s.inline[field_name]})
        elif gql and field_name in s.pairs and item is not None:
            pair, key, val = s.pairs[field_name][:3]
            out[field_name] = [_PAIRS[pair](**{key: k, val: v}) for k, v in sorted(item.items())]
        else:
            out[field_name] = _value(item, _optional(hint)[0], gql)
    return gql_type(type(value))(**out) if gql else out


def _value(item: Any, hint: Any, gql: bool) -> Any:
    if item is None:
        return None
    if hint == Micros:
        return datetime.fromtimestamp(item / 1_000_000, tz=timezone.utc).isoformat()
    if hint is datetime:
        return iso(to_us(item))
    if isinstance(item, list) or dataclasses.is_dataclass(item):
        return _wire(item, gql)
    return item


def encode(data: str | bytes) -> tuple[str, str]:
    """Content as JSON text: UTF-8 as it is, other bytes as base64."""
    if isinstance(data, str):
        return data, "utf-8"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return base64.b64encode(data).decode("ascii"), "base64"


def decode(content: str, encoding: str) -> str | bytes:
    """The content a client sent as text in `encoding` (see `encode`)."""
    if encoding == "utf-8":
        return content
    if encoding == "base64":
        try:
            return base64.b64decode(content, validate=True)
        except ValueError as exc:
            raise InputError(f"content is not valid base64: {exc}") from exc
    raise InputError(f"encoding {encoding!r}: use utf-8 or base64")
