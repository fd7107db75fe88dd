#!/usr/bin/env python3
"""The measuring half of benchmarks/query-vs-prometheus.sh: the same PromQL queries against Prometheus and
Sluice serving the same data. For each query (instant at END, then a range START..END at STEP):
  1. both answers are fetched and compared (same series, values within 1e-9 relative; NaN equals NaN);
  2. WARMUP runs on each server, not timed;
  3. RUNS timed runs, alternating Prometheus and Sluice; wall time is from sending the request to the last
     byte of the answer (the body is read, not parsed); the server's CPU time is utime+stime of its process
     (/proc/PID/stat, all threads) summed over the timed runs; memory is the process' peak RSS over this query's
     requests (its VmHWM, /proc/PID/status, reset before the query's first request by writing 5 to
     /proc/PID/clear_refs, Linux >= 4.0) and its VmRSS after them. Where the reset is refused, VmHWM is the
     process' peak since it started (read its growth), and the output says so.
Prints one table row per query and writes all figures as JSON (--json).

  query_vs_prometheus.py --prom URL:PID --sluice URL:PID[,PID...] --start S --end E --step 15 [--runs 10] [--warmup 3]

With several PIDs for the Sluice side (a Thanos Querier over Sluice instances: the Querier's URL, then the
Querier's and the instances' PIDs) its CPU and memory are the sums over those processes; --sluice-name names
that side in the output. --anchor URL:PID[,PID...] adds a third side timed in the same alternation (e.g. the
same Querier over a Thanos Sidecar in front of the same Prometheus: the Querier URL, then the PIDs of that Querier,
the Sidecar and Prometheus), its answers checked against Prometheus' too; --anchor-name names it.
--querier-split: the sides other than Prometheus are Thanos Queriers; their /metrics, read before and after each
query's timed runs, split its wall: the Querier's HTTP handler time and its StoreAPI Series calls (client side,
from the call to the stream's end; the calls to the stores run in parallel) per query.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time
import urllib.parse
import urllib.request

QUERIES = [
    ("sum_rate", 'sum by (job) (rate(x[5m]))'),
    ("hist_quantile", 'histogram_quantile(0.99, sum by (le) (rate(h_bucket[5m])))'),
    ("topk", 'topk(10, x)'),
    ("group_left", 'x * on(job) group_left(team) info'),
    ("regex_count", 'count(x{instance=~"i-1.*"})'),
]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids):
    total = 0.0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15)
    return total


def memory_mb(pids):
    out = {"VmHWM": 0.0, "VmRSS": 0.0}
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmHWM", "VmRSS"):
                    out[key] += int(rest.split()[0]) / 1024
    return out


def reset_hwm(pids):
    """Resets the processes' VmHWM to their current RSS; False where Linux refuses (then it is the peak since start)."""
    try:
        for pid in pids:
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")
        return True
    except OSError:
        return False


SPLIT = {"handler": 'http_request_duration_seconds_%s{code="200",handler="%s"',
         "series": 'grpc_client_handling_seconds_%s{grpc_method="Series"'}


def querier_split(base, kind):
    """The sums and counts of a Thanos Querier's HTTP handler durations (query or query_range) and Series calls."""
    with urllib.request.urlopen(base + "/metrics", timeout=60) as r:
        lines = r.read().decode().splitlines()
    out = {}
    for key, pattern in SPLIT.items():
        for stat in ("sum", "count"):
            prefix = pattern % ((stat, "query" if kind == "instant" else "query_range") if key == "handler" else stat)
            out[f"{key}_{stat}"] = sum(float(l.rsplit(" ", 1)[1]) for l in lines if l.startswith(prefix))
    return out


def url_of(base, kind, query, args):
    params = {"query": query}
    if kind == "instant":
        params["time"] = str(args.end)
        path = "/api/v1/query"
    else:
        params.update(start=str(args.start), end=str(args.end), step=str(args.step))
        path = "/api/v1/query_range"
    return base + path + "?" + urllib.parse.urlencode(params)


def fetch(url):
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as r:
        body = r.read()
    return time.perf_counter() - t0, body


def series_map(body):
    doc = json.loads(body)
    if doc.get("status") != "success":
        raise ValueError(f"error answer: {body[:300]!r}")
    data = doc["data"]
    result = data["result"]
    if data["resultType"] == "scalar":
        return {(): [tuple(result)]}
    out = {}
    for s in result:
        key = tuple(sorted(s["metric"].items()))
        out[key] = [tuple(s["value"])] if "value" in s else [tuple(p) for p in s["values"]]
    return out


def same_value(a, b):
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if x == y:
        return True
    return abs(x - y) <= 1e-9 * max(abs(x), abs(y))


def compare(prom, sluice):
    """None when the answers agree, else what differs first."""
    p, s = series_map(prom), series_map(sluice)
    if p.keys() != s.keys():
        only_p, only_s = p.keys() - s.keys(), s.keys() - p.keys()
        return (f"series differ: {len(p)} vs {len(s)}; only in Prometheus e.g. {sorted(only_p)[:1]}, "
                f"only in Sluice e.g. {sorted(only_s)[:1]}")
    points = 0
    for key, pv in p.items():
        sv = s[key]
        if len(pv) != len(sv):
            return f"{dict(key)}: {len(pv)} points vs {len(sv)}"
        for (pt, pval), (st, sval) in zip(pv, sv):
            if float(pt) != float(st) or not same_value(pval, sval):
                return f"{dict(key)}: ({pt}, {pval}) vs ({st}, {sval})"
        points += len(pv)
    return None, len(p), points


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prom", required=True, help="URL:PID of Prometheus, e.g. http://127.0.0.1:9090:1234")
    ap.add_argument("--sluice", required=True, help="URL:PID[,PID...] of Sluice (or of a Thanos Querier over Sluice instances)")
    ap.add_argument("--sluice-name", default="sluice", help="the Sluice side's name in the output")
    ap.add_argument("--anchor", help="URL:PID[,PID...] of a third side, e.g. a Thanos Querier over a Sidecar of the Prometheus")
    ap.add_argument("--anchor-name", default="anchor", help="the third side's name in the output")
    ap.add_argument("--querier-split", action="store_true", help="split the Queriers' wall with their /metrics")
    ap.add_argument("--start", type=float, required=True)
    ap.add_argument("--end", type=float, required=True)
    ap.add_argument("--step", type=float, default=15)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--only", help="a comma-separated list of query names (default: all)")
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--aot-cache", default="none", help="the Sluice side's JDK AOT cache as its log says (output and JSON)")
    args = ap.parse_args()
    servers = {}
    sides = [("prometheus", args.prom), ("sluice", args.sluice)] + ([("anchor", args.anchor)] if args.anchor else [])
    names = {"prometheus": "prometheus", "sluice": args.sluice_name, "anchor": args.anchor_name}
    for name, spec in sides:
        base, _, pids = spec.rpartition(":")
        servers[name] = (base, [int(p) for p in pids.split(",")])
    only = set(args.only.split(",")) if args.only else None
    baseline = {n: memory_mb(pid) for n, (_, pid) in servers.items()}
    print(f"{args.sluice_name}: JDK AOT cache: {args.aot_cache}")
    for n, m in baseline.items():
        print(f"{names[n]}: before the queries VmRSS {m['VmRSS']:.0f} MB, VmHWM {m['VmHWM']:.0f} MB")
    rows, ok, per_query_hwm = [], True, True
    for qname, query in QUERIES:
        if only and qname not in only:
            continue
        for kind in ("instant", "range"):
            label = f"{qname} {kind}"
            urls = {n: url_of(b, kind, query, args) for n, (b, _) in servers.items()}
            rss_before = {n: memory_mb(pids)["VmRSS"] for n, (_, pids) in servers.items()}
            for _, pids in servers.values():
                per_query_hwm = reset_hwm(pids) and per_query_hwm
            answers = {n: fetch(u)[1] for n, u in urls.items()}
            diff = None
            for other in [n for n in servers if n != "prometheus"]:
                try:
                    d = compare(answers["prometheus"], answers[other])
                except ValueError as e:
                    d = str(e)
                if not isinstance(d, tuple):
                    diff = f"{names[other]}: {d}"
                    break
                diff = diff or d
            if isinstance(diff, tuple):
                _, nseries, npoints = diff
                check = f"same ({nseries} series, {npoints} points)"
            else:
                ok = False
                nseries = npoints = None
                check = "DIFFERENT: " + diff
            print(f"{label:22} {query}: {check}", flush=True)
            for _ in range(args.warmup):
                for n in servers:
                    fetch(urls[n])
            walls = {n: [] for n in servers}
            queriers = [n for n in servers if n != "prometheus"] if args.querier_split else []
            split0 = {n: querier_split(servers[n][0], kind) for n in queriers}
            cpu = {n: 0.0 for n in servers}
            per_process = {n: [0.0] * len(pids) for n, (_, pids) in servers.items()}
            for _ in range(args.runs):
                for n, (_, pids) in servers.items():  # alternating, Prometheus first
                    c0 = [cpu_seconds([p]) for p in pids]
                    wall, _ = fetch(urls[n])
                    for i, p in enumerate(pids):
                        per_process[n][i] += cpu_seconds([p]) - c0[i]
                    cpu[n] = sum(per_process[n])
                    walls[n].append(wall)
            split = {}
            for n in queriers:
                after = querier_split(servers[n][0], kind)
                d = {k: after[k] - split0[n][k] for k in after}
                split[n] = {"handler_ms": 1e3 * d["handler_sum"] / max(d["handler_count"], 1),
                            "series_call_ms": 1e3 * d["series_sum"] / max(d["series_count"], 1),
                            "series_calls_per_query": d["series_count"] / args.runs}
            row = {"query": query, "name": qname, "kind": kind, "url": urls["sluice"], "check": check, "series": nseries,
                   "points": npoints, "bytes": {n: len(a) for n, a in answers.items()}}
            for n, (_, pid) in servers.items():
                row[n] = {"wall_median_s": statistics.median(walls[n]), "wall_min_s": min(walls[n]),
                          "cpu_per_query_s": cpu[n] / args.runs,
                          "cpu_per_query_s_by_pid": {str(p): c / args.runs for p, c in zip(pid, per_process[n])},
                          "VmRSS_before": rss_before[n], **memory_mb(pid)}
                if n in split:
                    row[n]["querier_split"] = split[n]
            rows.append(row)
    print()
    print(f"{args.runs} runs each after {args.warmup} warm-up, alternating; wall = median ms, CPU = server CPU ms per query "
          f"(/proc utime+stime); HWM = "
          + ("peak RSS MB over the query's requests (VmHWM reset before them)" if per_query_hwm
             else "VmHWM MB after the query's runs (not resettable here: the peak since start)")
          + "; speed-up = Prometheus wall / Sluice wall"
          + (f"; the Sluice side is {args.sluice_name} (CPU and HWM summed over its processes)" if args.sluice_name != "sluice" else ""))
    head = f"{'query':34} {'kind':7} {'prom wall':>9} {'prom CPU':>8} {'sluice wall':>11} {'sluice CPU':>10} " \
           f"{'speed-up':>8} {'CPU ratio':>9} {'prom HWM':>8} {'sluice HWM':>10}"
    print(head)
    for r in rows:
        p, s = r["prometheus"], r["sluice"]
        print(f"{r['name']:34} {r['kind']:7} {p['wall_median_s'] * 1e3:9.1f} {p['cpu_per_query_s'] * 1e3:8.0f} "
              f"{s['wall_median_s'] * 1e3:11.1f} {s['cpu_per_query_s'] * 1e3:10.0f} "
              f"{p['wall_median_s'] / s['wall_median_s']:7.2f}x "
              f"{(p['cpu_per_query_s'] / s['cpu_per_query_s']) if s['cpu_per_query_s'] else float('inf'):8.2f}x "
              f"{p['VmHWM']:8.0f} {s['VmHWM']:10.0f}")
    if "anchor" in servers:
        print(f"{names['anchor']}: wall = median ms, CPU ms per query (summed over its processes); ratio = its wall / "
              f"Prometheus wall; {names['sluice']} / {names['anchor']} = the two walls' ratio")
        for r in rows:
            p, s, a = r["prometheus"], r["sluice"], r["anchor"]
            print(f"{r['name']:34} {r['kind']:7} {a['wall_median_s'] * 1e3:9.1f} {a['cpu_per_query_s'] * 1e3:8.0f} "
                  f"{a['wall_median_s'] / p['wall_median_s']:7.2f}x {s['wall_median_s'] / a['wall_median_s']:7.2f}x")
    if args.querier_split:
        print("Querier split (mean per query over the timed runs): HTTP handler ms / Series call ms (calls per query)")
        for r in rows:
            print(f"{r['name']:34} {r['kind']:7} " + "   ".join(
                f"{names[n]}: {r[n]['querier_split']['handler_ms']:7.1f} / {r[n]['querier_split']['series_call_ms']:6.1f} "
                f"({r[n]['querier_split']['series_calls_per_query']:.1f})" for n in servers if n != "prometheus"))
    for n in [n for n in servers if n != "prometheus" and len(servers[n][1]) > 1]:
        print(f"{names[n]}: CPU ms per query by process (PIDs {', '.join(map(str, servers[n][1]))})")
        for r in rows:
            by_pid = r[n]["cpu_per_query_s_by_pid"].values()
            print(f"{r['name']:34} {r['kind']:7} " + " ".join(f"{c * 1e3:8.0f}" for c in by_pid))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"sluice_side": args.sluice_name, "anchor_side": args.anchor_name if args.anchor else None, "aot_cache": args.aot_cache, "baseline": baseline, "per_query_hwm": per_query_hwm, "runs": args.runs, "warmup": args.warmup, "start": args.start, "end": args.end,
                       "step": args.step, "rows": rows}, f, indent=1)
    # The query Sluice is slowest on next to Prometheus (the lowest speed-up): the flame graph's subject.
    slowest = min(rows, key=lambda r: r["prometheus"]["wall_median_s"] / r["sluice"]["wall_median_s"])
    print(f"slowest on Sluice (lowest speed-up): {slowest['name']} {slowest['kind']}")
    print(f"slowest-url: {slowest['url']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
