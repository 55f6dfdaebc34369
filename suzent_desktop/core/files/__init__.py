"""The ground floor of the core: files, paths, line grammars and plain text rules.

Atomic writes, the layout of a home, daily logs, transcripts, tombstones, per-device
streams, the markdown grammar. Imports nothing above it (docs/development.md).
"""
