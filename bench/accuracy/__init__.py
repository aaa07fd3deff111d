"""Accuracy of the graph against independent oracles; the entry point is bench/accuracy.py."""
