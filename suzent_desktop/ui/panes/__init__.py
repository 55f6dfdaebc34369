"""The side panes of the main window: search, daily logs, dream, forgotten, backlinks, MEMORY.md.

Each pane is a QWidget built from the shared :class:`~suzent_desktop.ui.base.services.AppServices`;
it listens on the bridge for change-sets and redraws only when one touches what it shows.
Imports are lazy so importing one pane does not pull in the others.
"""
