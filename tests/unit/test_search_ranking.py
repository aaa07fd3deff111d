"""The search score is a function of the entity, the keywords and the workspace's counts."""

from __future__ import annotations

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


def test_exact_name_in_the_typed_case_ranks_before_another_case():
    assert ranking.name_rank("QuerySet", ["QuerySet"]) == 0
    assert ranking.name_rank("queryset", ["QuerySet"]) == 1
    assert ranking.name_rank("QuerySetX", ["QuerySet"]) == 2
    assert ranking.name_rank(None, ["x"]) == 2


def test_a_keyword_matches_only_when_every_word_of_it_is_held():
    # Lucene splits `x"y` into x OR y and finds `helper(x)`; that entity does not hold `x"y`.
    assert not ranking.matches({"signature": "def helper(x)"}, 'x"y')
    assert ranking.matches({"signature": "def helper(x, y)"}, 'x"y')
    assert ranking.matches({"name": "parse_header"}, "parse")  # a prefix of one word
    assert ranking.matches({"doc": "Sets the Accept-Language header"}, "accept-language")
    assert not ranking.matches({"doc": "the language of a page"}, "Accept-Language")
    assert not ranking.matches({"name": "anything"}, "*")  # no words at all
