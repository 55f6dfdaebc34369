"""Turn to facts: extraction, the fact rules and judge, relative dates."""
