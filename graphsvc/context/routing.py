"""Routing a message: what kind it is (a prompt, a summary of earlier work, a sub-agent's),
which words of it may name an entity, and how strongly those point at a family of turns.

`TurnIndex.resolve` decides with these and the index's families; everything here is pure.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

# Evidence from a family's working set must reach this confidence to continue the family.
EVIDENCE_THRESHOLD = 0.5
_SCAN_CHARS = 20_000

SUMMARY_KINDS = frozenset({"summary", "compaction", "compact", "session-summary"})
SUBAGENT_KINDS = frozenset({"subagent", "sub-agent", "delegate", "task"})
_SUMMARY_TEXT = re.compile(
    r"^\s*\[session summary\]"
    r"|^\s*<summary>"
    r"|^\s*(?:conversation |session |context )?summary\s*:"
    r"|this (?:session|conversation) is being continued from a previous (?:session|conversation)"
    r"|summary of (?:the|our) (?:previous |earlier )?(?:conversation|session)"
    r"|\bcontext (?:was |has been )?compacted\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[\w./#:-]+")


@dataclass
class Message:
    """What the router knows about an incoming message."""

    text: str = ""
    session_id: str | None = None
    turn_id: str | None = None
    parent_id: str | None = None
    family_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def kind(self) -> str:
        meta = self.metadata or {}
        declared = str(meta.get("kind") or meta.get("type") or meta.get("role") or "").lower()
        if declared in SUMMARY_KINDS or meta.get("summary") is True or meta.get("compaction") is True:
            return "summary"
        if declared in SUBAGENT_KINDS or meta.get("subagent") is True:
            return "subagent"
        if self.text and _SUMMARY_TEXT.search(self.text[:600]):
            return "summary"
        return "prompt"


@dataclass(frozen=True)
class Evidence:
    term: str
    family_id: str
    weight: float


@dataclass
class Resolution:
    """Which family a message belongs to, the sticky route if any, and why."""

    family_id: str | None
    turn_id: str | None  # the known turn the message continues (explicit, parent, or the family's latest)
    new_family: bool
    sticky: bool
    route: str | None
    confidence: float
    reason: str
    detail: str
    kind: str
    evidence: list[Evidence] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    event_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["evidence"] = [asdict(e) for e in self.evidence]
        return d


def entity_terms(entity_id: str) -> dict[str, float]:
    """What a message might say to refer to an entity, with how specific each form is."""
    terms = {entity_id: 1.0}
    path, _, qualified = entity_id.partition("#")
    path = path.rstrip("/")
    base = path.rsplit("/", 1)[-1]
    if qualified:
        terms[path] = max(terms.get(path, 0), 0.8)
        terms[qualified] = 0.8
        last = qualified.rsplit(".", 1)[-1]
        if last != qualified and len(last) >= 4:
            terms.setdefault(last, 0.4)
    if base and base != path and "." in base:
        terms.setdefault(base, 0.7)
    return terms


def mentions(text: str) -> set[str]:
    found = set()
    for token in _TOKEN.findall(text[:_SCAN_CHARS]):
        token = token.strip(".:,;-/")
        if not token:
            continue
        found.add(token)
        bare = re.sub(r"(:\d+)+$", "", token)  # src/app.py:12
        found.add(bare)
        if "#" in bare:
            found.update(bare.split("#", 1))
        if "/" in bare:
            found.add(bare.rsplit("/", 1)[-1])
        if "." in bare and "/" not in bare and "#" not in bare and not bare[-3:].startswith("."):
            found.add(bare.rsplit(".", 1)[-1])  # App.run -> run
    return found


def weigh_evidence(text: str, holders_of: dict[str, dict[str, float]]) -> tuple[list[Evidence], dict[str, float]]:
    """The terms of `text` that name something in a family's working set, and each family's
    confidence from them. `holders_of` maps a term to family id -> weight (`entity_terms`)."""
    if not text or not holders_of:
        return [], {}
    evidence: list[Evidence] = []
    scores: dict[str, float] = {}
    for term in mentions(text):
        holders = holders_of.get(term)
        if not holders:
            continue
        share = 1.0 / len(holders)  # a name many families touched says little
        for family_id, weight in holders.items():
            w = weight * share
            evidence.append(Evidence(term, family_id, round(w, 3)))
            scores[family_id] = scores.get(family_id, 0.0) + w
    evidence.sort(key=lambda e: (-e.weight, e.term))
    confidence = {f: min(0.95, 1.0 - math.exp(-1.2 * s)) for f, s in scores.items()}
    return evidence, confidence
