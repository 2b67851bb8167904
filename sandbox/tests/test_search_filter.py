"""search_filter.py's rules on exact input, in this process: previews, columns and ranges in UTF-16,
ripgrep's output split anywhere, lines too long to keep, and the limits. (The program end to end, with
commands standing in for ripgrep, is worker/search/search-script.test.ts; the real ripgrep, the
integration tests.)"""
import base64
import json
import os
import shutil
import tempfile
import unittest

from programs import load

CONFIG = {"maxResults": 100, "maxBytes": 1 << 20, "seconds": 20, "preview": 60, "before": 10, "maxRanges": 5}


def rg_match(path, text, subs, line_number=1, offset=0):
    """The line `rg --json` prints for a match (SUBS: byte offsets in TEXT)."""
    raw = text.encode()
    return json.dumps({"type": "match", "data": {
        "path": {"text": path}, "lines": {"text": text}, "line_number": line_number, "absolute_offset": offset,
        "submatches": [{"match": {"text": raw[a:b].decode()}, "start": a, "end": b} for a, b in subs]}},
        separators=(",", ":")).encode()


class Filter(unittest.TestCase):
    def setUp(self):
        self.search = load("search_filter.py")
        self.configure()

    def configure(self, **changes):
        self.search.configure({**CONFIG, **changes})

    def events(self):
        """What the filter would have written so far, as parsed lines."""
        self.search.end_file()
        return [json.loads(line) for line in b"".join(self.search.pending).splitlines()]

    def preview(self, text, subs, offset=0, complete=True):
        return self.search.preview(text.encode(), offset, complete, subs)

    # columns and ranges
    def test_u16_counts_characters_outside_the_bmp_twice(self):
        self.assertEqual(self.search.u16("abc"), 3)
        self.assertEqual(self.search.u16("é"), 1)
        self.assertEqual(self.search.u16("a😀b"), 4)

    def test_whole_chars_moves_inwards_to_character_boundaries(self):
        raw = "aéb".encode()  # a, C3 A9, b
        self.assertEqual(self.search.whole_chars(raw, 2, 4), (3, 4))
        self.assertEqual(self.search.whole_chars(raw, 0, 2), (0, 1))
        self.assertEqual(self.search.whole_chars(raw, 0, len(raw)), (0, len(raw)))

    def test_a_short_line_is_shown_whole_with_its_match_ranged(self):
        self.assertEqual(self.preview("let x = 1;\n", [(4, 5)]), {"text": "let x = 1;", "ranges": [[4, 5]]})

    def test_crlf_is_not_shown(self):
        self.assertEqual(self.preview("hit\r\n", [(0, 3)])["text"], "hit")

    def test_ranges_count_utf16_units(self):
        shown = self.preview("😀 hit", [(5, 8)])
        self.assertEqual(shown, {"text": "😀 hit", "ranges": [[3, 6]]})

    def test_text_before_the_first_match_is_cut_to_before_with_a_mark(self):
        shown = self.preview("x" * 30 + "hit", [(30, 33)])
        self.assertEqual(shown["text"], "…" + "x" * 10 + "hit")
        self.assertEqual(shown["ranges"], [[11, 14]])

    def test_text_past_the_preview_is_cut_with_a_mark(self):
        self.configure(preview=10)
        shown = self.preview("hit" + "y" * 50, [(0, 3)])
        self.assertEqual(shown["text"], "hit" + "y" * 7 + "…")

    def test_a_window_that_is_not_the_whole_line_is_marked_at_both_ends(self):
        shown = self.preview("abc hit def", [(104, 107)], offset=100, complete=False)
        self.assertTrue(shown["text"].startswith("…"))
        self.assertTrue(shown["text"].endswith("…"))

    def test_every_match_that_fits_is_ranged_and_overlaps_are_skipped(self):
        shown = self.preview("a hit and hit again", [(2, 5), (3, 4), (10, 13)])
        self.assertEqual(shown["ranges"], [[2, 5], [10, 13]])

    def test_matches_past_the_preview_are_not_ranged(self):
        self.configure(preview=12)
        shown = self.preview("hit " + "z" * 20 + " hit", [(0, 3), (25, 28)])
        self.assertEqual(shown["ranges"], [[0, 3]])

    # paths
    def test_a_path_loses_its_dot_slash_and_bytes_paths_are_decoded(self):
        self.assertEqual(self.search.path_of({"text": "./src/a.ts"}), "src/a.ts")
        encoded = base64.b64encode(b"bad\xffname").decode()
        self.assertEqual(self.search.path_of({"bytes": encoded}), "bad\ufffdname")
        self.assertEqual(self.search.raw_of({"bytes": encoded}), b"bad\xffname")

    def test_line_out_keeps_unicode_and_replaces_lone_surrogates(self):
        self.assertEqual(self.search.line_out({"t": "é"}), '{"t":"é"}\n'.encode())
        self.assertEqual(self.search.line_out({"t": "\ud800"}), b'{"t":"?"}\n')

    # events
    def test_matches_of_one_file_are_one_event_with_line_and_column(self):
        self.search.handle(rg_match("a.txt", "  hit\n", [(2, 5)], line_number=3))
        self.search.handle(rg_match("a.txt", "hit\n", [(0, 3)], line_number=7))
        self.search.handle(b'{"type":"end","data":{}}')
        self.search.handle(rg_match("b.txt", "é hit\n", [(3, 6)]))
        events = self.events()
        self.assertEqual([(e["path"], [(m["line"], m["column"]) for m in e["matches"]]) for e in events],
                         [("a.txt", [(3, 3), (7, 1)]), ("b.txt", [(1, 3)])])
        self.assertEqual(self.search.results, 3)
        self.assertEqual(self.search.paths, {"a.txt", "b.txt"})

    def test_a_match_without_submatches_is_dropped(self):
        self.search.handle(rg_match("a.txt", "x\n", []))
        self.assertEqual(self.events(), [])

    def test_only_max_ranges_submatches_are_kept(self):
        self.configure(maxRanges=2)
        self.search.handle(rg_match("a.txt", "a a a a\n", [(0, 1), (2, 3), (4, 5), (6, 7)]))
        self.assertEqual(self.events()[0]["matches"][0]["ranges"], [[0, 1], [2, 3]])

    def test_end_file_with_keep_sends_what_there_is_and_continues_the_file(self):
        self.search.handle(rg_match("a.txt", "hit\n", [(0, 3)]))
        self.search.end_file(keep=True)
        self.search.handle(rg_match("a.txt", "hit\n", [(0, 3)], line_number=2))
        self.assertEqual([len(e["matches"]) for e in self.events()], [1, 1])
        self.assertEqual(len(self.search.paths), 1)

    # ripgrep's output as it comes
    def test_lines_split_across_chunks_are_joined(self):
        data = rg_match("a.txt", "hit\n", [(0, 3)]) + b"\n" + rg_match("a.txt", "hit\n", [(0, 3)], 2) + b"\n"
        for i in range(0, len(data), 7):
            self.search.take(data[i:i + 7])
        self.assertEqual([m["line"] for m in self.events()[0]["matches"]], [1, 2])

    def test_the_result_limit_stops_taking(self):
        self.configure(maxResults=2)
        line = rg_match("a.txt", "hit\n", [(0, 3)]) + b"\n"
        self.search.take(line * 5)
        self.assertEqual(self.search.limit, "results")
        self.assertEqual(self.search.results, 2)

    def test_the_byte_budget_stops_taking(self):
        self.configure(maxBytes=300)
        line = rg_match("a.txt", "hit\n", [(0, 3)]) + b"\n"
        for _ in range(50):
            self.search.take(line)
            self.search.end_file(keep=True)
            if self.search.limit:
                break
        self.assertEqual(self.search.limit, "bytes")
        self.assertLess(self.search.results, 50)


class LongLines(unittest.TestCase):
    """A match line over LONG_LINE bytes: only its head and tail kept, its preview read from the file."""

    def setUp(self):
        self.search = load("search_filter.py")
        self.search.configure({**CONFIG, "longLine": 1000})
        self.scratch = tempfile.mkdtemp(prefix="cloud-ide-search-")
        self.addCleanup(shutil.rmtree, self.scratch)
        cwd = os.getcwd()
        os.chdir(self.scratch)
        self.addCleanup(os.chdir, cwd)

    def test_a_long_line_is_previewed_from_the_file_at_ripgreps_offset(self):
        before = "first line\n"
        line = "x" * 5000 + "NEEDLE" + "y" * 5000 + "\n"
        with open("big.min.js", "w") as f:
            f.write(before + line)
        data = rg_match("./big.min.js", line, [(5000, 5006)], line_number=2, offset=len(before)) + b"\n"
        for i in range(0, len(data), 4096):
            self.search.take(data[i:i + 4096])
        self.search.end_file()
        [event] = [json.loads(x) for x in b"".join(self.search.pending).splitlines()]
        match = event["matches"][0]
        self.assertEqual((event["path"], match["line"], match["column"]), ("big.min.js", 2, 5001))
        self.assertIn("NEEDLE", match["text"])
        a, b = match["ranges"][0]
        self.assertEqual(match["text"][a:b], "NEEDLE")
        self.assertTrue(match["text"].startswith("…") and match["text"].endswith("…"))

    def test_a_long_line_is_never_kept_whole(self):
        line = "x" * 500000 + "\n"
        data = rg_match("gone.js", line, [(0, 1)]) + b"\n"
        self.search.take(data[:300000])
        self.assertIsNotNone(self.search.long)
        self.assertLessEqual(len(self.search.long.head), self.search.HEAD)
        self.assertEqual(len(self.search.buf), 0)
        self.search.take(data[300000:])
        self.assertIsNone(self.search.long)

    def test_a_long_line_whose_file_is_gone_is_dropped(self):
        data = rg_match("gone.js", "x" * 3000 + "\n", [(0, 1)]) + b"\n"
        for i in range(0, len(data), 512):  # as reads of ripgrep's output bring it: never a long line in one
            self.search.take(data[i:i + 512])
        self.assertEqual(self.search.results, 0)

    def test_the_tail_is_found_when_its_mark_is_split_between_chunks(self):
        long = self.search.Long(b"x" * 10)
        mark = self.search.MARK
        long.feed(b"y" * 20 + mark[:5])
        long.feed(mark[5:] + b'12,"absolute_offset":0,"submatches":[')
        self.assertTrue(long.tail.startswith(mark + b"12"))


if __name__ == "__main__":
    unittest.main()
