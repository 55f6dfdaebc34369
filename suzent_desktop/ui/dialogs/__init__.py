"""Dialogs and pop-ups: settings, forget, the command palette, the quick switcher, questions."""
