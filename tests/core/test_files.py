"""The file layer: daily logs, the vault and log.md, tombstones, recall log, layout and clock."""

from __future__ import annotations

import datetime as dt
import json
import threading
from pathlib import Path

import pytest
from process_support import run_in_processes

from suzent_desktop.core.engines.memory_md.recall import MAX_LINES, Recall, RecallLog
from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.paths.layout import ROOT_NAV_FILES, ZONES, Layout, LayoutError
from suzent_desktop.core.files.records.archive import Archive, ArchiveError
from suzent_desktop.core.files.records.log_grammar import Fact, parse_log
from suzent_desktop.core.files.records.tombstones import Tombstones, normalize
from suzent_desktop.core.vault.notebook import Notebook, NotebookError
from suzent_desktop.settings import Settings, load_settings

WHEN = dt.datetime(2026, 7, 1, 14, 5)


# -- layout and clock ----------------------------------------------------------------
def test_layout_defaults_live_under_the_home(home: Path):
    layout = Layout.from_settings(home, Settings())
    assert layout.memory_dir == home.resolve() / "memory"
    assert layout.notebook_dir == home.resolve() / "notebook"
    assert layout.index_dir == home.resolve() / ".suzent" / "memory"
    assert layout.daily_log("2026-07-01") == layout.memory_dir / "archive" / "2026-07-01.md"
    assert layout.tombstones_file == layout.notebook_dir / ".state" / "tombstones.jsonl"
    assert layout.recall_log == layout.notebook_dir / ".state" / "recall_log.jsonl"
    assert [p.name for p in layout.core_files] == ["persona.md", "user.md", "MEMORY.md"]


def test_layout_relative_and_absolute_settings(home: Path, tmp_path: Path):
    vault = tmp_path / "My Vault"
    layout = Layout.from_settings(home, Settings(notebook_path=str(vault), memory_path="mem"))
    assert layout.notebook_dir == vault
    assert layout.memory_dir == home.resolve() / "mem"


def test_layout_check_names_a_folder_that_is_a_file(home: Path):
    (home / "notebook").write_text("oops", encoding="utf-8")
    layout = Layout.from_settings(home, Settings())
    with pytest.raises(LayoutError, match="notebook_path"):
        layout.check()


def test_clock_honours_suzent_today(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SUZENT_TODAY", "2026-01-02")
    assert Clock().today() == dt.date(2026, 1, 2)
    assert Clock().now().date() == dt.date(2026, 1, 2)
    assert Clock(fixed_today=dt.date(2025, 5, 5)).today() == dt.date(2025, 5, 5)
    monkeypatch.setenv("SUZENT_TODAY", "yesterday")
    with pytest.raises(ValueError, match="SUZENT_TODAY"):
        Clock().today()


# -- daily logs --------------------------------------------------------------------------
def test_append_turn_writes_the_documented_format(layout: Layout):
    archive = Archive(layout)
    path, lines = archive.append_turn(
        [Fact("User prefers compact dashboards", "preference", ("ui", "product")), Fact("User now works at Microsoft", "work", ("career",))],
        session_id="abc12345XYZ",
        when=WHEN,
    )
    assert path == layout.daily_log("2026-07-01")
    assert path.read_text(encoding="utf-8") == (
        "# Daily Log - 2026-07-01\n\n## 14:05 — abc12345\n\n"
        "- [preference] User prefers compact dashboards `ui product`\n"
        "- [work] User now works at Microsoft `career`\n"
    )
    assert lines == [5, 6]


def test_second_turn_appends_a_block_and_reports_its_lines(layout: Layout):
    archive = Archive(layout)
    archive.append_turn([Fact("a")], session_id="s1", when=WHEN)
    path, lines = archive.append_turn([Fact("b"), Fact("c")], session_id="s2", when=WHEN.replace(hour=15))
    text_lines = path.read_text(encoding="utf-8").splitlines()
    assert [text_lines[n - 1] for n in lines] == ["- [general] b", "- [general] c"]
    assert text_lines.count("# Daily Log - 2026-07-01") == 1
    parsed = archive.read("2026-07-01")
    assert [t.session for t in parsed.turns] == ["s1", "s2"]


def test_append_after_a_hand_edit_without_final_newline(layout: Layout):
    archive = Archive(layout)
    path = layout.daily_log("2026-07-01")
    path.parent.mkdir(parents=True)
    path.write_text("# Daily Log - 2026-07-01\n\n- [work] typed by hand", encoding="utf-8")
    _, lines = archive.append_turn([Fact("appended")], session_id="s", when=WHEN)
    text_lines = path.read_text(encoding="utf-8").splitlines()
    assert text_lines[2] == "- [work] typed by hand"
    assert text_lines[lines[0] - 1] == "- [general] appended"


def test_importance_survives_the_round_trip(layout: Layout):
    archive = Archive(layout)
    archive.append_turn([Fact("User is allergic to peanuts", "health", ("allergy",), 0.95)], session_id="s", when=WHEN)
    fact = archive.read("2026-07-01").facts[0].fact
    assert fact.importance == 0.95 and fact.tags == ("allergy",) and fact.is_important


def test_concurrent_appends_never_interleave_or_lose_lines(layout: Layout):
    archive = Archive(layout)

    def worker(n: int) -> None:
        for i in range(20):
            archive.append_turn([Fact(f"t{n} f{i} a"), Fact(f"t{n} f{i} b")], session_id=f"s{n}", when=WHEN)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    parsed = archive.read("2026-07-01")
    assert len(parsed.facts) == 6 * 20 * 2 and not parsed.malformed
    for turn in parsed.turns:  # each block holds its own two facts, in order
        contents = [f.fact.content for f in turn.facts]
        assert len(contents) == 2 and contents[0].endswith(" a") and contents[1] == contents[0][:-1] + "b"


def _append_many(home: str, worker: int, count: int) -> None:
    archive = Archive(Layout.from_settings(Path(home), load_settings(Path(home))))
    for i in range(count):
        archive.append_turn([Fact(f"p{worker} f{i} a"), Fact(f"p{worker} f{i} b")], session_id=f"p{worker}", when=WHEN)


def test_appends_from_several_processes_never_interleave(layout: Layout):
    """Each process has its own thread lock: only the file lock keeps their blocks whole."""
    run_in_processes(_append_many, [(str(layout.home), w, 15) for w in range(4)])
    parsed = Archive(layout).read("2026-07-01")
    assert len(parsed.facts) == 4 * 15 * 2 and not parsed.malformed
    for turn in parsed.turns:
        contents = [f.fact.content for f in turn.facts]
        assert len(contents) == 2 and contents[1] == contents[0][:-1] + "b"


def test_dates_and_invalid_file_names(layout: Layout):
    archive = Archive(layout)
    layout.archive_dir.mkdir(parents=True)
    for name in ("2026-07-02.md", "2026-07-01.md", "2026-13-40.md", "notes.md", "2026-07-03.txt"):
        (layout.archive_dir / name).write_text("# x\n", encoding="utf-8")
    (layout.archive_dir / ".DS_Store").write_bytes(b"\x00")
    assert archive.dates() == ["2026-07-01", "2026-07-02"]
    bad = {b.path.name: b.reason for b in archive.invalid_files()}
    assert set(bad) == {"2026-13-40.md", "notes.md", "2026-07-03.txt"}
    assert "calendar date" in bad["2026-13-40.md"]


def test_non_utf8_log_raises_naming_the_file_and_is_left_untouched(layout: Layout):
    archive = Archive(layout)
    path = layout.daily_log("2026-07-01")
    path.parent.mkdir(parents=True)
    data = b"# Daily Log - 2026-07-01\n- [work] caf\xe9\n"
    path.write_bytes(data)
    with pytest.raises(ArchiveError, match="2026-07-01.md"):
        archive.read("2026-07-01")
    assert path.read_bytes() == data


def test_parser_keeps_going_after_malformed_lines():
    parsed = parse_log("# Daily Log - 2026-07-01\n\nrandom prose\n- [work] kept\n###\n- also kept `x`\n")
    assert [f.fact.content for f in parsed.facts] == ["kept", "also kept"]
    assert [n for n, _ in parsed.malformed] == [3, 5]


# -- notebook ---------------------------------------------------------------------------------
def test_bootstrap_creates_zones_and_seeds(layout: Layout):
    created = Notebook(layout).bootstrap()
    for zone in ZONES:
        assert (layout.notebook_dir / zone).is_dir()
    for name in ROOT_NAV_FILES:
        assert (layout.notebook_dir / name).is_file()
    assert layout.state_dir.is_dir()
    assert layout.schema_md in created


def test_bootstrap_never_overwrites_and_leaves_hidden_folders_alone(layout: Layout):
    root = layout.notebook_dir
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    (root / "schema.md").write_text("my own schema\n", encoding="utf-8")
    Notebook(layout).bootstrap()
    second = Notebook(layout).bootstrap()
    assert (root / "schema.md").read_text(encoding="utf-8") == "my own schema\n"
    assert (root / ".obsidian" / "app.json").read_text(encoding="utf-8") == "{}"
    assert second == []


def test_bootstrap_refuses_a_vault_that_is_a_file(layout: Layout):
    layout.notebook_dir.write_text("not a folder", encoding="utf-8")
    with pytest.raises(NotebookError, match="notebook_path"):
        Notebook(layout).bootstrap()
    assert layout.notebook_dir.read_text(encoding="utf-8") == "not a folder"


def test_content_pages_skip_nav_files_hidden_folders_and_non_markdown(layout: Layout):
    notebook = Notebook(layout)
    notebook.bootstrap()
    root = layout.notebook_dir
    (root / "3_Personal" / "Work.md").write_text("# Work\n", encoding="utf-8")
    (root / "2_Wiki" / "Concepts" / "Café l'été 100%_x.md").write_text("# x\n", encoding="utf-8")
    (root / ".trash").mkdir()
    (root / ".trash" / "Old.md").write_text("# old\n", encoding="utf-8")
    (root / "4_Assets" / "pic.png").write_bytes(b"\x89PNG")
    (root / "3_Personal" / "index.md").write_text("# a nested index is a page\n", encoding="utf-8")
    pages = [notebook.relative(p) for p in notebook.content_pages()]
    assert pages == sorted(pages)
    assert set(pages) == {"2_Wiki/Concepts/Café l'été 100%_x.md", "3_Personal/Work.md", "3_Personal/index.md"}


def _write_log(layout: Layout, text: str) -> None:
    layout.log_md.parent.mkdir(parents=True, exist_ok=True)
    layout.log_md.write_text(text, encoding="utf-8")


def test_watermark_only_counts_on_ingest_entry_lines(layout: Layout):
    _write_log(
        layout,
        "# Log\n\n"
        "## [2026-07-05] ingest | daily logs  watermark=2026-07-04\n"
        "The agent said watermark=2026-07-19 in prose.\n\n"
        "```\n## [2026-07-06] ingest | daily logs  watermark=2026-07-18\n```\n\n"
        "## [2026-07-06] lint\nwatermark=2026-07-17\n"
        "> ## [2026-07-07] ingest watermark=2026-07-16\n",
    )
    notebook = Notebook(layout)
    assert notebook.raw_watermark() == "2026-07-04"
    assert notebook.watermark(dt.date(2026, 7, 20)) == "2026-07-04"


def test_hand_appended_entry_line_counts_and_future_is_refused(layout: Layout):
    _write_log(
        layout,
        "# Log\n\n## [2026-07-05] ingest | daily logs  watermark=2026-07-04\n\n"
        "## [2026-07-20] ingest | manual  watermark=2026-07-25\n",
    )
    notebook = Notebook(layout)
    assert notebook.raw_watermark() == "2026-07-25"
    assert notebook.watermark(dt.date(2026, 7, 20)) == "2026-07-04"  # the future one is not honoured
    assert "log.md:5" in notebook.watermark_error(dt.date(2026, 7, 20))
    assert notebook.watermark(dt.date(2026, 7, 25)) == "2026-07-24"  # on its day it counts as yesterday


def test_no_watermark_and_invalid_dates(layout: Layout):
    notebook = Notebook(layout)
    assert notebook.watermark(dt.date(2026, 7, 20)) is None  # no log.md at all
    _write_log(layout, "# Log\n\n## [2026-07-05] ingest | daily logs  watermark=2026-02-30\n")
    assert notebook.raw_watermark() is None


def test_runner_entry_writers(layout: Layout):
    notebook = Notebook(layout)
    notebook.bootstrap()
    notebook.append_ingest(dt.date(2026, 7, 10), "2026-07-09", summary="merged 3 pages")
    notebook.append_skip(dt.date(2026, 7, 11), ["2026-07-11", "2026-07-10"], attempts=3)
    notebook.append_lint(dt.date(2026, 7, 12), summary="2 findings")
    assert notebook.raw_watermark() == "2026-07-11"
    assert notebook.skipped_dates() == ["2026-07-10", "2026-07-11"]
    last_ingest = notebook.last_entry("ingest")
    assert last_ingest is not None and last_ingest.date == "2026-07-11"
    lint = notebook.last_entry("lint")
    assert lint is not None and lint.date == "2026-07-12" and lint.watermark is None and lint.summary == "2 findings"
    ingest = notebook.entries()[0]
    assert ingest.summary == "merged 3 pages"
    text = layout.log_md.read_text(encoding="utf-8")
    assert "## [2026-07-10] ingest | daily logs  watermark=2026-07-09\n" in text


def test_log_md_with_bad_bytes_is_still_read(layout: Layout):
    layout.log_md.parent.mkdir(parents=True)
    layout.log_md.write_bytes(b"# Log \xff\n\n## [2026-07-05] ingest | daily logs  watermark=2026-07-04\n")
    assert Notebook(layout).raw_watermark() == "2026-07-04"


# -- tombstones and recall ---------------------------------------------------------------------------
def test_normalize():
    assert normalize("  User   Works\tat\nMICROSOFT ") == "user works at microsoft"


def test_tombstones_add_load_and_preserve_extra_keys(layout: Layout):
    stones = Tombstones(layout)
    layout.state_dir.mkdir(parents=True)
    layout.tombstones_file.write_text(
        json.dumps({"content": "old one", "ts": "2026-01-01T00:00:00", "custom": [1, 2]}) + "\n", encoding="utf-8"
    )
    assert stones.add("  User's Door   code ", source="cli", reason="private") == "user's door code"
    lines = layout.tombstones_file.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["custom"] == [1, 2]
    record = json.loads(lines[1])
    assert record["content"] == "user's door code" and record["source"] == "cli" and record["reason"] == "private"
    assert stones.contents() == {"old one", "user's door code"}
    assert stones.is_tombstoned("USER'S DOOR CODE")


def test_tombstones_bad_lines_are_reported_not_dropped(layout: Layout):
    layout.state_dir.mkdir(parents=True)
    raw = '{"content": "good"}\nnot json\n{"nope": 1}\n[1, 2]\n{"content": 5}\n"text"\n'
    layout.tombstones_file.write_text(raw, encoding="utf-8")
    stones, problems = Tombstones(layout).load()
    assert [s.content for s in stones] == ["good"]
    assert [p.line for p in problems] == [2, 3, 4, 5, 6]
    Tombstones(layout).add("another")
    assert layout.tombstones_file.read_text(encoding="utf-8").startswith(raw)


def test_tombstone_undo_and_redo(layout: Layout):
    stones = Tombstones(layout)
    stones.add("secret")
    stones.undo("Secret")
    assert not stones.is_tombstoned("secret")
    stones.add("secret")
    assert stones.is_tombstoned("secret")


def test_empty_tombstone_is_refused(layout: Layout):
    with pytest.raises(ValueError, match="empty"):
        Tombstones(layout).add("   ")


def test_tombstones_file_without_final_newline(layout: Layout):
    layout.state_dir.mkdir(parents=True)
    layout.tombstones_file.write_text('{"content": "a"}', encoding="utf-8")
    Tombstones(layout).add("b")
    assert Tombstones(layout).contents() == {"a", "b"}


def test_recall_log_format_dedup_and_counts(layout: Layout):
    layout.recall_log.parent.mkdir(parents=True)
    recall = RecallLog(layout)
    long = "x" * 300
    recall.record([Recall(long, "notebook"), Recall(long, "notebook"), Recall("fact", "archive")])
    lines = [json.loads(line) for line in layout.recall_log.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 2
    assert set(lines[0]) == {"ts", "snippet", "source_type"}
    assert len(lines[0]["snippet"]) == 160
    dt.datetime.fromisoformat(lines[0]["ts"])
    recall.record([Recall("fact", "archive")])
    assert recall.counts()["fact"] == 2


def test_recall_log_is_bounded(layout: Layout):
    recall = RecallLog(layout)
    layout.state_dir.mkdir(parents=True)
    line = json.dumps({"ts": "2026-01-01T00:00:00", "snippet": "old", "source_type": "core"})
    layout.recall_log.write_text((line + "\n") * (2 * MAX_LINES), encoding="utf-8")
    recall.record([Recall("new", "archive")])
    lines = layout.recall_log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == MAX_LINES and json.loads(lines[-1])["snippet"] == "new"


def test_session_id_with_spaces_still_gives_a_parsable_header(layout: Layout):
    archive = Archive(layout)
    archive.append_turn([Fact("a")], session_id="my chat 1", when=WHEN)
    parsed = archive.read("2026-07-01")
    assert not parsed.malformed and parsed.turns[0].session == "my-chat-"


def test_layout_check_refuses_a_state_file(home: Path):
    layout = Layout.from_settings(home, Settings())
    layout.notebook_dir.mkdir()
    layout.state_dir.write_text("x", encoding="utf-8")
    with pytest.raises(LayoutError, match=".state"):
        layout.check()


def test_fences_close_only_with_their_own_marker(layout: Layout):
    _write_log(
        layout,
        "# Log\n\n## [2026-07-05] ingest | daily logs  watermark=2026-07-04\n\n"
        "~~~\n```\n## [2026-07-06] ingest | example  watermark=2026-07-18\n~~~\n\n"
        "````md\n```\n## [2026-07-07] ingest | example  watermark=2026-07-17\n```\n````\n",
    )
    assert Notebook(layout).raw_watermark() == "2026-07-04"


def test_four_spaces_before_backticks_make_a_code_line_not_a_fence(layout: Layout):
    _write_log(
        layout,
        "# Log\n\nAn indented snippet:\n\n    ```\n\n## [2026-07-05] ingest | by hand  watermark=2026-07-04\n",
    )
    assert Notebook(layout).raw_watermark() == "2026-07-04"


def test_an_unclosed_code_block_cannot_swallow_the_runners_entry(layout: Layout):
    _write_log(
        layout,
        "# Log\n\n## [2026-07-05] ingest | daily logs  watermark=2026-07-04\n\n"
        "A pasted example:\n```\n## [2026-07-06] ingest | example  watermark=2026-07-19",
    )
    notebook = Notebook(layout)
    assert notebook.raw_watermark() == "2026-07-04"
    notebook.append_ingest(dt.date(2026, 7, 10), "2026-07-09")
    assert notebook.raw_watermark() == "2026-07-09"
    notebook.append_lint(dt.date(2026, 7, 11))
    entry = notebook.last_entry("lint")
    assert entry is not None and entry.date == "2026-07-11"
    assert layout.log_md.read_text(encoding="utf-8").startswith("# Log\n\n## [2026-07-05]")  # only appended


def test_a_fact_ending_in_a_code_span_keeps_it_as_text(layout: Layout):
    archive = Archive(layout)
    facts = [Fact("User's editor is `nvim`", "preference"), Fact("User likes `vim`", tags=("editor",))]
    archive.append_turn(facts, session_id="s", when=WHEN)
    assert [f.fact for f in archive.read("2026-07-01").facts] == facts


def test_odd_categories_and_tags_are_written_so_they_read_back(layout: Layout):
    archive = Archive(layout)
    archive.append_turn(
        [Fact("a", "Work Stuff", ("two words", "`x`")), Fact("b", "1st"), Fact("c", "  "), Fact("d", "Café")],
        session_id="s",
        when=WHEN,
    )
    read = [f.fact for f in archive.read("2026-07-01").facts]
    assert [(f.content, f.category, f.tags) for f in read] == [
        ("a", "work-stuff", ("two", "words", "x")),
        ("b", "general", ()),
        ("c", "general", ()),
        ("d", "cafe", ()),
    ]


def test_recall_is_not_recorded_into_a_vault_that_does_not_exist(layout: Layout):
    RecallLog(layout).record([Recall("fact", "archive")])
    assert not layout.notebook_dir.exists()
