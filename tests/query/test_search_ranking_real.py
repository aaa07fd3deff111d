"""Search ranking on a real project (requests 2.32.3, vendored): ten queries and the entity
a reader expects first. An exact name (in the typed case, then another) comes before a name
starting with the query, before a name holding the query's words, before the rest."""

from __future__ import annotations

import pytest

from graphsvc.query import engine

pytestmark = pytest.mark.neo4j

EXPECTED_FIRST = {
    "Session": "requests/sessions.py#Session",  # the class, not the function `session`
    "session": "requests/sessions.py#session",
    "CaseInsensitive": "requests/structures.py#CaseInsensitiveDict",  # a prefix
    "auth": "requests/auth.py#AuthBase",  # a prefix before a word inside `prepare_auth`
    "parse dict header": "requests/utils.py#parse_dict_header",  # "header" only in the name
    "dict from cookiejar": "requests/utils.py#dict_from_cookiejar",  # before cookiejar_from_dict
    "merge setting": "requests/sessions.py#merge_setting",
    "iter content": "requests/models.py#Response.iter_content",  # before iter_lines (doc words)
    "Accept-Encoding": "requests/utils.py#DEFAULT_ACCEPT_ENCODING",
    "Timeout": "requests/exceptions.py#Timeout",  # before urllib3's Timeout, an external
}


@pytest.mark.parametrize("query", EXPECTED_FIRST)
def test_expected_first_hit(requests_workspace, query):
    hits = engine.search(query, workspace=requests_workspace, limit=5).hits
    assert [h.entity.id for h in hits][:1] == [EXPECTED_FIRST[query]], [h.entity.id for h in hits]


def test_tiers_in_order(requests_workspace):
    ids = [h.entity.id for h in engine.search("Session", workspace=requests_workspace, limit=20).hits]
    exact, other_case, prefix, word = (ids.index("requests/sessions.py#" + q) for q in (
        "Session", "session", "SessionRedirectMixin", "Session.close"))
    assert exact < other_case < prefix < word
    # A word of the name before the same word in a doc only.
    ids = [h.entity.id for h in engine.search("redirect", workspace=requests_workspace, limit=20).hits]
    assert ids.index("requests/sessions.py#SessionRedirectMixin.get_redirect_target") < ids.index(
        "requests/sessions.py#SessionRedirectMixin.rebuild_proxies")
