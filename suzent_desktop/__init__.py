"""Suzent Desktop: a local-first long-term memory for an AI agent, as files you can see and edit."""

__version__ = "0.1.0"
