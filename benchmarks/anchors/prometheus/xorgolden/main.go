// Command xorgolden checks, or rewrites, the XOR golden vectors of ingest-core's tests
// (ingest-core/src/test/resources/golden/chunkenc/xor-golden.jsonl) against Prometheus' own
// chunk encoder (module github.com/prometheus/prometheus, package tsdb/chunkenc, the version in
// ../go.mod).
//
//	go run ./xorgolden FILE           encode every case's samples, iterate every case's chunk;
//	                                  exit 1 if either disagrees with the file
//	go run ./xorgolden -write FILE    replace every case's chunk with what the encoder produces
//
// A line is {"name":…,"samples":[["<timestamp ms, decimal>","<float64 bits, 16 hex digits>"],…],"chunk":"<hex>"}.
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/prometheus/prometheus/tsdb/chunkenc"
)

type vector struct {
	Name    string      `json:"name"`
	Samples [][2]string `json:"samples"`
	Chunk   string      `json:"chunk"`
}

type sample struct {
	t    int64
	bits uint64
}

func (v vector) parse() ([]sample, error) {
	out := make([]sample, len(v.Samples))
	for i, s := range v.Samples {
		t, err := strconv.ParseInt(s[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("sample %d: timestamp: %w", i, err)
		}
		bits, err := strconv.ParseUint(s[1], 16, 64)
		if err != nil || len(s[1]) != 16 {
			return nil, fmt.Errorf("sample %d: value %q is not 16 hex digits", i, s[1])
		}
		out[i] = sample{t, bits}
	}
	return out, nil
}

func encode(samples []sample) ([]byte, error) {
	c := chunkenc.NewXORChunk()
	app, err := c.Appender()
	if err != nil {
		return nil, err
	}
	for _, s := range samples {
		app.Append(0, s.t, math.Float64frombits(s.bits))
	}
	return bytes.Clone(c.Bytes()), nil
}

func decode(chunk []byte) ([]sample, error) {
	c, err := chunkenc.FromData(chunkenc.EncXOR, chunk)
	if err != nil {
		return nil, err
	}
	var out []sample
	it := c.Iterator(nil)
	for it.Next() == chunkenc.ValFloat {
		t, v := it.At()
		out = append(out, sample{t, math.Float64bits(v)})
	}
	return out, it.Err()
}

// check returns what is wrong with v, or "" when Prometheus agrees with it both ways.
func check(v vector, samples []sample) (string, error) {
	got, err := encode(samples)
	if err != nil {
		return "", err
	}
	if hex.EncodeToString(got) != v.Chunk {
		return "encoder produces " + hex.EncodeToString(got), nil
	}
	want, err := hex.DecodeString(v.Chunk)
	if err != nil {
		return "", err
	}
	read, err := decode(want)
	if err != nil {
		return "", err
	}
	if len(read) != len(samples) {
		return fmt.Sprintf("iterator returns %d samples, not %d", len(read), len(samples)), nil
	}
	for i := range read {
		if read[i] != samples[i] {
			return fmt.Sprintf("iterator returns sample %d as %d/%016x", i, read[i].t, read[i].bits), nil
		}
	}
	return "", nil
}

func run(path string, write bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var lines [][]byte
	bad := 0
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; scanner.Scan(); n++ {
		var v vector
		if err := json.Unmarshal(scanner.Bytes(), &v); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		samples, err := v.parse()
		if err != nil {
			return fmt.Errorf("%s:%d (%s): %w", path, n, v.Name, err)
		}
		if write {
			chunk, err := encode(samples)
			if err != nil {
				return fmt.Errorf("%s:%d (%s): %w", path, n, v.Name, err)
			}
			v.Chunk = hex.EncodeToString(chunk)
			line, err := json.Marshal(v)
			if err != nil {
				return err
			}
			lines = append(lines, line)
			continue
		}
		problem, err := check(v, samples)
		if err != nil {
			return fmt.Errorf("%s:%d (%s): %w", path, n, v.Name, err)
		}
		if problem != "" {
			bad++
			fmt.Printf("%s:%d (%s): %s\n", path, n, v.Name, problem)
		}
	}
	if err := scanner.Err(); err != nil {
		return err
	}
	if write {
		return os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644)
	}
	if bad > 0 {
		return fmt.Errorf("%d case(s) disagree with Prometheus' encoder", bad)
	}
	fmt.Printf("%s: every case agrees with Prometheus' XOR encoder and iterator\n", path)
	return nil
}

func main() {
	write := flag.Bool("write", false, "rewrite each case's chunk from its samples instead of checking")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: xorgolden [-write] FILE")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *write); err != nil {
		fmt.Fprintln(os.Stderr, "xorgolden:", err)
		os.Exit(1)
	}
}
