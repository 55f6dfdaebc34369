"""Where a consolidated fact goes: its page by subject, place, project or employer, and its section."""
