"""`graphsvc symbol|callers|…`: one command per entry of `graphsvc.query.verbs.VERBS`.

Each command is made from the verb's function: its positional parameters are arguments
(`REF`, `FROM TO`), its keyword-only ones options (`--workspace`, `--depth`,
`--include-candidates`, `--limit`); it prints the result's `text()`, or with `--json` the
whole result.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import types
import typing
from typing import Any

import click

from graphsvc.query.verbs import VERBS, Verb

# What the command line decides for itself, not the caller.
_NOT_OPTIONS = ("graph",)


def _plain(hint: Any) -> Any:
    """`hint` without `None`."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0] if len(args) == 1 else hint
    return hint


def _option(p: inspect.Parameter, hint: Any) -> click.Option:
    flag = "--" + p.name.replace("_", "-")
    hint = _plain(hint)
    required = p.default is inspect.Parameter.empty
    default = None if required else p.default
    if hint is bool:
        return click.Option([flag], is_flag=True, default=bool(default), help=f"({p.name})")
    if typing.get_origin(hint) is list:
        return click.Option([flag], multiple=True, type=typing.get_args(hint)[0], help="repeatable")
    decls = [flag, "-w"] if p.name == "workspace" else [flag]
    shown = "" if default is None else f" [default: {default}]"
    return click.Option(decls, type=hint, required=required, default=default, help=f"{p.name}{shown}")


def command(verb: Verb) -> click.Command:
    """The click command of `verb`."""
    hints = typing.get_type_hints(verb.fn)
    params: list[click.Parameter] = []
    for p in inspect.signature(verb.fn).parameters.values():
        if p.name in _NOT_OPTIONS:
            continue
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
            shown = verb.names.get(p.name, p.name).upper()
            required = p.default is inspect.Parameter.empty
            params.append(click.Argument([p.name], metavar=shown if required else f"[{shown}]", required=required))
        elif p.kind is inspect.Parameter.KEYWORD_ONLY:
            params.append(_option(p, hints[p.name]))
        else:
            raise TypeError(f"{verb.name}: parameter {p.name} cannot be a command-line argument")
    params.append(click.Option(["--json", "as_json"], is_flag=True, help="Print the whole result as JSON."))

    def run(as_json: bool, **given: Any) -> None:
        args = {k: list(v) if isinstance(v, tuple) else v for k, v in given.items()}
        args = {k: v for k, v in args.items() if v != [] and v is not None}
        result = verb.fn(**args)
        if as_json or not hasattr(result, "text"):
            click.echo(json.dumps(dataclasses.asdict(result), indent=2, ensure_ascii=False, default=str))
        else:
            click.echo(result.text())

    return click.Command(verb.kebab, callback=run, params=params, help=verb.description, short_help=verb.description.split(". ")[0])


def register(main: click.Group) -> None:
    for verb in VERBS:
        main.add_command(command(verb))
