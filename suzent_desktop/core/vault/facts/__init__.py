"""Consolidated facts on pages: the fact-bullet grammar, pages read as facts, lines matched against facts, old boilerplate."""
