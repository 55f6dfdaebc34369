"""The GUI thread keeps a core, imports nothing heavy on first use and never runs a full collection.

Speed itself is measured by ``bench/ui_stall.py``; these tests pin the behaviour behind it.
"""

from __future__ import annotations

import gc
import importlib
import sys
import threading
import weakref
from pathlib import Path

import panes_support
import pytest
from panes_support import seed
from ui_support import WAIT_MS, run

from suzent_desktop.core.index.embedding import OnnxMiniLMEmbedder, available_cores
from suzent_desktop.ui.base import app as app_module
from suzent_desktop.ui.base import gc_policy

pane_services = panes_support.pane_services


class ImportSpy:
    """Records, for each watched module imported while installed, whether the GUI thread imported it."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.on_gui_thread: dict[str, bool] = {}

    def find_spec(self, name: str, path=None, target=None):  # noqa: ANN001, ANN201 - a meta path finder
        if name in self.names:
            self.on_gui_thread[name] = threading.current_thread() is threading.main_thread()
        return None


def _forget_module(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make the next import of ``name`` a real one; the module object is put back after the test."""
    module = importlib.import_module(name)
    package, _, attr = name.rpartition(".")
    monkeypatch.setattr(sys.modules[package], attr, module)
    monkeypatch.delitem(sys.modules, name)


def test_the_bundled_model_leaves_the_window_a_core_and_follows_the_setting(
    loop, qtbot, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from suzent_desktop.core.manager import MemoryManager
    from suzent_desktop.ui.base.services import AppServices

    monkeypatch.setenv("SUZENT_EMBEDDING_MODEL", "")  # the bundled model (it loads on first use: not here)
    window_default = max(1, available_cores() - 1)
    services = AppServices.open(home)
    try:
        embedder = services.manager.embedder
        assert isinstance(embedder, OnnxMiniLMEmbedder)
        assert embedder.threads == window_default
        services.save_settings(services.settings.replace(window_embedding_threads=3))
        assert embedder.threads == 3
        services.save_settings(services.settings.replace(window_embedding_threads=0))
        assert embedder.threads == window_default
    finally:
        run(qtbot, services.shutdown())
    # the command line's engine on the same home keeps every core
    assert MemoryManager.open(home).embedder.threads == available_cores()


def test_a_dream_imports_its_engine_on_a_worker_thread(
    qtbot, pane_services, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(pane_services.manager)
    name = "suzent_desktop.core.engines.dream.offline"
    _forget_module(monkeypatch, name)
    spy = ImportSpy({name})
    monkeypatch.setattr(sys, "meta_path", [spy, *sys.meta_path])

    result = run(qtbot, pane_services.runner.run_once(force=True))

    assert result.outcome == "productive", result.reason
    assert spy.on_gui_thread == {name: False}


def test_the_window_warms_engine_imports_on_a_worker(monkeypatch: pytest.MonkeyPatch, qtbot) -> None:
    for name in app_module.WARM_MODULES:
        _forget_module(monkeypatch, name)
    spy = ImportSpy(set(app_module.WARM_MODULES))
    monkeypatch.setattr(sys, "meta_path", [spy, *sys.meta_path])

    app_module.warm_imports().join(timeout=WAIT_MS / 1000)

    assert spy.on_gui_thread == dict.fromkeys(app_module.WARM_MODULES, False)
    assert all(name in sys.modules for name in app_module.WARM_MODULES)


def test_no_full_collection_runs_on_its_own_once_the_window_is_up() -> None:
    saved = gc.get_threshold()
    generations: list[int] = []

    def record(phase: str, info: dict) -> None:
        if phase == "start":
            generations.append(info["generation"])

    def build() -> None:  # long-lived objects, as an index pass or a dream makes them on a worker
        kept = [[i, {"row": i}] for i in range(400_000)]
        assert len(kept) == 400_000

    gc.callbacks.append(record)
    try:
        gc_policy.install()
        worker = threading.Thread(target=build)
        worker.start()
        worker.join()
    finally:
        gc.callbacks.remove(record)
        gc.set_threshold(*saved)
    assert generations and set(generations) <= {0, 1}, generations  # young collections still run


def test_a_safe_point_collects_young_cycles_and_freezes_the_survivors() -> None:
    class Node:
        pass

    garbage = Node()
    garbage.me = garbage  # a reference cycle: only the cyclic collector frees it
    dead = weakref.ref(garbage)
    del garbage
    kept = Node()
    frozen_before = gc.get_freeze_count()

    gc_policy.safe_point()

    assert dead() is None  # collected while young, not frozen for ever
    assert gc.get_freeze_count() > frozen_before
    assert kept is not None


def test_renaming_and_trashing_update_the_editor_link_index_without_a_vault_scan(
    qtbot, window, prompter, monkeypatch: pytest.MonkeyPatch
) -> None:
    from suzent_desktop.core.vault.links import VaultIndex

    root = window.services.layout.notebook_dir
    folder = root / "2_Wiki" / "Lanterns"
    folder.mkdir(parents=True)
    (folder / "Lantern Index.md").write_text("# Lantern Index\n", encoding="utf-8")
    (root / "3_Personal" / "Lantern Notes.md").write_text("See [[Lantern Index]].\n", encoding="utf-8")
    window.tree.reload()
    run(qtbot, window.refresh_names())  # the vault model's names reach the editors, as at start-up
    assert window.editors.resolve("Lantern Index") == folder / "Lantern Index.md"
    scans: list[str] = []  # modules of the window that rescanned the vault for links
    real_scan = VaultIndex.scan.__func__

    def scan(cls, root: Path) -> VaultIndex:  # noqa: ANN001
        scans.append(sys._getframe(1).f_globals["__name__"])
        return real_scan(cls, root)

    monkeypatch.setattr(VaultIndex, "scan", classmethod(scan))

    prompter.texts.append("Glass")
    moved = window.tree.rename(folder)
    assert moved == root / "2_Wiki" / "Glass"
    resolve = window.editors.resolve  # the model takes each change in on a worker, then hands the editors a snapshot
    qtbot.waitUntil(lambda: resolve("Lantern Index") == moved / "Lantern Index.md", timeout=WAIT_MS)
    prompter.texts.append("Glass Index")
    renamed = window.tree.rename(moved / "Lantern Index.md")
    qtbot.waitUntil(lambda: resolve("Glass Index") == renamed and resolve("Lantern Index") is None, timeout=WAIT_MS)
    window.tree.delete(renamed)
    qtbot.waitUntil(lambda: resolve("Glass Index") is None, timeout=WAIT_MS)

    assert not {"suzent_desktop.ui.page.editor", "suzent_desktop.ui.workspace.editor_area"} & set(scans)  # (the rename's own link rewrite reads pages, in the core)
