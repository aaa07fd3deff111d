"""The test suite, one package: helpers are imported as ``tests.<package>.<module>``.

`make test` runs ``python -m pytest`` from the repository root, which puts the root on
``sys.path``; shared helpers live in ``tests/graph_compare.py``, the packages' ``conftest.py``
(fixtures and the constants they build with) and ``tests/unit/symbols_helpers.py``.
"""
