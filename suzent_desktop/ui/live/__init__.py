"""Live Preview and Source mode: the editor widget, its highlighting, callouts, tables and embeds."""
