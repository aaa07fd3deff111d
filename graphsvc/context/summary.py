"""Who writes the summary when the continuity record compacts.

Sources come from `context.background.summary_sources`, tried in order:

- `command`: `summary_command` runs with the entries on stdin; its stdout is the summary.
- `http`: `summary_url` receives a JSON POST (`workspace`, `entries`, `text`); the answer is
  JSON `{"summary": "..."}` or a plain-text body.
- `none`: stop here.

A source that is not configured is skipped; one that fails (non-zero exit, timeout, HTTP
error, empty answer) is noted and the next one is tried. When no source answers, a
deterministic digest is written: the first user turns, every delegate outcome, and a count
of what it left out. Compaction therefore always produces a summary.

Compaction runs in the background, so a slow source (an agent CLI that takes 20 s to start)
never delays a request.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from dataclasses import dataclass, field
from typing import Protocol, Sequence

import httpx

from graphsvc.context.tokens import truncate_middle
from graphsvc.settings import ContextBackgroundSettings

SUMMARY_MARK = "[session summary]"
SOURCES = ("command", "http", "none")
DIGEST_TURN_CHARS = 600
DIGEST_OUTCOME_CHARS = 1200
_FAILURE_CHARS = 300


class Entry(Protocol):
    """What a summariser reads of an entry of the continuity record (`continuity.Entry`,
    whose module calls this one)."""

    seq: int
    kind: str
    session: str
    delegate: str | None
    text: str


@dataclass
class Summary:
    text: str  # the body, without the mark
    source: str  # "command", "http" or "digest"
    failures: list[str] = field(default_factory=list)


def render_entries(entries: Sequence[Entry]) -> str:
    """The entries as plain text, the input an external summariser reads."""
    lines = []
    for entry in entries:
        who = f"session={entry.session}"
        if entry.delegate:
            who += f" delegate={entry.delegate}"
        lines.append(f"[{entry.kind} seq={entry.seq} {who}]\n{entry.text}\n")
    return "\n".join(lines)


def summarise(
    workspace: str, entries: Sequence[Entry], settings: ContextBackgroundSettings
) -> Summary:
    failures: list[str] = []
    text = render_entries(entries)
    for source in settings.summary_sources:
        if source == "none":
            break
        try:
            if source == "command":
                if not settings.summary_command:
                    failures.append("command: not configured (context.background.summary_command)")
                    continue
                body = _from_command(settings.summary_command, text, settings.summary_timeout_s)
            elif source == "http":
                if not settings.summary_url:
                    failures.append("http: not configured (context.background.summary_url)")
                    continue
                body = _from_http(
                    settings.summary_url, workspace, entries, text, settings.summary_timeout_s
                )
            else:
                failures.append(f"{source}: unknown summary source; use one of {', '.join(SOURCES)}")
                continue
        except SummaryFailed as exc:
            failures.append(f"{source}: {exc}")
            continue
        return Summary(_strip_mark(body), source, failures)
    return Summary(digest(entries, settings.digest_first_turns), "digest", failures)


class SummaryFailed(Exception):
    pass


def _from_command(command: str, text: str, timeout: float) -> str:
    try:
        done = subprocess.run(
            shlex.split(command),
            input=text,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SummaryFailed(f"{command!r} timed out after {timeout:g} s") from None
    except OSError as exc:
        raise SummaryFailed(f"{command!r} could not run: {exc}") from None
    if done.returncode != 0:
        raise SummaryFailed(
            f"{command!r} exited {done.returncode}: {done.stderr.strip()[-_FAILURE_CHARS:]}"
        )
    if not done.stdout.strip():
        raise SummaryFailed(f"{command!r} printed nothing")
    return done.stdout.strip()


def _from_http(url: str, workspace: str, entries: Sequence[Entry], text: str, timeout: float) -> str:
    payload = {
        "workspace": workspace,
        "text": text,
        "entries": [
            {
                "seq": e.seq,
                "kind": e.kind,
                "session": e.session,
                "delegate": e.delegate,
                "text": e.text,
            }
            for e in entries
        ],
    }
    try:
        response = httpx.post(url, json=payload, timeout=timeout)
    except httpx.HTTPError as exc:
        raise SummaryFailed(f"{url}: {type(exc).__name__}: {exc}") from None
    if response.status_code != 200:
        raise SummaryFailed(f"{url} answered HTTP {response.status_code}")
    body = response.text
    if response.headers.get("content-type", "").startswith("application/json"):
        try:
            body = json.loads(body).get("summary") or ""
        except (ValueError, AttributeError):
            raise SummaryFailed(f"{url} answered JSON without a 'summary' string") from None
    if not isinstance(body, str) or not body.strip():
        raise SummaryFailed(f"{url} answered an empty summary")
    return body.strip()


def _strip_mark(body: str) -> str:
    """An external summary that starts with the mark would nest it; drop the duplicate."""
    body = body.strip()
    while body.startswith(SUMMARY_MARK):
        body = body[len(SUMMARY_MARK) :].lstrip()
    return body


def digest(entries: Sequence[Entry], first_turns: int) -> str:
    """Deterministic: the first user turns, every delegate outcome, a count of the rest."""
    kept_turns = []
    outcomes = []
    dropped = dropped_chars = 0
    for entry in entries:
        if entry.kind == "outcome":
            outcomes.append(entry)
        elif len(kept_turns) < first_turns:
            kept_turns.append(entry)
        else:
            dropped += 1
            dropped_chars += len(entry.text)
    parts = []
    if kept_turns:
        parts.append("First turns:")
        for entry in kept_turns:
            text, _ = truncate_middle(entry.text, DIGEST_TURN_CHARS)
            parts.append(f"- (seq {entry.seq}, session {entry.session}) {text}")
    if outcomes:
        parts.append("Delegate outcomes:")
        for entry in outcomes:
            text, _ = truncate_middle(entry.text, DIGEST_OUTCOME_CHARS)
            parts.append(f"- (seq {entry.seq}, {entry.delegate or 'delegate'} for session {entry.session}) {text}")
    parts.append(
        f"Left out: {dropped} later user turn{'s' if dropped != 1 else ''} ({dropped_chars} characters)."
    )
    return "\n".join(parts)
