"""Plain text rules: the markdown grammar, fuzzy name matching, writing systems, counted words, the English word list."""
