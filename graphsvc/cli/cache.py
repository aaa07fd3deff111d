"""`graphsvc cache …` and `graphsvc continuity …`: thin wrappers over the library.

`cache store` is a filter: it prints the content the first time and a `§ref:HASH§` on a repeat
inside the freshness window. Reporting verbs take `--json`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from graphsvc.cli.output import emit as _emit
from graphsvc.cli.output import json_option as _json
from graphsvc.errors import InputError

_workspace = click.option(
    "--workspace",
    "-w",
    default=lambda: str(Path.cwd().resolve()),
    show_default="the current directory",
    help="Workspace whose record to use.",
)


def _cache():
    from graphsvc.context.cache import ContentCache

    return ContentCache()


def _continuity():
    from graphsvc.context.continuity import Continuity

    return Continuity()


def _read(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    from graphsvc.context.db import refuse_store_file

    refuse_store_file(source)
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        raise InputError(f"{source}: cannot read ({exc.strerror})") from exc


def _write_out(data: str | bytes) -> None:
    if isinstance(data, str):
        data = data.encode("utf-8")
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _jsonable(obj: Any) -> dict:
    data = asdict(obj)
    for key, value in list(data.items()):
        if isinstance(value, bytes):
            try:
                data[key] = value.decode("utf-8")
            except UnicodeDecodeError:
                import base64

                data[key] = base64.b64encode(value).decode("ascii")
                data[f"{key}_encoding"] = "base64"
    return data


def _entry_line(e) -> str:
    flags = "P" if e.pinned else "-"
    search = "s" if e.searchable else "-"
    return f"{e.ref}  {flags}{search}  {e.size_bytes:>10} B  {e.label or ''}"


def register(main: click.Group) -> None:
    # Long because: each command is a short function defined here to attach to `main`.
    # -- cache ----------------------------------------------------------------------------
    @main.group("cache")
    def cache_group() -> None:
        """The content cache: store, expand, recall, pins, stats, reset."""

    @cache_group.command("store")
    @click.argument("source", default="-")
    @click.option("--derived", "derived_path", help="File holding a compressed/derived form.")
    @click.option("--label", help="A name for the content (a path, a command).")
    @click.option("--pin", is_flag=True, help="Pin the entry: eviction never removes it.")
    @_json
    def cache_store(source: str, derived_path: str | None, label: str | None, pin: bool, as_json: bool) -> None:
        """Store SOURCE (a file, or - for stdin); print it, or its §ref§ on a fresh repeat."""
        content = _read(source)
        derived = _read(derived_path) if derived_path else None
        result = _cache().store(content, derived=derived, label=label or (None if source == "-" else source), pin=pin)
        if as_json:
            _emit(_jsonable(result), True, "")
            return
        _write_out(result.payload)
        if not result.searchable:
            click.echo(f"note: {result.ref} is not searchable: {result.index_note}", err=True)

    @cache_group.command("expand")
    @click.argument("ref")
    @click.option("--lines", "-l", help="Line range START-END (1-based, inclusive), START- or LINE.")
    @click.option("--derived", is_flag=True, help="The derived form instead of the original.")
    @_json
    def cache_expand(ref: str, lines: str | None, derived: bool, as_json: bool) -> None:
        """Print the original bytes of REF (a hash prefix or §ref:…§)."""
        out = _cache().expand(ref, lines, derived=derived)
        if as_json:
            _emit(_jsonable(out), True, "")
        else:
            _write_out(out.content)

    @cache_group.command("recall")
    @click.argument("query", nargs=-1, required=True)
    @click.option("--limit", "-n", default=10, show_default=True, help="1 to 50.")
    @_json
    def cache_recall(query: tuple[str, ...], limit: int, as_json: bool) -> None:
        """Search cached text (BM25); prints snippets with their refs."""
        hits = _cache().recall(" ".join(query), limit)
        text = "\n".join(
            f"{h.ref}  {h.score:7.3f}  {h.label or ''}\n    {' '.join(h.snippet.split())}" for h in hits
        )
        _emit([asdict(h) for h in hits], as_json, text or "no match")
        if hits.note:
            click.echo(f"note: {hits.note}", err=True)

    def pinning(verb: str, done: str, doc: str) -> None:
        @cache_group.command(verb, help=doc)
        @click.argument("ref")
        @_json
        def command(ref: str, as_json: bool) -> None:
            info = getattr(_cache(), verb)(ref)
            _emit(asdict(info), as_json, f"{done} {info.ref}")

    pinning("pin", "pinned", "Pin REF: eviction never removes it.")
    pinning("unpin", "unpinned", "Unpin REF.")

    @cache_group.command("pins")
    @_json
    def cache_pins(as_json: bool) -> None:
        """List pinned entries."""
        pins = _cache().pins()
        _emit([asdict(p) for p in pins], as_json, "\n".join(_entry_line(p) for p in pins) or "no pins")

    @cache_group.command("stats")
    @_json
    def cache_stats(as_json: bool) -> None:
        """Entries, bytes (originals and derived forms), hits, evictions."""
        s = _cache().stats()
        lines = [
            f"entries         {s.entries} ({s.searchable_entries} searchable, {s.pinned_entries} pinned)",
            f"bytes           {s.bytes} of {s.max_bytes} ({s.pinned_bytes} pinned)",
        ] + [f"{name:<15} {value}" for name, value in s.counters.items()]
        _emit(s.as_dict(), as_json, "\n".join(lines))

    @cache_group.command("mark-compaction")
    @_json
    def cache_mark(as_json: bool) -> None:
        """The consumer compacted its context: send full content again for earlier refs."""
        at = _cache().mark_compaction()
        _emit({"compacted_at": at}, as_json, "references handed out so far are stale")

    @cache_group.command("reset")
    @click.argument("scope", type=click.Choice(["cache", "stats", "everything"]))
    @click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
    @_json
    def cache_reset(scope: str, yes: bool, as_json: bool) -> None:
        """Clear SCOPE: cache (content, index, markers), stats, or everything (both + continuity)."""
        from graphsvc.context.cache import RESET_SCOPES

        tables = ", ".join(RESET_SCOPES[scope])
        if not yes:
            if not sys.stdin.isatty():
                raise InputError(f"reset {scope} clears {tables}; pass --yes to confirm")
            click.confirm(f"Clear {tables}?", abort=True)
        removed = _cache().reset(scope)
        _emit(
            {"scope": scope, "removed": removed},
            as_json,
            "\n".join(f"{table:<20} {rows} rows removed" for table, rows in removed.items()),
        )

    # -- continuity -----------------------------------------------------------------------
    @main.group("continuity")
    def continuity_group() -> None:
        """The per-workspace continuity record that delegates receive."""

    @continuity_group.command("add")
    @click.argument("text", default="-")
    @_workspace
    @click.option("--session", "-s", required=True, help="The calling session's identity.")
    @click.option("--outcome", is_flag=True, help="A delegate's outcome rather than a user turn.")
    @click.option("--delegate", "-d", help="With --outcome: who did the work (e.g. cursor-agent).")
    @click.option("--flagged", is_flag=True, help="The turn was delegated.")
    @_json
    def continuity_add(text: str, workspace: str, session: str, outcome: bool, delegate: str | None,
                       flagged: bool, as_json: bool) -> None:
        """Record TEXT (or - for stdin) as a user turn or, with --outcome, a delegate outcome."""
        body = sys.stdin.read() if text == "-" else text
        record = _continuity()
        try:
            if outcome:
                entry = record.record_outcome(workspace, session, delegate or "", body)
            else:
                if delegate:
                    raise InputError("--delegate goes with --outcome")
                entry = record.record_turn(workspace, session, body, flagged=flagged)
            _emit(asdict(entry), as_json, f"recorded #{entry.seq} ({entry.kind}) in {workspace}")
        finally:
            record.wait_idle()
            record.close()

    @continuity_group.command("show")
    @_workspace
    @_json
    def continuity_show(workspace: str, as_json: bool) -> None:
        """The record, oldest first, and what compaction and the ring did."""
        record = _continuity()
        entries, log = record.entries(workspace), record.log(workspace)
        lines = []
        for e in entries:
            who = f"{e.delegate} for {e.session}" if e.delegate else e.session
            first = " ".join(e.text.split())
            lines.append(f"#{e.seq:<4} {e.kind:<8} {who:<24} {first[:100]}")
        for row in log:
            lines.append(f"log: {row['action']} {row['entries']} entries via {row['source'] or '-'} {row['note'] or ''}")
        _emit({"workspace": workspace, "entries": [asdict(e) for e in entries], "log": log},
              as_json, "\n".join(lines) or f"no record for {workspace}")

    @continuity_group.command("block")
    @click.argument("task")
    @_workspace
    @_json
    def continuity_block(task: str, workspace: str, as_json: bool) -> None:
        """Print the block a delegate doing TASK would receive."""
        block = _continuity().block(workspace, task)
        if as_json:
            _emit(asdict(block), True, "")
        else:
            click.echo(block.text)
            click.echo(
                f"-- {len(block.entries)} of {block.record_entries} entries, {block.tokens} tokens "
                f"({block.token_method}), budget {block.token_budget}",
                err=True,
            )

    @continuity_group.command("run", context_settings={"ignore_unknown_options": True})
    @click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
    @click.option("--task", "-t", required=True, help="The delegate's task.")
    @click.option("--vendor", "-v", required=True, help="Delegate CLI (cursor-agent, agy, codex, claude, …).")
    @_workspace
    def continuity_run(command: tuple[str, ...], task: str, vendor: str, workspace: str) -> None:
        """Run COMMAND in a private run directory holding the delegate's context file.

        The directory ($GRAPHSVC_RUN_DIR) is removed when COMMAND ends, however it ends.
        """
        with _continuity().write_delegate_context(workspace, task, vendor) as run:
            env = dict(os.environ, GRAPHSVC_RUN_DIR=str(run.directory), GRAPHSVC_CONTEXT_FILE=str(run.path))
            try:
                code = subprocess.call(list(command), cwd=run.directory, env=env)
            except OSError as exc:
                raise InputError(f"{command[0]}: cannot run ({exc.strerror})") from exc
        sys.exit(code)

    @continuity_group.command("compact")
    @_workspace
    @click.option("--force", is_flag=True, help="Compact even at or below the entry threshold.")
    @_json
    def continuity_compact(workspace: str, force: bool, as_json: bool) -> None:
        """Fold the older entries into a [session summary] entry now."""
        result = _continuity().compact_now(workspace, force=force)
        if result is None:
            _emit(None, as_json, "nothing to compact")
            return
        text = f"folded {result.folded} entries into #{result.summary_seq} via {result.source}"
        if result.failures:
            text += "\n" + "\n".join(f"  {f}" for f in result.failures)
        _emit(asdict(result), as_json, text)
