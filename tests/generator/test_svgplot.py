"""The SVG line-chart module: well-formed output, one line per series, points where the
axes say they are, nice ticks, byte-identical output, and clear errors on bad input."""

import math
import os
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

from aesgen import svgplot
from aesgen.svgplot import Highlight, LineChart, RefLine, Series

NS = {"svg": "http://www.w3.org/2000/svg"}
LADDER = [16, 64, 256, 1024, 8192, 1 << 20]


def chart(**kw):
    series = kw.pop("series", [Series("aesgen-vaes256", [(16, 900.0), (1024, 15000.0), (1 << 20, 19500.0)]),
                               Series("openssl", [(16, 700.0), (1024, 8000.0), (1 << 20, 9100.0)], dashed=True)])
    args = dict(title="AES-128 ecb-enc", x_title="bytes", y_title="MB/s", log2_x=True)
    args.update(kw)
    return LineChart(series, **args)


def polyline_points(root):
    return [[tuple(float(v) for v in pair.split(",")) for pair in pl.get("points").split()]
            for pl in root.iter("{http://www.w3.org/2000/svg}polyline")]


class Output(unittest.TestCase):
    def test_parses_and_has_one_line_per_series(self):
        text = chart(ref_lines=[RefLine(9000.0, "openssl 8K")], highlights=[Highlight("openssl", 1024, "x")]).render()
        root = ET.fromstring(text.encode())
        self.assertEqual(root.tag, "{http://www.w3.org/2000/svg}svg")
        lines = root.findall(".//svg:polyline[@class='series-line']", NS)
        self.assertEqual(len(lines), 2)
        self.assertEqual(len(root.findall(".//svg:line[@class='ref-line']", NS)), 1)
        self.assertEqual(len(root.findall(".//svg:g[@class='highlight']", NS)), 1)
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        for label in ("aesgen-vaes256", "openssl", "openssl 8K", "AES-128 ecb-enc", "bytes", "MB/s"):
            self.assertIn(label, texts)

    def test_dashed_series_and_distinct_styles(self):
        root = ET.fromstring(chart().render().encode())
        solid, dashed = root.findall(".//svg:polyline[@class='series-line']", NS)
        self.assertIsNone(solid.get("stroke-dasharray"))
        self.assertIsNotNone(dashed.get("stroke-dasharray"))
        c = chart()
        styles = [c.style(i) for i in range(math.lcm(len(svgplot.PALETTE), len(svgplot.MARKERS)))]
        self.assertEqual(len(set(styles)), len(styles), "colour and marker pairs repeat too early")
        # A fixed style slot wins over the position.
        root = ET.fromstring(chart(series=[Series("late", [(16, 1.0)], style=5)]).render().encode())
        self.assertEqual(root.find(".//svg:polyline", NS).get("stroke"), svgplot.PALETTE[5])

    def test_text_is_escaped(self):
        text = chart(series=[Series('a<b & "c"', [(16, 1.0), (64, 2.0)])], title="x < y").render()
        root = ET.fromstring(text.encode())
        self.assertEqual(root.find("svg:title", NS).text, "x < y")
        self.assertEqual(root.find(".//svg:g[@class='series']", NS).get("data-name"), 'a<b & "c"')

    def test_byte_identical_across_runs_and_processes(self):
        a, b = chart().render(), chart().render()
        self.assertEqual(a, b)
        self.assertNotIn("\r", a)
        self.assertTrue(a.endswith("</svg>\n"))
        code = ("from aesgen.svgplot import *; import sys; sys.stdout.write(LineChart("
                "[Series('s', [(16, 1.5), (8192, 2.25)]), Series('t', [(64, 3.0)])], title='t', x_title='x', "
                "y_title='y', log2_x=True, ref_lines=[RefLine(2.0, 'r')]).render())")
        outs = set()
        for seed in ("1", "2"):
            env = dict(os.environ, PYTHONHASHSEED=seed,
                       PYTHONPATH=str(Path(svgplot.__file__).resolve().parents[1]))
            outs.add(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                    capture_output=True, text=True).stdout)
        self.assertEqual(len(outs), 1)


class Geometry(unittest.TestCase):
    def test_log2_points_land_on_the_expected_pixels(self):
        c = chart(series=[Series("s", [(16, 0.0), (1024, 50.0), (65536, 100.0)])], plot_width=500, plot_height=300)
        self.assertEqual(c.y_ticks, [0.0, 20.0, 40.0, 60.0, 80.0, 100.0])
        left, right = svgplot.LEFT + svgplot.X_PAD, svgplot.LEFT + 500 - svgplot.X_PAD
        top, bottom = svgplot.TOP, svgplot.TOP + 300
        # log2: 16 -> 4, 1024 -> 10, 65536 -> 16, so 1024 is halfway.
        expected = [(left, bottom), ((left + right) / 2, (top + bottom) / 2), (right, top)]
        got = polyline_points(ET.fromstring(c.render().encode()))[0]
        for (gx, gy), (ex, ey) in zip(got, expected):
            self.assertAlmostEqual(gx, ex, places=2)
            self.assertAlmostEqual(gy, ey, places=2)

    def test_linear_axis_and_unsorted_input(self):
        c = chart(series=[Series("s", [(8, 10.0), (2, 5.0), (4, 0.0)])], log2_x=False, plot_width=400,
                  x_ticks=[2, 4, 8])
        self.assertEqual((c.x_lo, c.x_hi), (2, 8))
        xs = [x for x, _ in polyline_points(ET.fromstring(c.render().encode()))[0]]
        width = 400 - 2 * svgplot.X_PAD
        self.assertEqual(xs, [round(svgplot.LEFT + svgplot.X_PAD + f * width, 2) for f in (0, 1 / 3, 1)])

    def test_reference_line_extends_the_y_range(self):
        c = chart(series=[Series("s", [(1, 10.0), (2, 20.0)])], ref_lines=[RefLine(95.0, "peer")])
        self.assertEqual(c.y_ticks[-1], 100.0)
        self.assertAlmostEqual(c.y_px(95.0), svgplot.TOP + c.plot_height * 0.05)

    def test_highlight_labels_stay_inside_the_plot_and_off_the_line(self):
        c = chart(series=[Series("s", [(1, 20.0), (2, 60.0), (4, 100.0), (8, 99.0)])], log2_x=True,
                  highlights=[Highlight("s", 1, "knee: x1"), Highlight("s", 4, "winner: x4")])
        root = ET.fromstring(c.render().encode())
        segments = c._obstacles()
        for g in root.findall(".//svg:g[@class='highlight']", NS):
            text = g.find("svg:text", NS)
            x, y, width = float(text.get("x")), float(text.get("y")), len(text.text) * (svgplot.CHAR_WIDTH + 0.6)
            x0 = {"start": x, "middle": x - width / 2, "end": x - width}[text.get("text-anchor")]
            box = (x0, y - 11, x0 + width, y + 3)
            self.assertTrue(svgplot.LEFT <= box[0] and box[2] <= svgplot.LEFT + c.plot_width, (text.text, box))
            self.assertTrue(svgplot.TOP <= box[1] and box[3] <= svgplot.TOP + c.plot_height, (text.text, box))
            self.assertFalse(any(svgplot._segment_hits_box(s, box) for s in segments), text.text)

    def test_single_x_value_is_centred(self):
        c = chart(series=[Series("s", [(8, 1.0)])])
        self.assertAlmostEqual(c.x_px(8), svgplot.LEFT + c.plot_width / 2)


class Ticks(unittest.TestCase):
    def test_nice_ticks(self):
        self.assertEqual(svgplot.nice_ticks(0, 19332.5), [0, 5000, 10000, 15000, 20000])
        self.assertEqual(svgplot.nice_ticks(0, 0.37), [0, 0.1, 0.2, 0.3, 0.4])
        self.assertEqual(svgplot.nice_ticks(0, 7), [0, 2, 4, 6, 8])
        self.assertEqual(svgplot.nice_ticks(0, 0), [0, 0.2, 0.4, 0.6, 0.8, 1.0])
        for hi in (0.003, 1, 9.99, 123, 4567, 98765.4, 3e9):
            ticks = svgplot.nice_ticks(0, hi)
            step = ticks[1] - ticks[0]
            mantissa = step / 10 ** math.floor(math.log10(step))
            self.assertTrue(any(math.isclose(mantissa, m) for m in (1, 2, 5)), (hi, ticks))
            self.assertLessEqual(len(ticks), 6)
            self.assertGreaterEqual(ticks[-1], hi)
            self.assertLess(ticks[-1] - hi, step + 1e-9 * hi)

    def test_byte_labels_and_default_log_ticks(self):
        self.assertEqual([svgplot.format_bytes(x) for x in LADDER], ["16", "64", "256", "1K", "8K", "1M"])
        self.assertEqual(svgplot.format_bytes(1536), "1536")
        c = chart()
        self.assertEqual([c.x_format(t) for t in c.x_ticks],
                         ["16", "64", "256", "1K", "4K", "16K", "64K", "256K", "1M"])
        c = chart(x_ticks=LADDER)
        labels = [t.text for t in ET.fromstring(c.render().encode()).iter("{http://www.w3.org/2000/svg}text")]
        for label in ("16", "64", "256", "1K", "8K", "1M"):
            self.assertIn(label, labels)


class BadInput(unittest.TestCase):
    def check(self, pattern, **kw):
        with self.assertRaisesRegex(ValueError, pattern):
            chart(**kw)

    def test_errors(self):
        self.check("at least one series", series=[])
        self.check("'s' has no points", series=[Series("s", [])])
        self.check("x=0 cannot go on a log2 axis", series=[Series("s", [(0, 1.0), (16, 2.0)])])
        self.check("x=-16 cannot go on a log2 axis", series=[Series("s", [(-16, 1.0)])])
        self.check("not finite", series=[Series("s", [(16, float("nan"))])])
        self.check("not finite", series=[Series("s", [(float("inf"), 1.0)])])
        self.check("two series are named 's'", series=[Series("s", [(16, 1.0)]), Series("s", [(32, 1.0)])])
        self.check("no point at x=32", highlights=[Highlight("openssl", 32)])
        self.check("style must be a non-negative integer", series=[Series("s", [(16, 1.0)], style=-1)])
        self.check("reference line 'r'", ref_lines=[RefLine(float("nan"), "r")])
        self.check("outside the data range", x_ticks=[8])
        with self.assertRaisesRegex(ValueError, "bad range"):
            svgplot.nice_ticks(1, float("nan"))


if __name__ == "__main__":
    unittest.main()
