"""The graph view: its pane, its drawing and its dock."""
