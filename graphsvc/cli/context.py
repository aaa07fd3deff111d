"""`graphsvc events …`, `graphsvc turns …`, `graphsvc episodes …` and `graphsvc prune`.

Thin wrappers over `graphsvc.context.store.get_store()`; every reporting verb takes `--json`.
"""

from __future__ import annotations

import sys

import click

from graphsvc.cli.output import emit as _emit
from graphsvc.cli.output import json_option as _json
from graphsvc.errors import InputError
from graphsvc.graph.runtime import TurnMirror


def _store():
    from graphsvc.context.store import get_store

    return get_store()


def _pairs(values: tuple[str, ...], what: str) -> dict[str, str]:
    out = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep:
            raise InputError(f"{what}: expected KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def _event_line(ev) -> str:
    return (
        f"{ev.time}  {ev.type:<18} turn={ev.turn_id or '-'}  ws={ev.workspace or '-'}  "
        f"{ev.payload_json[:120]}"
    )


def _turn_text(turn, working_set: list[str] | None = None) -> str:
    lines = [
        f"turn      {turn.id}",
        f"family    {turn.family_id}",
        f"parent    {turn.parent_id or '-'}",
        f"workspace {turn.workspace}",
        f"session   {turn.session_id or '-'}",
        f"opened    {turn.to_dict()['opened_at']}",
    ]
    for key, value in sorted(turn.keys.items()):
        shown = value if len(value) <= 200 else value[:200] + "…"
        lines.append(f"key {key} = {shown}")
    if working_set:
        lines.append(f"touched   {len(working_set)}: " + ", ".join(working_set[:20]))
    return "\n".join(lines)


def register(main: click.Group) -> None:
    # Long because: each command is a short function defined here to attach to `main`.
    # -- events ---------------------------------------------------------------------------
    @main.group("events")
    def events_group() -> None:
        """The append-only event log."""

    @events_group.command("append")
    @click.argument("type_")
    @click.option("--turn", "turn_id", help="Turn the event belongs to (must be known).")
    @click.option("--workspace", "-w", help="Workspace (default: the turn's).")
    @click.option("--payload", "-p", default="{}", help="JSON object, or - to read it from stdin.")
    @_json
    def events_append(type_: str, turn_id: str | None, workspace: str | None, payload: str, as_json: bool) -> None:
        """Append one event of TYPE_ (e.g. FulfilledLocal)."""
        text = sys.stdin.read() if payload == "-" else payload
        ev = _store().events.append(type_, turn_id, workspace, text)
        _emit(ev.to_dict(), as_json, f"appended {ev.id} ({ev.type})")

    @events_group.command("recent")
    @click.option("--limit", "-n", type=click.IntRange(1, 10_000), default=20, show_default=True)
    @click.option("--type", "type_", help="Only this event type.")
    @click.option("--turn", "turn_id", help="Only events of this turn.")
    @click.option("--workspace", "-w", help="Only events of this workspace.")
    @click.option("--since", help="Only events at or after this ISO 8601 time.")
    @_json
    def events_recent(limit: int, type_: str | None, turn_id: str | None, workspace: str | None,
                      since: str | None, as_json: bool) -> None:
        """The newest events first."""
        events = _store().events.recent(limit, type=type_, turn_id=turn_id, workspace=workspace, since=since)
        _emit([e.to_dict() for e in events], as_json, "\n".join(_event_line(e) for e in events) or "no events")

    @events_group.command("export")
    @click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default="-",
                  help="File to write (default: stdout).")
    @click.option("--since", help="Only events at or after this ISO 8601 time.")
    def events_export(output: str, since: str | None) -> None:
        """Write the log as JSONL, oldest first (the format `events import` reads)."""
        from graphsvc.context.db import refuse_store_file

        if output != "-":
            refuse_store_file(output)
        store = _store()
        if output == "-":
            n = store.events.export_jsonl(sys.stdout, since=since)
        else:
            with open(output, "w", encoding="utf-8", newline="\n") as fh:
                n = store.events.export_jsonl(fh, since=since)
        click.echo(f"exported {n} events", err=True)

    @events_group.command("import")
    @click.argument("source", type=click.File("r", encoding="utf-8"))
    @_json
    def events_import(source, as_json: bool) -> None:
        """Import a JSONL export (SOURCE or - for stdin); events already stored are skipped."""
        from graphsvc.context.db import refuse_store_file

        if source.name != "<stdin>":
            refuse_store_file(source.name)
        report = _store().events.import_jsonl(source)
        _emit(vars(report), as_json,
              f"imported {report.imported} of {report.read} events ({report.skipped_existing} already stored)")

    @main.command("prune")
    @click.option("--dry-run", is_flag=True, help="Only report what would be removed.")
    @_json
    def prune_cmd(dry_run: bool, as_json: bool) -> None:
        """Delete events older than context.retain_days and report what went."""
        report = _store().events.prune(dry_run=dry_run)
        verb = "would remove" if dry_run else "removed"
        detail = ", ".join(f"{t}={n}" for t, n in report.by_type.items())
        _emit(vars(report), as_json,
              f"{verb} {report.removed} events before {report.cutoff}" + (f" ({detail})" if detail else "")
              + f"; {report.remaining} remain")

    # -- turns ----------------------------------------------------------------------------
    @main.group("turns")
    def turns_group() -> None:
        """The turn index: turns, families, keys, sticky routes."""

    @turns_group.command("open")
    @click.option("--workspace", "-w", required=True, help="Workspace of the turn.")
    @click.option("--id", "turn_id", help="Turn id (default: generated).")
    @click.option("--parent", "parent_id", help="Parent turn: the new turn joins its family.")
    @click.option("--family", "family_id", help="Family id for a turn without a parent.")
    @click.option("--session", "session_id", help="Session the turn belongs to.")
    @click.option("--key", "keys", multiple=True, metavar="KEY=VALUE",
                  help="A key such as goal=…, plan=…, clone_path=… (repeatable).")
    @_json
    def turns_open(workspace: str, turn_id: str | None, parent_id: str | None, family_id: str | None,
                   session_id: str | None, keys: tuple[str, ...], as_json: bool) -> None:
        """Open a turn."""
        turn = _store().turns.open_turn(workspace, turn_id, family_id=family_id, parent_id=parent_id,
                                        session_id=session_id, keys=_pairs(keys, "--key"))
        _emit(turn.to_dict(), as_json, f"opened turn {turn.id} in family {turn.family_id}")

    @turns_group.command("set-keys")
    @click.argument("turn_id")
    @click.argument("pairs", nargs=-1, required=True, metavar="KEY=VALUE...")
    @_json
    def turns_set_keys(turn_id: str, pairs: tuple[str, ...], as_json: bool) -> None:
        """Set keys of a turn (an empty value removes the key)."""
        keys = {k: (v if v else None) for k, v in _pairs(pairs, "KEY=VALUE").items()}
        turn = _store().turns.set_keys(turn_id, keys)
        _emit(turn.to_dict(), as_json, _turn_text(turn))

    @turns_group.command("touch")
    @click.argument("turn_id")
    @click.argument("entity_ids", nargs=-1, required=True)
    @_json
    def turns_touch(turn_id: str, entity_ids: tuple[str, ...], as_json: bool) -> None:
        """Record that a turn touched these entities (graph ids such as src/app.py)."""
        store = _store()
        store.turns.touched(turn_id, list(entity_ids))
        ws = store.turns.working_set(turn_id)
        _emit({"turn_id": turn_id, "touched": ws}, as_json, f"turn {turn_id} has touched {len(ws)} entities")

    @turns_group.command("list")
    @click.option("--limit", "-n", type=click.IntRange(1, 10_000), default=20, show_default=True)
    @click.option("--workspace", "-w")
    @click.option("--family", "family_id")
    @click.option("--session", "session_id")
    @_json
    def turns_list(limit: int, workspace: str | None, family_id: str | None, session_id: str | None,
                   as_json: bool) -> None:
        """Turns, newest first."""
        turns = _store().turns.list(limit, workspace=workspace, family_id=family_id, session_id=session_id)
        lines = [f"{t.to_dict()['opened_at']}  {t.id:<24} family={t.family_id}  ws={t.workspace}" for t in turns]
        _emit([t.to_dict() for t in turns], as_json, "\n".join(lines) or "no turns")

    @turns_group.command("show")
    @click.argument("turn_id")
    @_json
    def turns_show(turn_id: str, as_json: bool) -> None:
        """One turn: family, parent, keys, sticky route and what it touched."""
        store = _store()
        turn = store.turns.require(turn_id)
        ws = store.turns.working_set(turn_id)
        sticky = store.turns.sticky(turn.family_id)
        data = turn.to_dict() | {"touched": ws, "sticky": sticky.to_dict() if sticky else None}
        text = _turn_text(turn, ws) + (f"\nsticky    {sticky.route}" if sticky else "")
        _emit(data, as_json, text)

    @turns_group.command("stick")
    @click.argument("family_id")
    @click.argument("route")
    @_json
    def turns_stick(family_id: str, route: str, as_json: bool) -> None:
        """Bind FAMILY_ID to ROUTE: its later messages stay on that route."""
        binding = _store().turns.bind_sticky(family_id, route)
        _emit(binding.to_dict(), as_json, f"family {family_id} is sticky to {route}")

    @turns_group.command("resolve")
    @click.argument("text", required=False)
    @click.option("--session", "session_id")
    @click.option("--turn", "turn_id")
    @click.option("--parent", "parent_id")
    @click.option("--family", "family_id")
    @click.option("--meta", multiple=True, metavar="KEY=VALUE", help="Message metadata, e.g. kind=summary.")
    @click.option("--record", is_flag=True, help="Record the decision as a RouteDecided event.")
    @_json
    def turns_resolve(text: str | None, session_id: str | None, turn_id: str | None, parent_id: str | None,
                      family_id: str | None, meta: tuple[str, ...], record: bool, as_json: bool) -> None:
        """Which turn family does a message belong to? TEXT, or - for stdin."""
        from graphsvc.context.turns import Message

        if text == "-":
            text = sys.stdin.read()
        message = Message(text=text or "", session_id=session_id, turn_id=turn_id, parent_id=parent_id,
                          family_id=family_id, metadata=_pairs(meta, "--meta"))
        r = _store().turns.resolve(message, record=record)
        where = f"family {r.family_id}" if r.family_id else "a new family"
        sticky = f", sticky route {r.route}" if r.sticky else ""
        text_out = f"{where}{sticky} (confidence {r.confidence:.2f}, {r.reason}): {r.detail}"
        for c in r.conflicts:
            text_out += f"\nconflict: {c}"
        _emit(r.to_dict(), as_json, text_out)

    @turns_group.command("mirror")
    @_json
    def turns_mirror(as_json: bool) -> None:
        """Push turns and what they touched into Neo4j (catch-up after an outage)."""
        report = _store().turns.mirror(TurnMirror())
        if report.error:
            raise _mirror_failed(report)
        _emit(vars(report), as_json,
              f"mirrored {report.turns} turns and {report.touched} touched edges; "
              f"{report.not_in_graph} touched entities are not in the graph yet")

    # -- episodes -------------------------------------------------------------------------
    @main.group("episodes")
    def episodes_group() -> None:
        """Short session summaries and the local context pack."""

    @episodes_group.command("add")
    @click.argument("session_id")
    @click.argument("summary")
    @click.option("--workspace", "-w")
    @click.option("--turn", "turn_id")
    @_json
    def episodes_add(session_id: str, summary: str, workspace: str | None, turn_id: str | None,
                     as_json: bool) -> None:
        """Add an episode (SUMMARY, or - for stdin) to a session."""
        if summary == "-":
            summary = sys.stdin.read()
        ep = _store().episodes.add(session_id, summary, workspace=workspace, turn_id=turn_id)
        _emit(ep.to_dict(), as_json, f"added episode {ep.id} to session {ep.session_id}")

    @episodes_group.command("list")
    @click.option("--limit", "-n", type=click.IntRange(1, 1000), default=20, show_default=True)
    @click.option("--session", "session_id")
    @click.option("--workspace", "-w")
    @_json
    def episodes_list(limit: int, session_id: str | None, workspace: str | None, as_json: bool) -> None:
        """Episodes, newest first."""
        eps = _store().episodes.list(limit, session_id=session_id, workspace=workspace)
        lines = [f"{e.to_dict()['created_at']}  {e.session_id}  {e.summary[:120]}" for e in eps]
        _emit([e.to_dict() for e in eps], as_json, "\n".join(lines) or "no episodes")

    @episodes_group.command("pack")
    @click.option("--user-turn", help="The latest user turn (default: the latest turn's prompt/goal key).")
    @click.option("--session", "session_id")
    @click.option("--workspace", "-w")
    @_json
    def episodes_pack(user_turn: str | None, session_id: str | None, workspace: str | None,
                      as_json: bool) -> None:
        """The local context pack: latest user turn plus recent episodes, bounded in size."""
        pack = _store().episodes.context_pack(user_turn, session_id=session_id, workspace=workspace)
        _emit(pack.to_dict(), as_json, pack.text)


def _mirror_failed(report) -> Exception:
    from graphsvc.errors import Neo4jUnavailable

    return Neo4jUnavailable(
        f"{report.error} ({report.pending_turns} turns and {report.pending_touched} touched edges "
        "still pending; run `graphsvc turns mirror` again when Neo4j is up)"
    )
