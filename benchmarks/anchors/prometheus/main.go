// Command promharness is the Prometheus side of Sluice's replay benchmark
// (benchmarks/replay-vs-prometheus.sh): it writes the replay workload into a Prometheus TSDB head
// with its WAL on, and, run again in a fresh process, times opening that directory (WAL replay,
// or a normal restart from the m-mapped head chunks).
//
//	promharness -mode=ingest -dir D -samples 10000000 [-series 10000] [-batch 1000] [-writers 1]
//	promharness -mode=replay -dir D [-drop-mmap] [-verify]
//
// The workload is the one Sluice's GaugeWorkload generates: series i is a node_exporter
// filesystem gauge with 10 labels (host i/10, device i%10), one sample per series every 15 s,
// value round2(20 + i%70 + 5·sin(2π·dt/6h + phase) + N(0, 0.05)), each series drawing its
// phase and noise from its own generator seeded i+1.
//
// Output: one "key: name=value ..." line per result. The script greps ingest_done,
// wal_bytes_per_sample and replay_done; GNU time around the process gives wall, CPU and RSS.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/util/compression"
)

// startMs is the first scrape (2024-01-01T00:00:00Z), as in GaugeWorkload.START_MS.
const (
	startMs    int64 = 1_704_067_200_000
	intervalMs int64 = 15_000
	periodMs         = 6 * 3600 * 1000.0
)

type config struct {
	mode, dir, walCompression, values, cpuProfile string
	samples                                       int64
	series, batch, writers                        int
	dropMmap, verify                              bool
}

func parseFlags() config {
	var c config
	flag.StringVar(&c.mode, "mode", "ingest", "ingest | replay")
	flag.StringVar(&c.dir, "dir", "", "TSDB directory (required)")
	flag.Int64Var(&c.samples, "samples", 10_000_000, "ingest: total samples, rounded down to whole scrapes of every series")
	flag.IntVar(&c.series, "series", 10_000, "ingest: number of series")
	flag.IntVar(&c.batch, "batch", 1_000, "ingest: samples per commit")
	flag.IntVar(&c.writers, "writers", 1, "ingest: appending goroutines, each owning a contiguous range of series")
	flag.StringVar(&c.walCompression, "wal-compression", "none", "none | snappy | zstd")
	flag.StringVar(&c.values, "values", "noisy", "noisy (with the N(0, 0.05) term) | smooth (without)")
	flag.BoolVar(&c.dropMmap, "drop-mmap", false, "replay: remove chunks_head/ first, so every WAL sample is re-appended")
	flag.BoolVar(&c.verify, "verify", false, "replay: read every series back and count series and samples")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed phase to this file")
	flag.Parse()
	if c.dir == "" {
		usage("-dir is required")
	}
	if c.series < 1 || c.batch < 1 || c.writers < 1 {
		usage("-series, -batch and -writers must be at least 1")
	}
	if c.values != "noisy" && c.values != "smooth" {
		usage("-values must be noisy or smooth")
	}
	return c
}

func usage(msg string) {
	fmt.Fprintln(os.Stderr, "promharness: "+msg)
	flag.Usage()
	os.Exit(2)
}

func openOptions(c config) *tsdb.Options {
	o := tsdb.DefaultOptions()
	switch c.walCompression {
	case "none":
		o.WALCompression = compression.None
	case "snappy":
		o.WALCompression = compression.Snappy
	case "zstd":
		o.WALCompression = compression.Zstd
	default:
		usage("-wal-compression must be none, snappy or zstd")
	}
	return o
}

var (
	mounts  = [...]string{"/", "/boot", "/home", "/var", "/var/log", "/tmp", "/data", "/data1", "/data2", "/srv"}
	envs    = [...]string{"prod", "staging", "dev"}
	regions = [...]string{"eu-west-1", "us-east-1", "ap-south-1", "us-west-2"}
	teams   = [...]string{"storage", "compute", "network", "platform", "data"}
)

func seriesLabels(i int) labels.Labels {
	host, dev := i/10, i%10
	fstype := "xfs"
	if dev%2 == 0 {
		fstype = "ext4"
	}
	return labels.FromStrings(
		"__name__", "node_filesystem_avail_percent",
		"instance", fmt.Sprintf("host-%04d.dc1.example.internal:9100", host),
		"job", "node",
		"device", fmt.Sprintf("/dev/nvme%dn1p%d", dev/4, dev%4+1),
		"fstype", fstype,
		"mountpoint", mounts[dev],
		"env", envs[host%3],
		"region", regions[host%4],
		"cluster", fmt.Sprintf("k8s-%02d", host%25),
		"team", teams[host%5],
	)
}

// series holds one gauge: its labels, the ref the head gave it, and its value generator.
type series struct {
	lset  labels.Labels
	ref   storage.SeriesRef
	base  float64
	phase float64
	rnd   *rand.Rand
}

func newSeries(i int) *series {
	r := rand.New(rand.NewSource(int64(i) + 1))
	return &series{lset: seriesLabels(i), base: float64(20 + i%70), phase: 2 * math.Pi * r.Float64(), rnd: r}
}

// next returns the value at scrape round; call once per round, in order.
func (s *series) next(round int64, noisy bool) float64 {
	x := s.base + 5*math.Sin(2*math.Pi*float64(round*intervalMs)/periodMs+s.phase)
	if noisy {
		x += 0.05 * s.rnd.NormFloat64()
	}
	return math.Round(x*100) / 100
}

// cpu is CPU time used by this process.
type cpu struct{ user, sys float64 }

func cpuNow() cpu {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpu{}
	}
	secs := func(tv syscall.Timeval) float64 { return float64(tv.Sec) + float64(tv.Usec)/1e6 }
	return cpu{secs(ru.Utime), secs(ru.Stime)}
}

func (c cpu) minus(o cpu) cpu { return cpu{c.user - o.user, c.sys - o.sys} }

func (c cpu) total() float64 { return c.user + c.sys }

// startProfile starts a CPU profile if one was asked for and returns the function that ends it.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	must(err)
	must(pprof.StartCPUProfile(f))
	return func() {
		pprof.StopCPUProfile()
		must(f.Close())
	}
}

func ingest(c config) {
	must(os.RemoveAll(c.dir))
	reg := prometheus.NewRegistry()
	db, err := tsdb.Open(c.dir, nil, reg, openOptions(c), nil)
	must(err)
	db.DisableCompactions() // every sample stays in the head and its WAL: no block, no WAL checkpoint

	all := make([]*series, c.series)
	for i := range all {
		all[i] = newSeries(i)
	}
	rounds := c.samples / int64(c.series)
	total := rounds * int64(c.series)
	fmt.Printf("ingest: series=%d rounds=%d samples=%d batch=%d writers=%d wal_compression=%s values=%s GOMAXPROCS=%d\n",
		c.series, rounds, total, c.batch, c.writers, c.walCompression, c.values, runtime.GOMAXPROCS(0))

	stop := startProfile(c.cpuProfile)
	cpu0, t0 := cpuNow(), time.Now()
	errs := appendAll(db, all, rounds, c)
	wall, used := time.Since(t0), cpuNow().minus(cpu0)
	stop()

	fmt.Printf("ingest_done: samples=%d append_errors=%d wall_s=%.3f user_s=%.3f sys_s=%.3f samples_per_s=%.0f samples_per_cpu_s=%.0f ns_per_sample=%.1f\n",
		total, errs, wall.Seconds(), used.user, used.sys, float64(total)/wall.Seconds(), float64(total)/used.total(),
		float64(wall.Nanoseconds())/float64(total))
	fmt.Printf("head: series=%d mint=%d maxt=%d\n", db.Head().NumSeries(), db.Head().MinTime(), db.Head().MaxTime())
	printMetrics(reg)
	closeStart := time.Now()
	must(db.Close())
	fmt.Printf("close_s=%.3f\n", time.Since(closeStart).Seconds())
	for _, sub := range []string{"wal", "chunks_head"} {
		bytes, allocated, files := du(filepath.Join(c.dir, sub))
		fmt.Printf("disk: %s_bytes=%d (allocated %d, %d files) %s_bytes_per_sample=%.3f\n",
			sub, bytes, allocated, files, sub, float64(bytes)/float64(total))
	}
}

// appendAll writes rounds scrapes of every series; each writer owns a contiguous range of series
// and commits every c.batch samples. Returns the number of rejected samples.
func appendAll(db *tsdb.DB, all []*series, rounds int64, c config) int64 {
	var rejected int64
	var mu sync.Mutex
	per := (len(all) + c.writers - 1) / c.writers
	noisy := c.values == "noisy"
	ctx := context.Background()
	for round := int64(0); round < rounds; round++ {
		ts := startMs + round*intervalMs
		var wg sync.WaitGroup
		for from := 0; from < len(all); from += per {
			mine := all[from:min(from+per, len(all))]
			wg.Go(func() {
				n := appendRange(ctx, db, mine, ts, round, noisy, c.batch)
				mu.Lock()
				rejected += n
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	return rejected
}

func appendRange(ctx context.Context, db *tsdb.DB, mine []*series, ts, round int64, noisy bool, batch int) int64 {
	var rejected int64
	for len(mine) > 0 {
		chunk := mine[:min(batch, len(mine))]
		mine = mine[len(chunk):]
		app := db.Appender(ctx)
		for _, s := range chunk {
			ref, err := app.Append(s.ref, s.lset, ts, s.next(round, noisy))
			if err != nil {
				rejected++
				continue
			}
			s.ref = ref
		}
		must(app.Commit())
	}
	return rejected
}

func replay(c config) {
	if c.dropMmap {
		must(os.RemoveAll(filepath.Join(c.dir, "chunks_head")))
		fmt.Println("replay: removed chunks_head/, WAL only")
	}
	if _, err := os.Stat(filepath.Join(c.dir, "wal")); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "promharness: no WAL in %s (run -mode=ingest first)\n", c.dir)
		os.Exit(1)
	}
	reg := prometheus.NewRegistry()
	stop := startProfile(c.cpuProfile)
	cpu0, t0 := cpuNow(), time.Now()
	db, err := tsdb.Open(c.dir, nil, reg, openOptions(c), nil)
	must(err)
	wall, used := time.Since(t0), cpuNow().minus(cpu0)
	stop()
	db.DisableCompactions()
	fmt.Printf("replay_done: open_wall_s=%.3f open_user_s=%.3f open_sys_s=%.3f GOMAXPROCS=%d head_series=%d mint=%d maxt=%d\n",
		wall.Seconds(), used.user, used.sys, runtime.GOMAXPROCS(0), db.Head().NumSeries(), db.Head().MinTime(), db.Head().MaxTime())
	printMetrics(reg)
	if c.verify {
		readBack(db)
	}
	must(db.Close())
}

// readBack reads every sample of every series and checks timestamps rise on the scrape grid.
func readBack(db *tsdb.DB) {
	t0 := time.Now()
	q, err := db.Querier(math.MinInt64, math.MaxInt64)
	must(err)
	defer q.Close()
	set := q.Select(context.Background(), false, nil, labels.MustNewMatcher(labels.MatchRegexp, labels.MetricName, ".+"))
	var nSeries, nSamples, offGrid int64
	var it chunkenc.Iterator
	for set.Next() {
		nSeries++
		it = set.At().Iterator(it)
		last := int64(math.MinInt64)
		for it.Next() == chunkenc.ValFloat {
			ts, _ := it.At()
			if ts <= last || (ts-startMs)%intervalMs != 0 {
				offGrid++
			}
			last = ts
			nSamples++
		}
		must(it.Err())
	}
	must(set.Err())
	fmt.Printf("verify: series=%d samples=%d out_of_order_or_off_grid=%d took_s=%.3f\n",
		nSeries, nSamples, offGrid, time.Since(t0).Seconds())
}

// reported are the TSDB's own metrics worth a line in the output.
var reported = map[string]bool{
	"prometheus_tsdb_head_series":                          true,
	"prometheus_tsdb_head_chunks":                          true,
	"prometheus_tsdb_head_samples_appended_total":          true,
	"prometheus_tsdb_data_replay_duration_seconds":         true,
	"prometheus_tsdb_head_chunks_storage_size_bytes":       true,
	"prometheus_tsdb_mmap_chunk_corruptions_total":         true,
	"prometheus_tsdb_wal_corruptions_total":                true,
	"prometheus_tsdb_wal_record_parts_bytes_written_total": true,
}

func printMetrics(reg *prometheus.Registry) {
	families, err := reg.Gather()
	if err != nil {
		log.Printf("promharness: gathering metrics: %v", err)
		return
	}
	for _, f := range families { // Gather sorts by name
		if !reported[f.GetName()] {
			continue
		}
		sum := 0.0
		for _, m := range f.GetMetric() {
			switch {
			case m.Counter != nil:
				sum += m.GetCounter().GetValue()
			case m.Gauge != nil:
				sum += m.GetGauge().GetValue()
			case m.Untyped != nil:
				sum += m.GetUntyped().GetValue()
			}
		}
		fmt.Printf("metric %s %.6g\n", f.GetName(), sum)
	}
}

// du sums the apparent and the allocated size of the regular files under dir.
func du(dir string) (bytes, allocated int64, files int) {
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		files++
		bytes += info.Size()
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			allocated += st.Blocks * 512
		}
		return nil
	})
	return bytes, allocated, files
}

func must(err error) {
	if err != nil {
		log.Fatalf("promharness: %v", err)
	}
}

func main() {
	c := parseFlags()
	switch c.mode {
	case "ingest":
		ingest(c)
	case "replay":
		replay(c)
	default:
		usage("-mode must be ingest or replay")
	}
}
