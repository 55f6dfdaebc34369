"""Facts no page holds, kept in search: dropped, lost, late and uncovered facts."""
