"""Search ranking from one workspace's own statistics.

Neo4j's full-text index serves every workspace, and its scores weigh a word by how rare it is
in all of them and a field by the average length of that field in all of them: indexing one
workspace would reorder another's results. So the index only finds the matches; they are
scored here, by BM25 with what the workspace alone says:

- for each keyword ``w`` (lower-cased) and each field (name, qualified name, path, signature,
  doc) of an entity: ``EXACT_BOOST * idf(w) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len / typical))``,
  ``tf`` the field's tokens equal to ``w`` (a quoted phrase: its occurrences), ``len`` the
  field's tokens, ``typical`` a fixed length per field (`TYPICAL_TOKENS`: the workspace's
  average would mean reading all of it on every search);
- plus `PREFIX_SCORE` per field with a token that starts with ``w`` (as Lucene scores a prefix match),
  for keywords of `MIN_PREFIX_CHARS` or more;
- ``idf(w) = ln(1 + (N - df + 0.5) / (df + 0.5))``, ``N`` the workspace's entities and ``df``
  those holding ``w``, both counted by the index within the workspace.

Results are ordered: the workspace's own entities before the external ones it refers to; then
by how the entity's names hold the query (`tier`): named exactly as typed, then so in another
case, then by prefix, then holding every query word among the words of its qualified name,
then the rest (a path, a signature, a doc); then by score, then by id. Tokens follow Lucene's
standard tokenizer closely enough: words joined by ``.``, ``:`` or ``'`` stay one token
(``os.path``, ``app.py``), as they do in the index; `graphsvc.model.identifier_words` splits
names into the words the index holds in ``words``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from itertools import islice, product

from graphsvc.model import SEARCHED_PROPERTIES, identifier_words

K1 = 1.2
B = 0.75
EXACT_BOOST = 4.0
PREFIX_SCORE = 1.0
MIN_PREFIX_CHARS = 2  # shorter keywords match whole words only
FIELDS = tuple(SEARCHED_PROPERTIES)
TYPICAL_TOKENS = SEARCHED_PROPERTIES

_TOKEN = re.compile(r"\w+(?:[.:'\u2019]\w+)*")


def tokens(text: str | None) -> list[str]:
    return _TOKEN.findall(text.lower()) if text else []


def idf(total: int, df: int) -> float:
    df = min(df, total)
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def _occurrences(field: list[str], phrase: list[str]) -> int:
    if len(phrase) == 1:
        return field.count(phrase[0])
    n = len(phrase)
    return sum(1 for i in range(len(field) - n + 1) if field[i : i + n] == phrase)


def score(fields: Mapping[str, str | None], keywords: list[str], idfs: Mapping[str, float]) -> float:
    """The BM25 score of one entity's fields for `keywords` (see the module docstring)."""
    toks = {f: tokens(fields.get(f)) for f in FIELDS}
    total = 0.0
    for keyword in keywords:
        word = keyword.lower()
        phrase = tokens(word)
        prefix = len(phrase) == 1 and len(keyword) >= MIN_PREFIX_CHARS and not any(c.isspace() for c in keyword)
        weight = EXACT_BOOST * idfs.get(keyword, 0.0)
        for f in FIELDS:
            field = toks[f]
            if not field:
                continue
            tf = _occurrences(field, phrase) if phrase else 0
            if tf:
                norm = K1 * (1.0 - B + B * len(field) / TYPICAL_TOKENS[f])
                total += weight * tf * (K1 + 1.0) / (tf + norm)
            if prefix and any(t.startswith(word) for t in field):
                total += PREFIX_SCORE
    return total


def matches(fields: Mapping[str, str | None], keyword: str) -> bool:
    """Whether an entity holds the keyword as this module reads it: every word of it in some
    field, or, for a single word long enough, a word starting with it. Lucene's analyzer
    splits a keyword at punctuation into words it ORs together (`x"y` finds `helper(x)`);
    an entity that holds only some of them is not a hit."""
    words = tokens(keyword)
    if not words:
        return False
    held = {t for f in FIELDS for t in tokens(fields.get(f))}
    if all(w in held for w in words):
        return True
    word = keyword.lower()
    return (len(words) == 1 and len(keyword) >= MIN_PREFIX_CHARS and not any(c.isspace() for c in keyword)
            and any(t.startswith(word) for t in held))


EXACT, EXACT_ANY_CASE, PREFIX, NAME_WORDS, ELSEWHERE = range(5)
MAX_READINGS = 16  # of a query with OR: the combinations of its keywords that tiers consider


Reading = tuple[list[str], list[str]]  # keywords, and the identifier words they hold


def readings(terms: list[list[str]]) -> list[Reading]:
    """The keyword combinations a query allows (one keyword of each OR group), for `tier`."""
    groups = [[k.strip() for k in group if k.strip()] for group in terms]
    combos = islice(product(*[g for g in groups if g]), MAX_READINGS)
    return [(list(c), identifier_words(" ".join(c)).split()) for c in combos]


def tier(name: str | None, qualified_name: str | None, query: list[Reading]) -> int:
    """How an entity's names hold the query (its `readings`), best first:

    `EXACT`: named as the one keyword was typed; `EXACT_ANY_CASE`: so named in another case, or
    its name's words are the query's words in order (`dict from cookiejar`:
    ``dict_from_cookiejar``); `PREFIX`: its name starts with the keyword, or its words with the
    query's words; `NAME_WORDS`: every word of the query is a word of its qualified name
    (`header`: ``parse_dict_header``, `Session`: ``Session.close``); `ELSEWHERE`: otherwise.
    With ``OR``, the best of the keyword combinations the query allows.
    """
    if not name:
        return ELSEWHERE
    name_words = identifier_words(name).split()
    held = set(identifier_words(qualified_name or name).split())
    return min((_tier(name, name_words, held, *r) for r in query), default=ELSEWHERE)


def _tier(name: str, name_words: list[str], held: set[str], keywords: list[str], words: list[str]) -> int:
    if len(keywords) == 1:
        if name == keywords[0]:
            return EXACT
        if name.lower() == keywords[0].lower():
            return EXACT_ANY_CASE
    if not words:
        return ELSEWHERE
    if name_words == words:
        return EXACT_ANY_CASE
    if (len(keywords) == 1 and name.lower().startswith(keywords[0].lower())) or name_words[: len(words)] == words:
        return PREFIX
    return NAME_WORDS if held.issuperset(words) else ELSEWHERE
