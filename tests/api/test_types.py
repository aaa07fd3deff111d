"""API types generated from a dataclass: GraphQL and REST show the same fields by the same rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import StrEnum

import strawberry

from graphsvc.api.types import from_arguments, gql_mutation, rest_input, rest_model, shape, to_gql, to_rest
from graphsvc.context.db import Int64, Micros


@dataclass
class Part:
    name: str


@dataclass
class Sample:
    """A sample of every wire rule."""

    name: str
    data: str | bytes
    at: Micros
    when: datetime
    kind: str
    tags: dict[str, int] = field(default_factory=dict)
    parts: list[Part] = field(default_factory=list)
    note: str | None = None


SampleType = shape(Sample, "SampleType", rest_name="SampleOut", pairs={"tags": ("SampleTag", "tag", "count")})
SAMPLE = Sample(
    name="s", data=b"\xff\x00", at=1_000_000, when=datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc), kind="k",
    tags={"b": 2, "a": 1}, parts=[Part("p")],
)


@strawberry.type
class Query:
    @strawberry.field
    def sample(self) -> SampleType:
        return to_gql(SAMPLE)


def test_graphql_and_rest_show_the_dataclass_fields_in_order():
    fields = ["name", "data", "encoding", "at", "when", "kind", "tags", "parts", "note"]
    assert list(rest_model(Sample).model_fields) == fields
    assert [f.name for f in SampleType.__strawberry_definition__.fields] == fields
    assert rest_model(Sample).__name__ == "SampleOut" and rest_model(Sample).__doc__ == "A sample of every wire rule."


def test_values_follow_the_wire_rules_on_both_surfaces():
    rest = to_rest(SAMPLE)
    assert rest == {
        "name": "s", "data": "/wA=", "encoding": "base64", "at": "1970-01-01T00:00:01+00:00",
        "when": "2026-12-03T12:00:00.000000Z", "kind": "k", "tags": {"b": 2, "a": 1}, "parts": [{"name": "p"}],
        "note": None,
    }
    rest_model(Sample).model_validate(rest)
    result = strawberry.Schema(query=Query).execute_sync(
        "{ sample { name data encoding at when kind tags { tag count } parts { name } note } }"
    )
    assert result.errors is None
    assert result.data["sample"] == {
        **{k: rest[k] for k in ("name", "data", "encoding", "at", "when", "kind", "note")},
        "tags": [{"tag": "a", "count": 1}, {"tag": "b", "count": 2}],
        "parts": [{"name": "p"}],
    }


Color = StrEnum("Color", {"DARK_RED": "dark-red", "BLUE": "blue"})


@dataclass
class Paint:
    """What to paint."""

    wall: str
    color: Color = Color.BLUE
    coats: int | None = None


@dataclass
class Usage:
    rooms: int
    area: Int64
    counts: dict[str, int] = field(default_factory=dict)


UsageType = shape(Usage, rest_name="UsageOut", inline={"counts": {"walls": int, "litres": Int64}})


@strawberry.type
class PaintQuery:
    @strawberry.field
    def usage(self) -> UsageType:
        return to_gql(Usage(rooms=2, area=2**40, counts={"walls": 8, "litres": 2**33}))


def paint(given: Paint) -> Usage:
    return Usage(rooms=1, area=len(given.wall), counts={"walls": given.coats or 0, "litres": 0})


@strawberry.type
class PaintMutation:
    paint = gql_mutation(paint, Paint, "Paint a wall.")


def test_an_input_dataclass_is_the_arguments_and_the_body_with_its_defaults():
    schema = strawberry.Schema(query=PaintQuery, mutation=PaintMutation)
    sdl = schema.as_str()
    assert "paint(wall: String!, color: Color! = BLUE, coats: Int = null): Usage!" in sdl
    assert "enum Color {\n  DARK_RED\n  BLUE\n}" in sdl
    body = rest_input(Paint, "PaintIn")
    assert body.__name__ == "PaintIn" and body.__doc__ == "What to paint."
    assert body.model_json_schema()["properties"]["color"] == {
        "default": "blue", "enum": ["dark-red", "blue"], "title": "Color", "type": "string",
    }
    given = body.model_validate({"wall": "north", "color": "dark-red"})
    assert from_arguments(Paint, given) == Paint(wall="north", color="dark-red")
    result = schema.execute_sync('mutation { paint(wall: "east", color: DARK_RED, coats: 3) { rooms area walls } }')
    assert result.errors is None and result.data["paint"] == {"rooms": 1, "area": 4.0, "walls": 3}


def test_int64_counts_are_floats_and_an_inlined_dict_is_fields_in_graphql_only():
    sdl = strawberry.Schema(query=PaintQuery).as_str()
    assert "type Usage {\n  rooms: Int!\n  area: Float!\n  walls: Int!\n  litres: Float!\n}" in sdl
    result = strawberry.Schema(query=PaintQuery).execute_sync("{ usage { area walls litres } }")
    assert result.errors is None and result.data["usage"] == {"area": 2.0**40, "walls": 8, "litres": 2.0**33}
    assert to_rest(Usage(rooms=2, area=5, counts={"walls": 1})) == {"rooms": 2, "area": 5, "counts": {"walls": 1}}
