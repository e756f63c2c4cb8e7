from jaxlint.textutil import human_bytes, line_starts, match_lines, split_lines


def test_lines_end_only_at_the_three_python_terminators_not_at_form_feeds():
    text = "a\r\nb\rc\x0cd\ne\u2028f\n"
    assert split_lines(text) == ["a", "b", "c\x0cd", "e\u2028f", ""]
    assert line_starts(text) == [0, 3, 5, 9, 13]


def test_byte_sizes_use_binary_units_with_one_decimal_above_a_kibibyte():
    assert [human_bytes(n) for n in (None, 0, 1023, 1024, (1 << 20) - 1, 32 << 20, 3 << 29, 1 << 40)] == [
        "unknown size", "0 B", "1023 B", "1.0 KiB", "1024.0 KiB", "32.0 MiB", "1.5 GiB", "1.0 TiB"]


def test_match_lines_are_the_lines_the_matches_start_on_with_every_terminator():
    import bisect
    import random
    import re

    pattern = re.compile(r"ab|b\n|\nc|\r")
    rnd = random.Random(36)
    texts = ["", "ab", "\nab\r\nab\rab", "x\nab\n\nb\nc"]
    texts += ["".join(rnd.choice(["a", "b", "c", "\n", "\r", "\r\n", "x"]) for _ in range(rnd.randint(0, 60)))
              for _ in range(500)]
    for text in texts + [t.replace("\r", "") for t in texts]:
        starts = line_starts(text)
        expected = {bisect.bisect_right(starts, m.start()) for m in pattern.finditer(text)}
        assert match_lines(text, pattern) == expected, repr(text)
    assert match_lines("a\nb\r\nab\rab\n", pattern) == {2, 3, 4}
    assert match_lines("ab\n\n\nab", pattern) == {1, 4}
