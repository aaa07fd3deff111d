"""`commands.json`: every command of `graphsvc`, its module and its one-line help.

    python -m graphsvc.cli.manifest          # rewrite graphsvc/cli/commands.json

`graphsvc --help` lists commands from this file so that it imports none of their modules.
"""

from __future__ import annotations

import importlib
import inspect
import json

import click

from graphsvc.cli import MANIFEST, SUBCOMMANDS, sources_digest


def build() -> dict[str, dict]:
    """Each command registered by the subcommand modules, in name order."""
    out: dict[str, dict] = {}
    for name in SUBCOMMANDS:
        group = click.Group()
        try:
            importlib.import_module(name).register(group)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        for cmd_name, cmd in group.commands.items():
            entry: dict = {"module": name}
            if cmd.short_help:
                entry["short_help"] = cmd.short_help
            else:  # click's short help is made from the first paragraph
                entry["help"] = inspect.cleandoc(cmd.help or "").split("\n\n")[0]
            if cmd.hidden:
                entry["hidden"] = True
            out[cmd_name] = entry
    return dict(sorted(out.items()))


def text() -> str:
    return json.dumps({"sources": sources_digest(), "commands": build()}, indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    MANIFEST.write_text(text(), encoding="utf-8")
    print(f"wrote {MANIFEST}")
