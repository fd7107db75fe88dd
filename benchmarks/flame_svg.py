#!/usr/bin/env python3
"""Renders async-profiler's collapsed stacks ("frame;frame;frame count" per line) as a static
flame-graph SVG: small enough to commit and shown by any browser or Markdown viewer, unlike the
interactive HTML. Frames narrower than --min-percent of all samples are left out.

  benchmarks/flame_svg.py collapsed.txt -o docs/flamegraphs/x.svg --title "..."
  benchmarks/flame_svg.py collapsed.txt -o x.png     # the same as PNG (needs matplotlib)
"""
import argparse
import html
import sys
import zlib

ROW_PX = 16
WIDTH_PX = 1200


def read(path):
    root = {"n": 0, "kids": {}}
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            root["n"] += n
            node = root
            for frame in stack.split(";"):
                node = node["kids"].setdefault(frame, {"n": 0, "kids": {}})
                node["n"] += n
    return root


def color(frame):
    """Java frames green, native (C/C++) red-orange, kernel orange, inlined/interpreted blue-ish."""
    h = zlib.crc32(frame.encode()) % 40
    if frame.endswith("_[k]"):
        return f"rgb({220 + h // 4},{120 + h},40)"
    if frame.endswith("_[i]") or frame.endswith("_[0]"):
        return f"rgb(60,{150 + h},{200 + h // 2})"
    if "::" in frame or frame.startswith("__") or "/" not in frame and "." not in frame:
        return f"rgb({200 + h},{80 + h},60)"
    return f"rgb({50 + h},{170 + h},{50 + h // 2})"


def layout(root, min_percent):
    """(x, depth, width, frame, samples) per frame drawn, and the deepest depth."""
    min_n = root["n"] * min_percent / 100
    rects = []
    depth_max = [0]

    def walk(node, name, x, depth):
        w = node["n"] / root["n"] * WIDTH_PX
        depth_max[0] = max(depth_max[0], depth)
        if name is not None:
            rects.append((x, depth, w, name, node["n"]))
        cx = x
        for kid_name, kid in sorted(node["kids"].items()):
            if kid["n"] >= min_n:
                walk(kid, kid_name, cx, depth + 1)
            cx += kid["n"] / root["n"] * WIDTH_PX

    walk(root, None, 0, 0)
    return rects, depth_max[0]


def render(root, title, min_percent):
    rects, depth = layout(root, min_percent)
    height = (depth + 2) * ROW_PX + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH_PX}" height="{height}" font-family="monospace" font-size="11">',
           f'<rect width="100%" height="100%" fill="#fdfdf6"/>',
           f'<text x="6" y="18" font-size="14">{html.escape(title)} ({root["n"]:,} samples)</text>']
    for x, depth, w, name, n in rects:
        y = height - (depth + 1) * ROW_PX
        short = name.rsplit("/", 1)[-1]
        label = short if len(short) * 6.6 < w - 4 else short[: max(0, int((w - 4) / 6.6) - 2)] + ".." if w > 30 else ""
        out.append(f'<g><title>{html.escape(name)} ({n:,} samples, {n / root["n"]:.1%})</title>'
                   f'<rect x="{x:.1f}" y="{y}" width="{max(w - 0.5, 0.5):.1f}" height="{ROW_PX - 1}" fill="{color(name)}"/>'
                   + (f'<text x="{x + 2:.1f}" y="{y + ROW_PX - 4}">{html.escape(label)}</text>' if label else "") + "</g>")
    out.append("</svg>")
    return "\n".join(out)


def render_png(root, title, min_percent, path):
    """The same picture as a PNG (matplotlib), for viewers that do not show SVG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rects, depth = layout(root, min_percent)
    height = (depth + 2) * ROW_PX + 30
    fig = plt.figure(figsize=(WIDTH_PX / 100, height / 100), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, WIDTH_PX)
    ax.set_ylim(height, 0)
    ax.axis("off")
    ax.text(6, 18, f"{title} ({root['n']:,} samples)", fontsize=10, family="monospace", parse_math=False)
    for x, d, w, name, _ in rects:
        y = height - (d + 1) * ROW_PX
        r, g, b = (int(c) / 255 for c in color(name)[4:-1].split(","))
        ax.add_patch(matplotlib.patches.Rectangle((x, y), max(w - 0.5, 0.5), ROW_PX - 1, color=(r, g, b)))
        short = name.rsplit("/", 1)[-1]
        fit = int((w - 4) / 6.0)
        if fit >= 4:
            ax.text(x + 2, y + ROW_PX - 4, short if len(short) <= fit else short[: fit - 2] + "..", fontsize=7, family="monospace", usetex=False, parse_math=False)
    fig.savefig(path)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("collapsed")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--title", default="flame graph")
    parser.add_argument("--min-percent", type=float, default=0.2)
    args = parser.parse_args(argv)
    root = read(args.collapsed)
    if root["n"] == 0:
        raise SystemExit(f"{args.collapsed}: no collapsed stacks in it")
    if args.output.endswith(".png"):
        render_png(root, args.title, args.min_percent, args.output)
    else:
        with open(args.output, "w") as f:
            f.write(render(root, args.title, args.min_percent))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main(sys.argv[1:])
