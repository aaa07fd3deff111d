"""API types generated from a dataclass: GraphQL and REST show the same fields by the same rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

import strawberry

from graphsvc.api.types import rest_model, shape, to_gql, to_rest
from graphsvc.context.db import Micros


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
