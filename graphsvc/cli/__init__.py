"""The `graphsvc` command: thin wrappers over library functions, each with `--json` where it reports."""

from __future__ import annotations

import importlib
import logging
import sys

import click

from graphsvc.errors import GraphsvcError

# Subcommand modules; each exposes `register(main)`. Adding a verb is adding a module here.
_SUBCOMMANDS = (
    "graphsvc.cli.neo4j",
    "graphsvc.cli.index",
    "graphsvc.cli.query",
    "graphsvc.cli.verbs",
    "graphsvc.cli.serve",
    "graphsvc.cli.context",
    "graphsvc.cli.cache",
    "graphsvc.cli.workspaces",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="graphsvc")
@click.option("--verbose", "-v", is_flag=True, help="Also print the Neo4j driver's log (debug level) on stderr.")
def main(verbose: bool) -> None:
    """graphsvc: a code knowledge graph in Neo4j for coding agents."""
    _driver_log(verbose)


def _driver_log(verbose: bool) -> None:
    """The driver logs every failed connection attempt (WARNING/ERROR) to stderr; our one
    `error:` line already says what happened and what to do, so its log is shown only when asked."""
    driver = logging.getLogger("neo4j")
    if verbose:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        driver.addHandler(handler)
        driver.setLevel(logging.DEBUG)
    else:
        driver.addHandler(logging.NullHandler())
        driver.propagate = False


for _name in _SUBCOMMANDS:
    try:
        _module = importlib.import_module(_name)
    except ModuleNotFoundError as exc:
        if exc.name != _name:
            raise
        continue
    _module.register(main)


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
