"""Computing communities checks its edge filters as every other operation does."""

from __future__ import annotations

import pytest

from graphsvc.errors import InputError
from graphsvc.query.communities import compute_communities


@pytest.mark.timeout(30)
@pytest.mark.parametrize("value", [-0.5, 1.5])
def test_min_confidence_outside_0_to_1_is_refused_naming_the_field(value):
    with pytest.raises(InputError, match="minConfidence must be between 0 and 1"):
        compute_communities(workspace="graphsvc-arguments-tests", min_confidence=value)


@pytest.mark.timeout(30)
def test_an_unknown_relationship_type_is_refused_naming_it():
    with pytest.raises(InputError, match="unknown relationship type 'CALLZ'"):
        compute_communities(workspace="graphsvc-arguments-tests", rels=["CALLZ"])
