from suzent_desktop.core.files.records.log_grammar import Fact, format_fact_line, parse_fact_line, parse_log

WELL_FORMED = [
    "- [preference] User prefers compact dashboards `ui product`",
    "- [work] User now works at Microsoft `career`",
    "- [general] Plain fact with no tags",
    "- [people] Anna lives in Zürich — ünïcödé `people importance:0.9`",
]


def test_well_formed_lines_round_trip_byte_exact():
    for line in WELL_FORMED:
        fact = parse_fact_line(line)
        assert fact is not None
        assert format_fact_line(fact) == line


def test_hand_written_lines_are_accepted():
    assert parse_fact_line("*   [Work]   Started at Contoso  ") == Fact("Started at Contoso", "work")
    assert parse_fact_line("- no category here") == Fact("no category here")
    fact = parse_fact_line("- [pref] Likes tea `#drinks   morning`")
    assert fact is not None and fact.tags == ("#drinks", "morning")


def test_importance_is_kept_in_the_tag_span():
    fact = parse_fact_line("- [work] Promoted `career importance:0.85`")
    assert fact is not None and fact.importance == 0.85 and fact.tags == ("career",) and fact.is_important


def test_non_fact_lines_are_reported_with_line_numbers():
    text = "# Daily Log - 2026-07-01\r\n\r\n## 14:05 — abc12345\r\n\r\n- [work] a\r\nrandom prose\r\n-\r\n"
    parsed = parse_log(text)
    assert parsed.date == "2026-07-01"
    assert [f.fact.content for f in parsed.facts] == ["a"]
    assert parsed.facts[0].session == "abc12345" and parsed.facts[0].line == 5
    assert [n for n, _ in parsed.malformed] == [6, 7]
