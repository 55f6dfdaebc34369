"""Dream consolidation: the runner, its two engines (LLM agent, offline), lint, and their records."""
