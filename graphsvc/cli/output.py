"""What the commands print: text for a person, or the same data as JSON with `--json`."""

from __future__ import annotations

import json
from typing import Any

import click

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def emit(data: Any, as_json: bool, text: str) -> None:
    """`data` as indented JSON with `--json`, else `text`."""
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    else:
        click.echo(text)
