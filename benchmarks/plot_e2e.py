#!/usr/bin/env python3
"""Plots of the end-to-end benchmark's outputs (benchmarks/results/e2e/), as PNG.

  benchmarks/plot_e2e.py lag RUN-lag.csv [MORE-lag.csv ...] -o lag.png
      consumer lag (samples produced but not yet stored) and the stored rate over time, per run
  benchmarks/plot_e2e.py throughput RUN.json [MORE.json ...] -o throughput.png
      drain rate (max samples/s) against the number of active series, one point per run

Needs matplotlib (pip install -r benchmarks/requirements.txt).
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def read_lag(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "lag_samples" not in rows[0]:
        raise SystemExit(f"{path}: not a lag CSV of the e2e benchmark (no lag_samples column)")
    return rows


def label_of(path):
    name = os.path.basename(path)
    for suffix in ("-lag.csv", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def plot_lag(paths, out):
    fig, (lag_ax, rate_ax) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for path in paths:
        rows = read_lag(path)
        t = [float(r["elapsed_s"]) for r in rows]
        label = label_of(path)
        lag_ax.plot(t, [int(r["lag_samples"]) for r in rows], label=label)
        rate_ax.plot(t, [float(r["ingest_samples_per_s"]) for r in rows], label=label)
        # shade the sustained phase of the run
        sustain = [x for x, r in zip(t, rows) if r["phase"] == "sustain"]
        if sustain:
            for ax in (lag_ax, rate_ax):
                ax.axvspan(min(sustain) - 1, max(sustain), color="grey", alpha=0.08)
    lag_ax.set_ylabel("lag (samples not yet stored)")
    lag_ax.set_title("Consumer lag over time (shaded: sustained-rate phase; before it: draining the pre-filled topic)")
    rate_ax.set_ylabel("stored samples/s")
    rate_ax.set_xlabel("seconds since the service started")
    for ax in (lag_ax, rate_ax):
        ax.grid(alpha=0.3)
        ax.ticklabel_format(axis="y", style="plain")
    lag_ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def plot_throughput(paths, out):
    points = []
    for path in paths:
        with open(path) as f:
            r = json.load(f)
        points.append((r["activeSeries"], r["drain"]["samplesPerSecond"], r.get("sustain", {}), r["preset"], r["loadAverage"]))
    points.sort()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label="drain (max rate)")
    for series, rate, _, preset, load in points:
        ax.annotate(f"{preset}\nload {load.split()[0]}", (series, rate), fontsize=7, textcoords="offset points", xytext=(4, 4))
    sustained = [(p[0], p[2]["samplesPerSecond"]) for p in points if p[2].get("samples", 0) > 0]
    if sustained:
        ax.plot([s[0] for s in sustained], [s[1] for s in sustained], marker="s", linestyle="none", label="sustained (target rate)")
    ax.set_xscale("log")
    ax.set_xlabel("active series")
    ax.set_ylabel("stored samples/s")
    ax.set_title("Throughput vs. series count (end-to-end, 2 cores shared with the broker)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["lag", "throughput"])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    (plot_lag if args.kind == "lag" else plot_throughput)(args.inputs, args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main(sys.argv[1:])
