"""Dream consolidation: the runner, its two engines (LLM agent, offline), lint, and their records."""

from suzent_desktop.core.engines.dream.model import DreamResult, Finding, GateStatus, LintResult

__all__ = ["DreamResult", "Finding", "GateStatus", "LintResult", "DreamRunner", "run_lint"]


def __getattr__(name: str):
    """``DreamRunner`` and ``run_lint`` are imported on first use (they pull in the engines)."""
    if name == "DreamRunner":
        from suzent_desktop.core.engines.dream.runner import DreamRunner

        return DreamRunner
    if name == "run_lint":
        from suzent_desktop.core.engines.dream.lint import run_lint

        return run_lint
    raise AttributeError(name)
