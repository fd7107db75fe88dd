#!/usr/bin/env python3
"""Which methods the JIT spent its time on, from a HotSpot compilation log.

    ./sluice bench replay --replay-only ... --child-jvm-option=-XX:+UnlockDiagnosticVMOptions \
        --child-jvm-option=-XX:+LogCompilation --child-jvm-option=-XX:LogFile=/tmp/jit.xml
    benchmarks/jit_compiles.py /tmp/jit.xml [--top 25] [--match io.sluice]

Prints the time per tier (C1 = levels 1-3, C2 = level 4), then the longest compiles: milliseconds,
tier, bytecode bytes, inlined bytes, code size and the method. A compile's time is the distance between
its <task> and <task_done> stamps in its compiler thread's log: elapsed time, so on a loaded machine it
includes the time the compiler thread waited for a core (compare runs at the same load). The stamps have
millisecond resolution: compiles under 1 ms show as 0.
"""
import argparse
import collections
import re
import sys

ATTR = re.compile(r"(\w+)='([^']*)'")


def compiles(path):
    """Yields one dict per finished compile: method, level, osr, ms, bytes, inlined, nmsize, success."""
    task = None
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            if line.startswith("<task "):
                task = dict(ATTR.findall(line))
            elif line.startswith("<task_done") and task is not None:
                done = dict(ATTR.findall(line))
                yield {
                    "method": task.get("method", "?"),
                    "level": int(task.get("level", "4")),
                    "osr": task.get("compile_kind") == "osr",
                    "start_s": float(task["stamp"]),
                    "ms": (float(done["stamp"]) - float(task["stamp"])) * 1000.0,
                    "bytes": int(task.get("bytes", "0")),
                    "inlined": int(done.get("inlined_bytes", "0")),
                    "nmsize": int(done.get("nmsize", "0")),
                    "success": done.get("success") == "1",
                }
                task = None


def short(method):
    """'io.sluice.core.head.shard.Shard append (JJD)V' -> 'io.sluice.core.head.shard.Shard.append(JJD)V'"""
    parts = method.split(" ")
    return parts[0] + "." + parts[1] + (parts[2] if len(parts) > 2 else "") if len(parts) >= 2 else method


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--match", default="", help="only methods whose name contains this (e.g. io.sluice)")
    args = parser.parse_args()
    all_compiles = list(compiles(args.log))
    if not all_compiles:
        sys.exit(f"jit_compiles: no <task>/<task_done> pairs in {args.log} (was it written with -XX:+LogCompilation?)")
    tiers = collections.defaultdict(lambda: [0, 0.0])
    for c in all_compiles:
        tier = "C2" if c["level"] == 4 else "C1"
        tiers[tier][0] += 1
        tiers[tier][1] += c["ms"]
    last_s = max(c["start_s"] for c in all_compiles)
    print(f"{len(all_compiles)} compiles, the last started at {last_s:.2f} s; "
          + ", ".join(f"{t}: {n} compiles {ms / 1000:.2f} s" for t, (n, ms) in sorted(tiers.items())))
    chosen = [c for c in all_compiles if args.match in c["method"]]
    if args.match:
        print(f"matching '{args.match}': {len(chosen)} compiles, {sum(c['ms'] for c in chosen) / 1000:.2f} s, "
              f"C2 {sum(c['ms'] for c in chosen if c['level'] == 4) / 1000:.2f} s")
    print(f"{'ms':>7} {'tier':>4} {'at s':>6} {'bytes':>6} {'inlined':>7} {'code':>7}  method")
    for c in sorted(chosen, key=lambda c: -c["ms"])[:args.top]:
        tier = ("C2" if c["level"] == 4 else f"C1/{c['level']}") + ("%" if c["osr"] else "")
        failed = "" if c["success"] else "  (failed)"
        print(f"{c['ms']:7.0f} {tier:>4} {c['start_s']:6.2f} {c['bytes']:6d} {c['inlined']:7d} {c['nmsize']:7d}  "
              f"{short(c['method'])}{failed}")


if __name__ == "__main__":
    main()
