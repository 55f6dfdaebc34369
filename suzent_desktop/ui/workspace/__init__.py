"""The editor area: panes of tabs, split as in Obsidian, and what shows while no page is open."""
