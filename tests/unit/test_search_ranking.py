"""The search score is a function of the entity, the keywords and the workspace's counts."""

from __future__ import annotations

from graphsvc.model import identifier_words
from graphsvc.query import ranking


def test_tokens_keep_dotted_names_whole_like_the_index():
    assert ranking.tokens("os.path.join(a, b_c) app.py") == ["os.path.join", "a", "b_c", "app.py"]


def test_rarer_words_and_shorter_fields_score_higher():
    idfs = {"parse": ranking.idf(1000, 10), "record": ranking.idf(1000, 400)}
    short = {"name": "parse"}
    long_doc = {"name": "x", "doc": "parse " + "word " * 60}
    assert ranking.score(short, ["parse"], idfs) > ranking.score(long_doc, ["parse"], idfs)
    rare = ranking.score({"doc": "parse"}, ["parse"], idfs)
    common = ranking.score({"doc": "record"}, ["record"], idfs)
    assert rare > common > 0


def test_a_prefix_match_counts_once_per_field_and_a_phrase_needs_its_order():
    assert ranking.score({"name": "parse_header"}, ["parse"], {"parse": 2.0}) == ranking.PREFIX_SCORE
    idfs = {"lazy database": 3.0}
    assert ranking.score({"doc": "a lazy database lookup"}, ["lazy database"], idfs) > 0
    assert ranking.score({"doc": "database lazy"}, ["lazy database"], idfs) == 0


def test_tiers_exact_then_any_case_then_prefix_then_a_word_of_the_qualified_name():
    def tier(name, qualified_name, query):
        return ranking.tier(name, qualified_name, ranking.readings([[w] for w in query.split()]))

    assert tier("QuerySet", "QuerySet", "QuerySet") == ranking.EXACT
    assert tier("queryset", "Manager.queryset", "QuerySet") == ranking.EXACT_ANY_CASE
    assert tier("QuerySetMixin", "QuerySetMixin", "QuerySet") == ranking.PREFIX
    assert tier("filter", "QuerySet.filter", "QuerySet") == ranking.NAME_WORDS
    assert tier("get_queryset", "View.get_queryset", "QuerySet") == ranking.ELSEWHERE  # one word, not two
    assert tier("parse_dict_header", "parse_dict_header", "header") == ranking.NAME_WORDS
    assert tier("dict_from_cookiejar", "dict_from_cookiejar", "dict from cookiejar") == ranking.EXACT_ANY_CASE
    assert tier("cookiejar_from_dict", "cookiejar_from_dict", "dict from cookiejar") == ranking.NAME_WORDS
    assert tier("parse_dict_header", "parse_dict_header", "parse dict") == ranking.PREFIX
    assert tier("accept_language", "accept_language", "Accept-Language") == ranking.EXACT_ANY_CASE
    assert tier(None, None, "x") == ranking.ELSEWHERE
    # With OR, the best reading.
    assert ranking.tier("Model", "Model", ranking.readings([["Manager", "Model"]])) == ranking.EXACT


def test_a_keyword_matches_only_when_every_word_of_it_is_held():
    # Lucene splits `x"y` into x OR y and finds `helper(x)`; that entity does not hold `x"y`.
    assert not ranking.matches({"signature": "def helper(x)"}, 'x"y')
    assert ranking.matches({"signature": "def helper(x, y)"}, 'x"y')
    assert ranking.matches({"name": "parse_header"}, "parse")  # a prefix of one word
    assert ranking.matches({"doc": "Sets the Accept-Language header"}, "accept-language")
    assert not ranking.matches({"doc": "the language of a page"}, "Accept-Language")
    assert not ranking.matches({"name": "anything"}, "*")  # no words at all


def test_identifier_words_split_snake_and_camel_case_and_acronyms():
    assert identifier_words("HTTPAdapter.get_connection") == "http adapter get connection"
    assert identifier_words("CaseInsensitiveDict.__init__") == "case insensitive dict init"
    assert identifier_words("getHTTPResponse2") == "get http response 2"
    assert identifier_words("façade_été") == "façade été"
    assert identifier_words(None) == ""


def test_identifier_words_of_ascii_names_equal_those_split_at_separators_first():
    # The ASCII path finds the words over the whole name; the general one part by part.
    import re

    from graphsvc.model import _CAMEL_WORD, _NOT_ALNUM

    def by_parts(name: str) -> str:
        return " ".join(w for part in _NOT_ALNUM.split(name) for w in _CAMEL_WORD.findall(part)).lower()

    names = ["ABCdef", "ABC_def", "ABC.Def", "a1B2c3", "__init__", "XMLHttpRequest2D", "x", "_", "A_B_C",
             "fs/ext4/inode.c#ext4_iget", "Foo::BarBaz<T>", "HTTP2Server.handleHTTPRequest", "utf8Decode"]
    assert all(re.fullmatch(r"[\x00-\x7f]*", n) for n in names)
    assert [identifier_words(n) for n in names] == [by_parts(n) for n in names]
