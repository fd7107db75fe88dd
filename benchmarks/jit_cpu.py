#!/usr/bin/env python3
"""CPU seconds of a running JVM's JIT compiler threads (C1, C2) against the whole process, sampled from
/proc until the process exits: the CPU the JIT costs, which -XX:+CITime (elapsed time per compile,
inflated by a loaded machine) does not give.

    benchmarks/jit_cpu.py PATTERN        waits for a process whose command line contains PATTERN
    e.g. benchmarks/jit_cpu.py -- '--in-process' & ./sluice bench replay --replay-only ...

Samples every 50 ms; the JVM may retire idle compiler threads (UseDynamicNumberOfCompilerThreads), so
each thread's last sample is kept. Prints one line: process CPU-s, C1 CPU-s, C2 CPU-s, their share.
"""
import os
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def find(pattern, self_pid):
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == self_pid:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if pattern in cmd and "java" in cmd and "jit_cpu.py" not in cmd and "/usr/bin/time" not in cmd.split(" ")[0]:
            return pid
    return None


def cpu(path):
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def main():
    pattern = sys.argv[-1]
    deadline = time.time() + 600
    pid = None
    while pid is None and time.time() < deadline:
        pid = find(pattern, os.getpid())
        time.sleep(0.02)
    if pid is None:
        sys.exit(f"jit_cpu: no java process with '{pattern}' within 600 s")
    threads, total = {}, 0.0
    while True:
        try:
            total = cpu(f"/proc/{pid}/stat")
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{tid}/comm") as f:
                        name = f.read().strip()
                    if "CompilerThre" in name:
                        threads[tid] = (name[:2], cpu(f"/proc/{pid}/task/{tid}/stat"))
                except OSError:
                    pass
        except OSError:
            break
        time.sleep(0.05)
    c1 = sum(t for n, t in threads.values() if n == "C1")
    c2 = sum(t for n, t in threads.values() if n == "C2")
    share = (c1 + c2) / total * 100 if total else 0
    print(f"jit_cpu: process {total:.2f} CPU-s (until its last sample), C1 {c1:.2f}, C2 {c2:.2f} "
          f"({share:.1f} % in the JIT, {len(threads)} compiler threads seen)")


if __name__ == "__main__":
    main()
