// storeapi-client calls the Thanos StoreAPI Series method the way a Thanos Querier's store client
// does (the thanos module's storepb client, gogoproto decoding) and counts what it receives: the
// client side of SeriesStreamBench, in its own process so its CPU is not the server's.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"syscall"
	"time"

	_ "github.com/thanos-io/thanos/pkg/extgrpc" // the gRPC codec a Querier decodes with (gogoproto, no pooling)
	"github.com/thanos-io/thanos/pkg/store/storepb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

type counts struct{ series, chunks, bytes int64 }

func (c *counts) add(s *storepb.Series) {
	c.series++
	for _, ch := range s.Chunks {
		c.chunks++
		if ch.Raw != nil {
			c.bytes += int64(len(ch.Raw.Data))
		}
	}
}

func call(ctx context.Context, client storepb.StoreClient, req *storepb.SeriesRequest) (counts, error) {
	var c counts
	stream, err := client.Series(ctx, req)
	if err != nil {
		return c, err
	}
	for {
		r, err := stream.Recv()
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return c, err
		}
		if s := r.GetSeries(); s != nil {
			c.add(s)
		} else if b := r.GetBatch(); b != nil {
			for _, s := range b.Series {
				c.add(s)
			}
		}
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:10901", "StoreAPI address")
	metric := flag.String("metric", "node_cpu_seconds_total", "__name__ to select")
	minT := flag.Int64("min", math.MinInt64, "min_time (ms)")
	maxT := flag.Int64("max", math.MaxInt64, "max_time (ms)")
	batch := flag.Int64("batch", 64, "response_batch_size (the Querier asks for 64; 0 = one series per response)")
	warmup := flag.Int("warmup", 5, "calls before measuring")
	calls := flag.Int("calls", 20, "measured calls")
	window := flag.Int("window", 0, "HTTP/2 stream and connection window in bytes (0: grpc-go's default, 64 KiB grown by its BDP estimate, as a Querier has)")
	handshake := flag.Bool("handshake", false, "after the warm-up print \"warm\" and wait for a line on stdin before measuring")
	flag.Parse()

	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32))}
	if *window > 0 {
		opts = append(opts, grpc.WithInitialWindowSize(int32(*window)), grpc.WithInitialConnWindowSize(int32(*window)))
	}
	conn, err := grpc.NewClient(*addr, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "storeapi-client:", err)
		os.Exit(1)
	}
	defer conn.Close()
	client := storepb.NewStoreClient(conn)
	req := &storepb.SeriesRequest{
		MinTime:           *minT,
		MaxTime:           *maxT,
		Matchers:          []storepb.LabelMatcher{{Type: storepb.LabelMatcher_EQ, Name: "__name__", Value: *metric}},
		ResponseBatchSize: *batch,
	}
	ctx := context.Background()
	for i := 0; i < *warmup; i++ {
		if _, err := call(ctx, client, req); err != nil {
			fmt.Fprintln(os.Stderr, "storeapi-client: warm-up call:", err)
			os.Exit(1)
		}
	}
	if *handshake {
		fmt.Println("warm")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			fmt.Fprintln(os.Stderr, "storeapi-client: no go-ahead on stdin:", err)
			os.Exit(1)
		}
	}
	var total counts
	cpu0 := cpuSeconds()
	start := time.Now()
	for i := 0; i < *calls; i++ {
		c, err := call(ctx, client, req)
		if err != nil {
			fmt.Fprintln(os.Stderr, "storeapi-client: call:", err)
			os.Exit(1)
		}
		total.series += c.series
		total.chunks += c.chunks
		total.bytes += c.bytes
	}
	wall := time.Since(start).Seconds()
	cpu := cpuSeconds() - cpu0
	// one line, read by SeriesStreamBench
	fmt.Printf("storeapi_client calls=%d series=%d chunks=%d chunk_bytes=%d wall_s=%.4f cpu_s=%.4f\n",
		*calls, total.series, total.chunks, total.bytes, wall, cpu)
}
