"""Episodes and the local context pack."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphsvc.context.episodes import MAX_SUMMARY_CHARS
from graphsvc.errors import InputError, NotFoundError

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def add(store, n, session="s1", **kw):
    return [
        store.episodes.add(session, f"episode {i}: fixed thing {i}", at=T0 + timedelta(minutes=i), **kw)
        for i in range(n)
    ]


def test_episodes_are_listed_newest_first_and_filtered(store):
    add(store, 5)
    add(store, 2, session="s2", workspace="/other")
    assert [e.summary[:9] for e in store.episodes.list(3, session_id="s1")] == ["episode 4", "episode 3", "episode 2"]
    assert [e.session_id for e in store.episodes.list(10, workspace="/other")] == ["s2", "s2"]
    assert len(store.episodes.list(100)) == 7


def test_an_episode_of_a_turn_takes_its_workspace(store):
    store.turns.open_turn("/ws", "t1")
    assert store.episodes.add("s1", "did it", turn_id="t1").workspace == "/ws"
    with pytest.raises(NotFoundError):
        store.episodes.add("s1", "did it", turn_id="nope")
    with pytest.raises(InputError, match="workspace"):
        store.episodes.add("s1", "did it", workspace="/else", turn_id="t1")


@pytest.mark.parametrize(
    "session, summary, message",
    [
        ("s1", "", "summary"),
        ("s1", "   ", "summary"),
        ("s1", "x" * (MAX_SUMMARY_CHARS + 1), "over the"),
        ("", "ok", "session_id"),
        (None, "ok", "session_id"),
    ],
)
def test_bad_episodes_are_refused_and_nothing_is_stored(store, session, summary, message):
    with pytest.raises(InputError, match=message):
        store.episodes.add(session, summary)
    assert store.episodes.list(10) == []


def test_the_pack_is_the_latest_user_turn_plus_at_most_n_newest_episodes(store, ctx_settings):
    ctx_settings.transform.local_episode_count = 3
    add(store, 6)
    pack = store.episodes.context_pack("why does the lexer loop?", session_id="s1")
    assert pack.text.startswith("Latest user turn:\nwhy does the lexer loop?")
    assert [e.summary[:9] for e in pack.episodes] == ["episode 5", "episode 4", "episode 3"]
    assert pack.chars == len(pack.text) <= ctx_settings.transform.local_context
    assert "episode 2" not in pack.text


def test_the_pack_stays_within_the_character_budget(store, ctx_settings):
    ctx_settings.transform.local_context = 150
    ctx_settings.transform.local_episode_count = 10
    add(store, 6)
    pack = store.episodes.context_pack("short question", session_id="s1")
    assert pack.chars <= 150 and 0 < len(pack.episodes) < 6
    assert pack.episodes_left_out == 6 - len(pack.episodes)


def test_an_over_long_user_turn_is_cut_in_the_middle_and_keeps_both_ends(store, ctx_settings):
    ctx_settings.transform.local_context = 200
    add(store, 2)
    text = "START " + "filler " * 100 + " END"
    pack = store.episodes.context_pack(text, session_id="s1")
    assert pack.user_turn_truncated and pack.chars <= 200
    assert pack.user_turn.startswith("START") and pack.user_turn.endswith("END")
    assert pack.episodes == []


def test_without_a_user_turn_the_latest_turn_s_prompt_or_goal_stands_for_it(store):
    store.turns.open_turn("/ws", "t1", session_id="s1", keys={"goal": "old goal"})
    store.turns.open_turn("/ws", "t2", session_id="s1", parent_id="t1", keys={"goal": "make tests pass"})
    add(store, 1)
    pack = store.episodes.context_pack(session_id="s1")
    assert pack.user_turn == "make tests pass" and len(pack.episodes) == 1
