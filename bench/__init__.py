"""Benchmarks: `make bench` (or `python bench/run.py [name ...]`); see docs/benchmarks.md."""
