"""Small things seen in screenshots: each test asserts what a person sees."""

from __future__ import annotations

from ui_support import WAIT_MS, run


def test_status_bar_shows_the_rows_when_the_index_was_already_current(qtbot, window) -> None:
    run(qtbot, window.services.manager.reindex())  # current before the window starts its sync
    assert window.rows_label.text() == "Index: …"
    window.start_background(watch=False, serve=False, index=True)
    qtbot.waitUntil(lambda: window.rows_label.text().endswith(" rows"), timeout=WAIT_MS)
    assert int(window.rows_label.text().split()[1]) > 10
