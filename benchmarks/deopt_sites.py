#!/usr/bin/env python3
"""Deoptimizations per site (compiled method, trap bci, reason, action) from a JVM's
-Xlog:deoptimization=debug output: tells a trap storm (one compiled trap taken on every call, so the
code falls back to the interpreter each time) from the normal few dozen recompile traps.

    ./sluice bench replay --replay-only ... --child-jvm-option=-Xlog:deoptimization=debug:file=/tmp/deopt.log::filecount=0
    benchmarks/deopt_sites.py /tmp/deopt.log [--top 10] [--storm 1000]

Prints the total, then the busiest sites; exits 3 when a site deoptimized --storm times or more (a
storm: docs/design/jit.md). The log costs little when there is no storm
(~100 lines per restart); in a storm it grows by ~200 bytes per trap, hence filecount=0 (the default
keeps the last 5 x 20 MB files only).
"""
import argparse
import collections
import re
import sys

# [3.775s][debug][deoptimization] cid=1972 level=4 io.sluice...chunkStep(...)I trap_bci=168 unstable_if reinterpret pc=...
LINE = re.compile(r"cid=\s*(\d+)\s+level=(\d)\s+(\S+)\s+trap_bci=(\d+)\s+(\w+)\s+(\w+)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--storm", type=int, default=1000, help="deopts at one site that count as a storm")
    args = parser.parse_args()
    sites = collections.Counter()
    with open(args.log, encoding="utf-8", errors="replace") as log:
        for line in log:
            m = LINE.search(line)
            if m:
                cid, level, method, bci, reason, action = m.groups()
                sites[(method.split("(")[0], int(bci), reason, action, int(cid))] += 1
    total = sum(sites.values())
    print(f"{total} deoptimizations at {len(sites)} sites")
    for (method, bci, reason, action, cid), n in sites.most_common(args.top):
        print(f"{n:9d}  {method} bci={bci} {reason} action={action} (compile {cid})")
    storms = [s for s, n in sites.items() if n >= args.storm]
    if storms:
        print(f"STORM: {len(storms)} site(s) deoptimized >= {args.storm} times (action=none: the trap does not recompile)")
        sys.exit(3)


if __name__ == "__main__":
    main()
