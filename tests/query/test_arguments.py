"""The arguments operations share are checked in one place, as every operation takes them."""

from __future__ import annotations

import pytest

from graphsvc.errors import InputError
from graphsvc.query.arguments import check_walk
from graphsvc.query.communities import communities, compute_communities
from graphsvc.query.engine import neighborhood


@pytest.mark.timeout(30)
@pytest.mark.parametrize("value", [-0.5, 1.5])
def test_min_confidence_outside_0_to_1_is_refused_naming_the_field(value):
    with pytest.raises(InputError, match="minConfidence must be between 0 and 1"):
        compute_communities(workspace="graphsvc-arguments-tests", min_confidence=value)


@pytest.mark.timeout(30)
def test_an_unknown_relationship_type_is_refused_naming_it():
    with pytest.raises(InputError, match="unknown relationship type 'CALLZ'"):
        compute_communities(workspace="graphsvc-arguments-tests", rels=["CALLZ"])


@pytest.mark.timeout(30)
def test_a_misspelt_shared_argument_is_a_type_error_as_for_named_parameters():
    with pytest.raises(TypeError, match="unexpected keyword argument.*worksapce"):
        neighborhood("app.py", worksapce="graphsvc-arguments-tests")
    with pytest.raises(TypeError, match="unexpected keyword argument.*resolutoin"):
        communities(workspace="graphsvc-arguments-tests", resolutoin=1.0)


@pytest.mark.timeout(30)
def test_a_walk_is_checked_in_one_place_whichever_operation_takes_it():
    with pytest.raises(InputError, match="unknown relationship type 'CALLZ'"):
        check_walk({"workspace": "w", "rels": ["CALLZ"]}, 10)
    with pytest.raises(InputError, match="use EXTRACTED, INFERRED or RUNTIME"):
        check_walk({"workspace": "w", "provs": ["GUESSED"]}, 10)
    walk = check_walk({"workspace": "w", "provs": ["inferred"], "limit": 3}, 10)
    assert (walk.scope.workspace, walk.provs, walk.limit, walk.min_confidence) == ("w", ["INFERRED"], 3, 0.51)
