#!/usr/bin/env python3
"""Where a JVM's CPU went, by thread group, sampled from /proc until the process exits: shard threads,
C1, C2, GC, main, other JVM threads; plus the process's page faults, the CPU kdamond/khugepaged/kswapd
took meanwhile and the machine's steal time. Written to tell a 2x-CPU outlier restart from a normal one
(docs/design/jit.md): an outlier's extra CPU shows in one group.

    benchmarks/thread_cpu.py [--json] PATTERN    waits for a java process whose command line contains PATTERN
    e.g. benchmarks/thread_cpu.py -- '--in-process' & ./sluice bench replay --replay-only ...

Samples every 20 ms; threads that end before the process (retired compiler threads, GC workers) keep
their last sample, so a group's figure is a lower bound by at most one sample interval per thread.
Prints one line (or one JSON object with --json).
"""
import json
import os
import sys
import time

from jvmproc import TICK, sample_threads, stat, wait_for_java

DAEMONS = ("kdamond", "khugepaged", "kswapd")


def group(name):
    if name.startswith("sluice-shard"):
        return "shard"
    if name.startswith("C1 CompilerThre"):
        return "c1"
    if name.startswith("C2 CompilerThre"):
        return "c2"
    if name.startswith(("GC Thread", "G1 ", "GC ")) or "Conc" in name or "Refine" in name:
        return "gc"
    if name == "java" or name == "main":
        return "main"
    return "other"


def daemon_cpu():
    total = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                name = f.read().strip()
            if name.startswith(DAEMONS):
                u, s, _, _ = stat(f"/proc/{pid}/stat")
                key = name.split(".")[0]
                total[key] = total.get(key, 0.0) + u + s
        except OSError:
            pass
    return total


def steal():
    with open("/proc/stat") as f:
        cpu = f.readline().split()
    return int(cpu[8]) / TICK


def main():
    pattern = sys.argv[-1]
    as_json = "--json" in sys.argv[1:-1]
    pid = wait_for_java(pattern, "thread_cpu")
    daemons0, steal0, start = daemon_cpu(), steal(), time.time()
    proc, threads = sample_threads(pid, 0.02)
    daemons1 = daemon_cpu()
    out = {"wall_s": round(time.time() - start, 2), "user_s": proc[0], "sys_s": proc[1],
           "minflt": proc[2], "majflt": proc[3], "steal_s": round(steal() - steal0, 2)}
    for name, u, s in threads.values():
        g = group(name)
        out[g] = round(out.get(g, 0.0) + u + s, 2)
        if g == "shard":
            out["shard_sys"] = round(out.get("shard_sys", 0.0) + s, 2)
    for k, v in daemons1.items():
        out[k] = round(v - daemons0.get(k, 0.0), 2)
    if as_json:
        print(json.dumps(out))
    else:
        print("thread_cpu: " + " ".join(f"{k}={v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
