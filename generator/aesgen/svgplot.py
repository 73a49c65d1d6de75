"""Self-contained SVG line charts from the standard library (no matplotlib on the machines).

    chart = LineChart([Series("aesgen-vaes256", [(16, 900.0), (8192, 19000.0)])],
                      title="AES-128 ecb-enc", x_title="message bytes", y_title="MB/s", log2_x=True)
    svg_text = chart.render()

Output is deterministic: no dates or ids, floats rounded to two decimals, LF line
endings, series drawn in the order given. Colours are the Okabe-Ito palette (safe for
the common colour-vision deficiencies) with a neutral grey; each series also gets its
own marker shape, so a series can be told apart without colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence
from xml.sax.saxutils import escape

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#7F7F7F")
MARKERS = ("circle", "square", "triangle", "diamond", "triangle-down", "plus")

# Layout in pixels. The plot box starts at (LEFT, TOP); data is inset by X_PAD on both
# sides so markers at the ends of the x range are not cut by the axis.
LEFT, TOP, BOTTOM = 76, 56, 58
X_PAD = 12
LEGEND_GAP, LEGEND_ROW, LEGEND_SAMPLE = 18, 18, 26
CHAR_WIDTH = 7.0  # estimate for 12 px sans-serif; only sizes the legend column
MARKER_R = 4.0


@dataclass(frozen=True)
class Series:
    name: str
    points: Sequence[tuple[float, float]]
    dashed: bool = False  # e.g. peers drawn dashed next to solid aesgen backends
    style: int | None = None  # colour/marker slot; default its position. Fix it to keep
    # one implementation's look across charts where some series are missing.


@dataclass(frozen=True)
class Highlight:
    """A ring around one point of a series, with a short label next to it."""
    series: str
    x: float
    label: str = ""


@dataclass(frozen=True)
class RefLine:
    """A dashed horizontal line across the plot (e.g. OpenSSL's throughput), in the legend."""
    y: float
    label: str
    color: str = "#444444"


def _num(v: float) -> str:
    """Stable coordinate text: two decimals at most, no trailing zeros, no '-0'."""
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _attr(s: str) -> str:
    return escape(s, {'"': "&quot;"})


def nice_ticks(lo: float, hi: float, max_ticks: int = 6) -> list[float]:
    """Ticks at 1, 2 or 5 times a power of ten covering [lo, hi], at most max_ticks of them."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise ValueError(f"nice_ticks: bad range [{lo}, {hi}]")
    if max_ticks < 2:
        raise ValueError("nice_ticks: need room for at least two ticks")
    if lo == hi:
        # A flat series still needs a non-empty axis.
        lo, hi = (lo - 1, hi + 1) if lo else (0.0, 1.0)
    raw = (hi - lo) / (max_ticks - 1)
    exp = math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        step = mult * 10.0 ** exp
        first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
        if last - first + 1 <= max_ticks:
            break
    digits = max(0, -math.floor(math.log10(step) + 1e-9))
    return [round(i * step, digits) for i in range(first, last + 1)]


def format_tick(v: float) -> str:
    """Tick label: integers as integers, others with the digits they need."""
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.6g}"


def format_bytes(v: float) -> str:
    """16, 64, 256, 1K, 8K, 1M: binary suffixes for whole multiples of 1024."""
    n = int(v)
    if n == v:
        for suffix, unit in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
            if n >= unit and n % unit == 0:
                return f"{n // unit}{suffix}"
    return format_tick(v)


def _marker(shape: str, x: float, y: float, color: str, tooltip: str = "", r: float = MARKER_R) -> str:
    """One marker element; a tooltip becomes a <title> child (shown on hover in browsers)."""
    style = f'fill="{color}" stroke="{color}"'
    if shape == "circle":
        tag, attrs = "circle", f'cx="{_num(x)}" cy="{_num(y)}" r="{_num(r)}" {style}'
    elif shape == "square":
        s = r * 0.9
        tag, attrs = "rect", f'x="{_num(x - s)}" y="{_num(y - s)}" width="{_num(2 * s)}" height="{_num(2 * s)}" {style}'
    elif shape == "plus":
        d = f"M{_num(x - r)} {_num(y)}H{_num(x + r)}M{_num(x)} {_num(y - r)}V{_num(y + r)}"
        tag, attrs = "path", f'd="{d}" fill="none" stroke="{color}" stroke-width="2"'
    else:
        pts = {"triangle": ((0, -1.2), (1.1, 0.8), (-1.1, 0.8)),
               "triangle-down": ((0, 1.2), (1.1, -0.8), (-1.1, -0.8)),
               "diamond": ((0, -1.3), (1.3, 0), (0, 1.3), (-1.3, 0))}[shape]
        d = "M" + "L".join(f"{_num(x + dx * r)} {_num(y + dy * r)}" for dx, dy in pts) + "Z"
        tag, attrs = "path", f'd="{d}" {style}'
    if tooltip:
        return f"<{tag} {attrs}><title>{escape(tooltip)}</title></{tag}>"
    return f"<{tag} {attrs}/>"


def _boxes_overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _segment_hits_box(seg, box) -> bool:
    """Liang-Barsky: does the segment (x1, y1, x2, y2) pass through the box (left, top, right, bottom)?"""
    x1, y1, x2, y2 = seg
    dx, dy = x2 - x1, y2 - y1
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x1 - box[0]), (dx, box[2] - x1), (-dy, y1 - box[1]), (dy, box[3] - y1)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


class LineChart:
    """One chart: validates its input on construction, `render()` returns the SVG text."""

    def __init__(self, series: Iterable[Series], *, title: str, x_title: str, y_title: str,
                 subtitle: str = "", log2_x: bool = False, x_ticks: Sequence[float] | None = None,
                 x_format: Callable[[float], str] | None = None, highlights: Sequence[Highlight] = (),
                 ref_lines: Sequence[RefLine] = (), plot_width: int = 560, plot_height: int = 320):
        self.series = list(series)
        self.title, self.subtitle, self.x_title, self.y_title = title, subtitle, x_title, y_title
        self.log2_x = log2_x
        self.x_format = x_format or (format_bytes if log2_x else format_tick)
        self.highlights, self.ref_lines = list(highlights), list(ref_lines)
        self.plot_width, self.plot_height = plot_width, plot_height
        self._validate()
        xs = [x for s in self.series for x, _ in s.points]
        ys = [y for s in self.series for _, y in s.points] + [r.y for r in self.ref_lines]
        self.y_ticks = nice_ticks(min(0.0, min(ys)), max(ys))
        self.y_lo, self.y_hi = self.y_ticks[0], self.y_ticks[-1]
        if log2_x:
            self.x_lo, self.x_hi = min(xs), max(xs)
            self.x_ticks = list(x_ticks) if x_ticks is not None else self._log2_ticks()
        else:
            auto = nice_ticks(min(xs), max(xs), 8)
            self.x_lo, self.x_hi = (min(xs), max(xs)) if x_ticks is not None else (auto[0], auto[-1])
            self.x_ticks = list(x_ticks) if x_ticks is not None else auto
        for t in self.x_ticks:
            if not (math.isfinite(t) and self.x_lo <= t <= self.x_hi):
                raise ValueError(f"x tick {t} is outside the data range [{self.x_lo}, {self.x_hi}]")

    def _validate(self) -> None:
        if not self.series:
            raise ValueError("a chart needs at least one series")
        names = set()
        for s in self.series:
            if not s.points:
                raise ValueError(f"series '{s.name}' has no points")
            if s.style is not None and (not isinstance(s.style, int) or s.style < 0):
                raise ValueError(f"series '{s.name}': style must be a non-negative integer")
            if s.name in names:
                raise ValueError(f"two series are named '{s.name}'")
            names.add(s.name)
            for x, y in s.points:
                if not (math.isfinite(x) and math.isfinite(y)):
                    raise ValueError(f"series '{s.name}': point ({x}, {y}) is not finite")
                if self.log2_x and x <= 0:
                    raise ValueError(f"series '{s.name}': x={x} cannot go on a log2 axis (must be > 0)")
        for r in self.ref_lines:
            if not math.isfinite(r.y):
                raise ValueError(f"reference line '{r.label}': y={r.y} is not finite")
        for h in self.highlights:
            match = [s for s in self.series if s.name == h.series]
            if not match or all(x != h.x for x, _ in match[0].points):
                raise ValueError(f"highlight: series '{h.series}' has no point at x={h.x}")

    def _log2_ticks(self) -> list[float]:
        lo, hi = math.ceil(math.log2(self.x_lo) - 1e-9), math.floor(math.log2(self.x_hi) + 1e-9)
        if hi < lo:
            return [self.x_lo]
        stride = 1
        while (hi - lo) // stride + 1 > 10:
            stride += 1
        return [2.0 ** e for e in range(lo, hi + 1, stride)]

    # -- geometry (public so tests can check where points land) --

    def x_px(self, x: float) -> float:
        left, width = LEFT + X_PAD, self.plot_width - 2 * X_PAD
        if self.x_hi == self.x_lo:
            return left + width / 2
        if self.log2_x:
            frac = (math.log2(x) - math.log2(self.x_lo)) / (math.log2(self.x_hi) - math.log2(self.x_lo))
        else:
            frac = (x - self.x_lo) / (self.x_hi - self.x_lo)
        return left + frac * width

    def y_px(self, y: float) -> float:
        return TOP + self.plot_height * (1 - (y - self.y_lo) / (self.y_hi - self.y_lo))

    def style(self, index: int) -> tuple[str, str]:
        """(colour, marker) of the series at index: both cycle, so neighbours differ in both."""
        return PALETTE[index % len(PALETTE)], MARKERS[index % len(MARKERS)]

    # -- label placement --

    # Where a highlight's label may go, relative to its point: (text-anchor, dx, dy of the
    # baseline). Tried in order; the first that stays inside the plot and clear of every
    # line, marker and earlier label wins.
    LABEL_SPOTS = (("middle", 0, -15), ("middle", 0, 24), ("start", 14, 4), ("end", -14, 4),
                   ("start", 13, -11), ("end", -13, -11), ("start", 13, 21), ("end", -13, 21))

    def _obstacles(self) -> list[tuple[float, float, float, float]]:
        """Series segments and reference lines in pixels, as (x1, y1, x2, y2)."""
        segs = []
        for s in self.series:
            pts = [(self.x_px(x), self.y_px(y)) for x, y in sorted(s.points)]
            segs += [(a[0], a[1], b[0], b[1]) for a, b in zip(pts, pts[1:])]
            segs += [(x - MARKER_R, y, x + MARKER_R, y) for x, y in pts]
        for r in self.ref_lines:
            y = self.y_px(r.y)
            segs.append((LEFT, y, LEFT + self.plot_width, y))
        return segs

    def _label_position(self, cx: float, cy: float, label: str, placed: list) -> tuple:
        width = len(label) * (CHAR_WIDTH + 0.6)  # bold
        inside = (LEFT + 2, TOP + 2, LEFT + self.plot_width - 2, TOP + self.plot_height - 2)
        segs = self._obstacles()
        first_inside = None
        for anchor, dx, dy in self.LABEL_SPOTS:
            x, y = cx + dx, cy + dy
            x0 = x - {"start": 0, "middle": width / 2, "end": width}[anchor]
            box = (x0, y - 11, x0 + width, y + 3)
            if not (inside[0] <= box[0] and box[2] <= inside[2] and inside[1] <= box[1] and box[3] <= inside[3]):
                continue
            first_inside = first_inside or (anchor, x, y, box)
            if not any(_segment_hits_box(seg, box) for seg in segs) and not any(_boxes_overlap(box, b) for b in placed):
                return anchor, x, y, box
        if first_inside:
            return first_inside
        anchor, dx, dy = self.LABEL_SPOTS[0]
        return anchor, cx + dx, cy + dy, (cx - width / 2, cy + dy - 11, cx + width / 2, cy + dy + 3)

    # -- rendering --

    def render(self) -> str:
        pw, ph = self.plot_width, self.plot_height
        bottom = TOP + ph
        labels = [s.name for s in self.series] + [r.label for r in self.ref_lines]
        legend_x = LEFT + pw + LEGEND_GAP
        legend_w = LEGEND_SAMPLE + 8 + CHAR_WIDTH * max(len(t) for t in labels) + 8
        width = math.ceil(legend_x + legend_w)
        height = max(bottom + BOTTOM, TOP + 8 + LEGEND_ROW * len(labels) + 8)
        out = ['<?xml version="1.0" encoding="UTF-8"?>',
               f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif" '
               f'font-size="12">',
               f"<title>{escape(self.title)}</title>",
               f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
               f'<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{escape(self.title)}</text>']
        if self.subtitle:
            out.append(f'<text x="{LEFT}" y="40" font-size="11" fill="#555555">{escape(self.subtitle)}</text>')

        out.append('<g class="grid" stroke="#e3e3e3" stroke-width="1">')
        for t in self.y_ticks:
            y = _num(self.y_px(t))
            out.append(f'<line x1="{LEFT}" y1="{y}" x2="{LEFT + pw}" y2="{y}"/>')
        for t in self.x_ticks:
            x = _num(self.x_px(t))
            out.append(f'<line x1="{x}" y1="{TOP}" x2="{x}" y2="{bottom}"/>')
        out.append("</g>")

        out.append('<g class="axes">')
        out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333333"/>')
        for t in self.y_ticks:
            out.append(f'<text x="{LEFT - 6}" y="{_num(self.y_px(t) + 4)}" text-anchor="end">'
                       f"{escape(format_tick(t))}</text>")
        for t in self.x_ticks:
            out.append(f'<text x="{_num(self.x_px(t))}" y="{bottom + 16}" text-anchor="middle">'
                       f"{escape(self.x_format(t))}</text>")
        out.append(f'<text x="{_num(LEFT + pw / 2)}" y="{bottom + 40}" text-anchor="middle">'
                   f"{escape(self.x_title)}</text>")
        ymid = _num(TOP + ph / 2)
        out.append(f'<text x="18" y="{ymid}" text-anchor="middle" transform="rotate(-90 18 {ymid})">'
                   f"{escape(self.y_title)}</text>")
        out.append("</g>")

        for r in self.ref_lines:
            y = _num(self.y_px(r.y))
            out.append(f'<line class="ref-line" x1="{LEFT}" y1="{y}" x2="{LEFT + pw}" y2="{y}" '
                       f'stroke="{r.color}" stroke-width="1.5" stroke-dasharray="6 4"/>')

        for i, s in enumerate(self.series):
            color, shape = self.style(i if s.style is None else s.style)
            pts = sorted(s.points)
            dash = ' stroke-dasharray="5 3"' if s.dashed else ""
            out.append(f'<g class="series" data-name="{_attr(s.name)}">')
            coords = " ".join(f"{_num(self.x_px(x))},{_num(self.y_px(y))}" for x, y in pts)
            out.append(f'<polyline class="series-line" points="{coords}" fill="none" stroke="{color}" '
                       f'stroke-width="2"{dash}/>')
            for x, y in pts:
                out.append(_marker(shape, self.x_px(x), self.y_px(y), color,
                                   tooltip=f"{s.name}: {self.x_format(x)}, {y:.1f}"))
            out.append("</g>")

        placed: list[tuple[float, float, float, float]] = []  # label boxes so far
        for h in self.highlights:
            y_val = next(y for x, y in next(s for s in self.series if s.name == h.series).points if x == h.x)
            cx, cy = self.x_px(h.x), self.y_px(y_val)
            out.append(f'<g class="highlight"><circle cx="{_num(cx)}" cy="{_num(cy)}" r="9" fill="none" '
                       f'stroke="#000000" stroke-width="2"/>')
            if h.label:
                anchor, tx, ty, box = self._label_position(cx, cy, h.label, placed)
                placed.append(box)
                out.append(f'<text x="{_num(tx)}" y="{_num(ty)}" text-anchor="{anchor}" '
                           f'font-weight="bold">{escape(h.label)}</text>')
            out.append("</g>")

        out.append('<g class="legend">')
        row_y = TOP + 8 + LEGEND_ROW / 2
        for i, s in enumerate(self.series):
            color, shape = self.style(i if s.style is None else s.style)
            dash = ' stroke-dasharray="5 3"' if s.dashed else ""
            out.append(f'<line x1="{legend_x}" y1="{_num(row_y)}" x2="{legend_x + LEGEND_SAMPLE}" '
                       f'y2="{_num(row_y)}" stroke="{color}" stroke-width="2"{dash}/>')
            out.append(_marker(shape, legend_x + LEGEND_SAMPLE / 2, row_y, color))
            out.append(f'<text x="{legend_x + LEGEND_SAMPLE + 8}" y="{_num(row_y + 4)}">{escape(s.name)}</text>')
            row_y += LEGEND_ROW
        for r in self.ref_lines:
            out.append(f'<line x1="{legend_x}" y1="{_num(row_y)}" x2="{legend_x + LEGEND_SAMPLE}" '
                       f'y2="{_num(row_y)}" stroke="{r.color}" stroke-width="1.5" stroke-dasharray="6 4"/>')
            out.append(f'<text x="{legend_x + LEGEND_SAMPLE + 8}" y="{_num(row_y + 4)}">{escape(r.label)}</text>')
            row_y += LEGEND_ROW
        out.append("</g>")
        out.append("</svg>")
        return "\n".join(out) + "\n"


def line_chart(series: Iterable[Series], **kwargs) -> str:
    """Shorthand for LineChart(series, **kwargs).render()."""
    return LineChart(series, **kwargs).render()
