"""MEMORY.md: which facts belong, the guard on a model's lines, approval, recall signals."""
