"""What a dream may write: edits that keep a person's words, dates, names, coverage before the watermark moves, a stuck loop."""
