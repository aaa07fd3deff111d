"""The `graphsvc` command: thin wrappers over library functions, each with `--json` where it reports.

The subcommand modules import the graph driver, the query engine and the parsers, which take
far longer than most commands need. `graphsvc --help` and `--version` read the command names
and their one-line help from `commands.json` beside this file; a module is imported only when
one of its commands runs (or shows its own help). `tests/cli/test_start.py` checks that
`commands.json` matches the modules; regenerate it with `python -m graphsvc.cli.manifest`.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import click

from graphsvc.errors import GraphsvcError

# Subcommand modules; each exposes `register(main)`. Adding a verb is adding a module here
# (and regenerating commands.json).
SUBCOMMANDS = (
    "graphsvc.cli.neo4j",
    "graphsvc.cli.index",
    "graphsvc.cli.query",
    "graphsvc.cli.verbs",
    "graphsvc.cli.serve",
    "graphsvc.cli.context",
    "graphsvc.cli.cache",
    "graphsvc.cli.workspaces",
    "graphsvc.cli.mcp",
)
MANIFEST = Path(__file__).with_name("commands.json")
# The sources the commands are made from: a manifest made from other sources is not used.
_SOURCES = (*sorted(Path(__file__).parent.glob("*.py")), Path(__file__).parent.parent / "query" / "verbs.py")


def sources_digest() -> str:
    import hashlib

    digest = hashlib.sha256()
    for path in _SOURCES:
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
    return digest.hexdigest()


class LazyGroup(click.Group):
    """A group whose commands are registered by their modules on first use.

    The manifest maps each command to its module and its one-line help; a manifest made from
    other sources than these, or a name it lacks, loads every module, so no command is lost."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._loaded: set[str] = set()
        self._manifest: dict[str, dict] | None = None

    def manifest(self) -> dict[str, dict]:
        if self._manifest is None:
            try:
                stored = json.loads(MANIFEST.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                stored = {}
            fresh = stored.get("sources") == sources_digest()
            self._manifest = stored.get("commands", {}) if fresh else {}
        return self._manifest

    def load(self, modules=SUBCOMMANDS) -> None:
        for name in modules:
            if name in self._loaded:
                continue
            self._loaded.add(name)
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name != name:
                    raise
                continue
            module.register(self)

    def list_commands(self, ctx: click.Context) -> list[str]:
        if not self.manifest() or set(self._loaded) == set(SUBCOMMANDS):
            self.load()
            return super().list_commands(ctx)
        return sorted(set(self.manifest()) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            entry = self.manifest().get(cmd_name)
            self.load([entry["module"]] if entry else SUBCOMMANDS)
            if cmd_name not in self.commands and entry:
                self.load()  # the manifest is out of date
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the manifest: click's layout, no module imported."""
        if not self.manifest():
            self.load()
            return super().format_commands(ctx, formatter)
        stubs = {name: click.Command(name, help=e.get("help"), short_help=e.get("short_help"), hidden=e.get("hidden", False))
                 for name, e in self.manifest().items()}
        stubs.update({name: cmd for name, cmd in self.commands.items() if name not in stubs})
        click.Group(commands=stubs).format_commands(ctx, formatter)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="graphsvc")
@click.option("--verbose", "-v", is_flag=True, help="Also print the Neo4j driver's log (debug level) on stderr.")
def main(verbose: bool) -> None:
    """graphsvc: a code knowledge graph in Neo4j for coding agents."""
    _driver_log(verbose)


def _driver_log(verbose: bool) -> None:
    """The driver logs every failed connection attempt (WARNING/ERROR) to stderr; our one
    `error:` line already says what happened and what to do, so its log is shown only when asked."""
    import logging

    driver = logging.getLogger("neo4j")
    if verbose:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        driver.addHandler(handler)
        driver.setLevel(logging.DEBUG)
    else:
        driver.addHandler(logging.NullHandler())
        driver.propagate = False


def run() -> None:
    """Entry point that turns our errors into one line and an exit code."""
    try:
        main(standalone_mode=False)
    except GraphsvcError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    _leave()


def _leave() -> None:
    """End a command that succeeded without tearing the interpreter down: after an index run,
    freeing its objects one by one took about a second (Django's first index). What an exit
    must still do is done: other threads are waited for as at any exit, the exit handlers run
    (the parser processes' server is stopped, logs and temporary files are dealt with), and
    the output is flushed."""
    import atexit
    import threading

    shutdown = getattr(threading, "_shutdown", None)  # what the interpreter's own exit calls first
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
