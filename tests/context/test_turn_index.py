"""The turn index: opening turns, families, keys, touched entities, sticky routes, and
`resolve` for the cases a router meets (summary, sub-agent, new prompt, conflicting ids)."""

from __future__ import annotations

import pytest

from graphsvc.context.events import EventType
from graphsvc.context.turns import Message
from graphsvc.errors import InputError, NotFoundError


@pytest.fixture
def family(store):
    """Family `t1` in session s1: a root turn, a follow-up, a working set, a sticky cloud route."""
    store.turns.open_turn("/ws", "t1", session_id="s1", keys={"goal": "fix the tokenizer", "clone_path": "/src/ws"})
    store.turns.open_turn("/ws", "t2", parent_id="t1", session_id="s1")
    store.turns.touched("t2", ["src/lexer/tokenizer.py", "src/lexer/tokenizer.py#Tokenizer.next_token", "src/"])
    store.turns.bind_sticky("t1", "cloud:opus")
    return store


def events_of(store, type_):
    return store.events.recent(100, type=type_)


# -- opening turns --------------------------------------------------------------------------


def test_a_turn_without_parent_starts_a_family_and_children_join_it(store):
    root = store.turns.open_turn("/ws", "r", session_id="s")
    child = store.turns.open_turn("/ws", "c", parent_id="r")
    grandchild = store.turns.open_turn("/ws", "g", parent_id="c")
    assert (root.family_id, child.family_id, grandchild.family_id) == ("r", "r", "r")
    assert (child.parent_id, grandchild.parent_id) == ("r", "c")
    assert [t.id for t in store.turns.family("r")] == ["r", "c", "g"]
    assert [t.id for t in store.turns.list()] == ["g", "c", "r"]
    opened = events_of(store, EventType.TURN_OPENED)
    assert [e.turn_id for e in opened] == ["g", "c", "r"]
    assert opened[0].payload["family_id"] == "r" and opened[0].payload["parent_id"] == "c"


def test_open_turn_generates_an_id_and_accepts_an_explicit_family(store):
    turn = store.turns.open_turn("/ws", family_id="fam-1")
    assert turn.id.startswith("t-") and turn.family_id == "fam-1"
    assert store.turns.open_turn("/ws", family_id="fam-1").family_id == "fam-1"
    assert len(store.turns.family("fam-1")) == 2


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"turn_id": "t1"}, InputError, "turn 't1' already exists"),
        ({"turn_id": "x", "parent_id": "nope"}, NotFoundError, "parent_id: unknown turn 'nope'"),
        ({"turn_id": "x", "parent_id": "t1", "family_id": "other"}, InputError, "conflicts with parent"),
        ({"turn_id": "x", "parent_id": "t1", "workspace": "/elsewhere"}, InputError, "is in workspace '/ws'"),
        ({"turn_id": "bad id!"}, InputError, "turn_id: 'bad id!' is not a valid turn id"),
        ({"turn_id": "x", "keys": {"goal": 3}}, InputError, "keys.goal: must be text"),
        ({"turn_id": "x", "keys": {"no spaces": "v"}}, InputError, "not a valid key name"),
        ({"turn_id": "x", "workspace": ""}, InputError, "workspace"),
    ],
)
def test_bad_turns_are_refused_and_nothing_is_stored(store, kwargs, error, message):
    store.turns.open_turn("/ws", "t1")
    before = store.events.count()
    kwargs = {"workspace": "/ws"} | kwargs
    workspace = kwargs.pop("workspace")
    with pytest.raises(error, match=message):
        store.turns.open_turn(workspace, kwargs.pop("turn_id"), **kwargs)
    assert store.events.count() == before and store.turns.count() == 1


def test_keys_are_set_removed_and_read_back_after_a_restart(family, reopen):
    family.turns.set_keys("t1", {"plan": "1. lex\n2. parse", "file-tree": "src/\n  lexer/", "goal": None})
    assert family.turns.get("t1").keys == {"clone_path": "/src/ws", "plan": "1. lex\n2. parse", "file-tree": "src/\n  lexer/"}
    with pytest.raises(NotFoundError):
        family.turns.set_keys("nope", {"goal": "x"})
    again = reopen(family)
    assert again.turns.get("t1").keys["plan"] == "1. lex\n2. parse"
    assert "goal" not in again.turns.get("t1").keys


def test_touched_entities_form_the_working_set_and_survive_a_restart(family, reopen):
    family.turns.touched("t2", ["src/lexer/tokenizer.py", "src/parser.py"])  # one repeat
    assert family.turns.working_set("t2") == [
        "src/",
        "src/lexer/tokenizer.py",
        "src/lexer/tokenizer.py#Tokenizer.next_token",
        "src/parser.py",
    ]
    with pytest.raises(InputError, match="entity_ids"):
        family.turns.touched("t2", "src/parser.py")
    again = reopen(family)
    assert again.turns.resolve(Message("now parser.py breaks")).family_id == "t1"


def test_bind_sticky_needs_a_known_family_and_the_latest_binding_wins(family, reopen):
    with pytest.raises(NotFoundError, match="unknown turn family 'nope'"):
        family.turns.bind_sticky("nope", "cloud")
    with pytest.raises(InputError, match="route"):
        family.turns.bind_sticky("t1", "  ")
    family.turns.bind_sticky("t1", "local:qwen")
    bound = events_of(family, EventType.STICKY_BOUND)
    assert [e.payload["route"] for e in bound] == ["local:qwen", "cloud:opus"]
    assert reopen(family).turns.sticky("t1").route == "local:qwen"


# -- resolution -----------------------------------------------------------------------------


def test_an_explicit_turn_id_wins(family):
    r = family.turns.resolve(Message("hi", turn_id="t2"))
    assert (r.family_id, r.turn_id, r.reason, r.confidence) == ("t1", "t2", "explicit-turn", 1.0)
    assert (r.sticky, r.route) == (True, "cloud:opus")


def test_a_summary_message_continues_its_session_s_family_instead_of_looking_new(family):
    text = "This session is being continued from a previous conversation that ran out of context."
    r = family.turns.resolve(Message(text, session_id="s1"))
    assert (r.family_id, r.kind, r.reason, r.new_family) == ("t1", "summary", "summary-continues-session", False)
    assert r.route == "cloud:opus" and r.confidence >= 0.9
    # Declared in metadata instead of the text.
    r = family.turns.resolve(Message("ok", session_id="s1", metadata={"kind": "compaction"}))
    assert (r.family_id, r.kind) == ("t1", "summary")
    # The same short text as an ordinary prompt is a new family.
    assert family.turns.resolve(Message("ok", session_id="s1")).new_family


def test_a_sub_agent_message_with_a_known_parent_continues_the_parent_s_family(family):
    r = family.turns.resolve(Message("list the files", parent_id="t2", metadata={"kind": "subagent"}))
    assert (r.family_id, r.turn_id, r.reason, r.route) == ("t1", "t2", "subagent-of-parent", "cloud:opus")
    assert r.confidence == 1.0


def test_an_unrelated_new_prompt_starts_a_new_family(family):
    r = family.turns.resolve(Message("write a haiku about autumn", session_id="s2"))
    assert r.new_family and r.family_id is None and r.route is None and not r.sticky
    assert r.reason == "new-prompt" and r.confidence == 1.0


def test_conflicting_ids_are_reported_and_the_turn_id_wins(family):
    family.turns.open_turn("/ws", "u1", session_id="s9")
    r = family.turns.resolve(Message("continue", turn_id="u1", parent_id="t2"))
    assert r.reason == "conflicting-ids" and r.family_id == "u1" and r.confidence == 0.5
    assert len(r.conflicts) == 2
    assert any("'t2'" in c and "'t1'" in c for c in r.conflicts)


def test_unknown_ids_are_noted_and_do_not_invent_a_family(family):
    r = family.turns.resolve(Message("hello", parent_id="ghost"))
    assert r.new_family and "parent_id 'ghost' is not a known turn" in r.detail


def test_naming_files_of_a_working_set_is_evidence_with_a_confidence(family):
    r = family.turns.resolve(Message("the bug is in src/lexer/tokenizer.py line 40"))
    assert (r.family_id, r.reason) == ("t1", "working-set")
    assert 0.5 <= r.confidence < 1.0
    assert {e.term for e in r.evidence} >= {"src/lexer/tokenizer.py"}
    strong = family.turns.resolve(Message("tokenizer.py: Tokenizer.next_token loops forever")).confidence
    weak = family.turns.resolve(Message("tokenizer.py is slow")).confidence
    assert strong > weak >= 0.5


def test_a_name_shared_by_several_families_is_weaker_evidence(family):
    family.turns.open_turn("/ws", "v1")
    family.turns.touched("v1", ["lib/tokenizer.py"])
    r = family.turns.resolve(Message("tokenizer.py is slow"))
    assert r.new_family  # the basename alone points at two families
    assert {e.family_id for e in r.evidence} == {"t1", "v1"}
    assert family.turns.resolve(Message("src/lexer/tokenizer.py is slow")).family_id == "t1"


def test_a_summary_with_no_known_session_or_parent_is_not_attached_blindly(family):
    r = family.turns.resolve(Message("[session summary] we talked about lunch", session_id="unknown"))
    assert r.kind == "summary" and r.new_family


def test_a_recorded_decision_is_a_route_decided_event_with_the_answer(family):
    r = family.turns.resolve(Message("[session summary] so far", session_id="s1"), record=True)
    (ev,) = events_of(family, EventType.ROUTE_DECIDED)
    assert ev.id == r.event_id and ev.turn_id == "t2" and ev.workspace == "/ws"
    assert ev.payload["resolution"]["family_id"] == "t1"
    assert ev.payload["resolution"]["reason"] == "summary-continues-session"
    assert ev.payload["message"]["session_id"] == "s1"
    # A decision for a new family has no turn yet.
    new = family.turns.resolve(Message("something else entirely"), record=True)
    assert family.events.get(new.event_id).turn_id is None


def test_the_index_rebuilt_at_open_answers_as_before(family, reopen):
    messages = [
        Message("continue", turn_id="t2"),
        Message("<summary>earlier</summary>", session_id="s1"),
        Message("Tokenizer.next_token", parent_id=None),
        Message("unrelated", session_id="s3"),
    ]
    before = [family.turns.resolve(m).to_dict() for m in messages]
    again = reopen(family)
    assert [again.turns.resolve(m).to_dict() for m in messages] == before


def test_resolve_rejects_malformed_messages(family):
    with pytest.raises(InputError, match="turn_id"):
        family.turns.resolve({"text": "x", "turn_id": "has space"})
    with pytest.raises(InputError, match="message"):
        family.turns.resolve({"text": "x", "colour": "red"})
