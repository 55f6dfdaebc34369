"""One page in a tab: its editor, head and properties, its three views, hover cards."""
