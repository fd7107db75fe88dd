"""Shared by jit_cpu.py and thread_cpu.py: find a running JVM by its command line and sample the CPU of
its threads from /proc until it exits.
"""
import os
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def stat(path):
    """(utime, stime, minflt, majflt) in seconds / counts from a /proc stat file."""
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK, int(fields[7]), int(fields[9])


def find_java(pattern, self_pid):
    """The pid of a java process whose command line contains pattern (not a python sampler, not GNU time)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == self_pid:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        first = cmd.split(" ")[0]
        if pattern in cmd and "java" in cmd and "python" not in first and "/usr/bin/time" not in first:
            return pid
    return None


def wait_for_java(pattern, tool, timeout_s=600):
    """Polls until find_java answers; exits with a message naming tool after timeout_s."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        pid = find_java(pattern, os.getpid())
        if pid is not None:
            return pid
        time.sleep(0.01)
    sys.exit(f"{tool}: no java process with '{pattern}' within {timeout_s} s")


def sample_threads(pid, interval_s):
    """Samples until the process exits. Returns (the process's last stat, {tid: (name, user_s, sys_s)}):
    threads that end before the process keep their last sample."""
    threads, proc = {}, (0.0, 0.0, 0, 0)
    while True:
        try:
            proc = stat(f"/proc/{pid}/stat")
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{tid}/comm") as f:
                        name = f.read().strip()
                    u, s, _, _ = stat(f"/proc/{pid}/task/{tid}/stat")
                    threads[tid] = (name, u, s)
                except OSError:
                    pass
        except OSError:
            return proc, threads
        time.sleep(interval_s)
