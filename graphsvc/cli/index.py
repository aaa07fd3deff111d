"""`graphsvc index-tree`, `index-symbols`, `index` and `watch`."""

from __future__ import annotations

import json

import click

from graphsvc.cli.progress import terminal_progress

_path = click.argument("path", default=".", type=click.Path(file_okay=True, dir_okay=True, path_type=str))
_workspace = click.option("--workspace", "-w", help="Workspace name (default: the directory's name).")
_json = click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
_exclude = click.option("--exclude", multiple=True, metavar="PATTERN",
                        help="Extra gitignore-style pattern to skip (repeatable).")
_replace = click.option("--replace", is_flag=True,
                        help="Index PATH into a workspace that holds another directory (its content is replaced).")
_no_ignore = click.option("--no-ignore-files", "no_ignore_files", is_flag=True,
                          help="Index what .gitignore and .graphsvcignore files exclude (a source "
                               "package whose .gitignore excludes everything).")
_jobs = click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None,
                     help="Parser processes (default: one per core).")


def _emit(summary, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(summary.to_dict(), indent=2, sort_keys=True))
    else:
        click.echo(summary.line())


def _options(*, jobs: bool):
    """PATH, --workspace, --replace, --exclude, --no-ignore-files, (--jobs,) --json: what every
    index command takes."""
    stack = [_path, _workspace, _replace, _exclude, _no_ignore, *([_jobs] if jobs else []), _json]

    def apply(command):
        for option in reversed(stack):
            command = option(command)
        return command

    return apply


def register(main: click.Group) -> None:
    @main.command("index-tree")
    @_options(jobs=False)
    def index_tree_cmd(path: str, workspace: str | None, replace: bool, exclude: tuple[str, ...],
                       no_ignore_files: bool, as_json: bool) -> None:
        """Index directories and files of PATH (incremental)."""
        from graphsvc.indexing.pipeline import index_tree

        with terminal_progress(not as_json) as progress:
            summary = index_tree(path, workspace=workspace, exclude=exclude, progress=progress, replace=replace,
                                 ignore_files=not no_ignore_files)
        _emit(summary, as_json)

    @main.command("index-symbols")
    @_options(jobs=True)
    def index_symbols_cmd(path: str, workspace: str | None, replace: bool, exclude: tuple[str, ...],
                          no_ignore_files: bool, jobs: int | None, as_json: bool) -> None:
        """Extract symbols and edges of PATH with tree-sitter (incremental)."""
        _index_symbols(path, workspace, replace, exclude, no_ignore_files, jobs, as_json)

    @main.command("index")
    @_options(jobs=True)
    @click.option("--communities", is_flag=True,
                  help="Then compute Leiden communities (stored for the Neo4j Browser to colour).")
    def index_cmd(path: str, workspace: str | None, replace: bool, exclude: tuple[str, ...],
                  no_ignore_files: bool, jobs: int | None, as_json: bool, communities: bool) -> None:
        """Index PATH: the tree, then symbols and edges (incremental)."""
        summary = _index_symbols(path, workspace, replace, exclude, no_ignore_files, jobs, as_json)
        if communities:
            from graphsvc.query.communities import compute_communities

            found = compute_communities(workspace=summary.workspace, limit=1)  # the line reports counts only
            message = (f"communities {found.workspace}: {found.community_count} of at least 3 members over "
                       f"{found.nodes} nodes, modularity {found.modularity:.3f}, in {found.total_s:.2f} s")
            click.echo(message, err=as_json)

    @main.command("watch")
    @click.argument("path", default=".", type=click.Path(file_okay=False, dir_okay=True, path_type=str))
    @_workspace
    @_exclude
    @_no_ignore
    @_jobs
    def watch_cmd(path: str, workspace: str | None, exclude: tuple[str, ...], no_ignore_files: bool,
                  jobs: int | None) -> None:
        """Index PATH, then keep its graph in step with its files until Ctrl-C: each batch of
        changes is indexed incrementally, one line per batch."""
        import signal
        import threading

        from graphsvc.indexing.watch import watch

        stop = threading.Event()

        def interrupted(signum, frame) -> None:
            # The first Ctrl-C lets the run in progress finish (an interrupt landing anywhere
            # in a run can leave writer threads or a store transaction waiting); a second
            # one stops at once.
            if stop.is_set():
                raise KeyboardInterrupt
            stop.set()
            click.echo("stopping after the run in progress (Ctrl-C again stops at once)", err=True)

        previous = signal.signal(signal.SIGINT, interrupted)
        try:
            watch(path, workspace, stop=stop, exclude=exclude, ignore_files=not no_ignore_files, jobs=jobs,
                  on_batch=lambda batch: click.echo(batch.line()),
                  on_ready=lambda: click.echo(f"watching {path} (Ctrl-C stops)"))
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGINT, previous)
        click.echo("stopped", err=True)


def _index_symbols(path: str, workspace: str | None, replace: bool, exclude: tuple[str, ...],
                   no_ignore_files: bool, jobs: int | None, as_json: bool):
    """`index-symbols` and `index`: one run with progress on the terminal, its summary printed."""
    from graphsvc.indexing.pipeline import index_symbols

    with terminal_progress(not as_json) as progress:
        summary = index_symbols(path, workspace=workspace, exclude=exclude, jobs=jobs, progress=progress,
                                replace=replace, ignore_files=not no_ignore_files)
    _emit(summary, as_json)
    return summary
