#!/usr/bin/env python3
"""CPU seconds of a running JVM's JIT compiler threads (C1, C2) against the whole process, sampled from
/proc until the process exits: the CPU the JIT costs, which -XX:+CITime (elapsed time per compile,
inflated by a loaded machine) does not give.

    benchmarks/jit_cpu.py PATTERN        waits for a process whose command line contains PATTERN
    e.g. benchmarks/jit_cpu.py -- '--in-process' & ./sluice bench replay --replay-only ...

Samples every 50 ms; the JVM may retire idle compiler threads (UseDynamicNumberOfCompilerThreads), so
each thread's last sample is kept. Prints one line: process CPU-s, C1 CPU-s, C2 CPU-s, their share.
"""
import sys

from jvmproc import sample_threads, wait_for_java


def main():
    pid = wait_for_java(sys.argv[-1], "jit_cpu")
    proc, threads = sample_threads(pid, 0.05)
    total = proc[0] + proc[1]
    compilers = [(name[:2], u + s) for name, u, s in threads.values() if "CompilerThre" in name]
    c1 = sum(t for n, t in compilers if n == "C1")
    c2 = sum(t for n, t in compilers if n == "C2")
    share = (c1 + c2) / total * 100 if total else 0
    print(f"jit_cpu: process {total:.2f} CPU-s (until its last sample), C1 {c1:.2f}, C2 {c2:.2f} "
          f"({share:.1f} % in the JIT, {len(compilers)} compiler threads seen)")


if __name__ == "__main__":
    main()
