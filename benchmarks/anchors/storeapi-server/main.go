// storeapi-server is the ceiling anchor of SeriesStreamBench: a Go gRPC server of the Thanos
// StoreAPI (the thanos module's storepb service and its gRPC codec, as a Thanos store serves) that
// answers every Series call with one recorded answer. It calls Series once on the StoreAPI at -from
// (a Sluice instance), keeps the responses as decoded, and sends them again on each call, so the Go
// client receives the same messages, series and chunk bytes from a Go server as from Sluice.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"

	_ "github.com/thanos-io/thanos/pkg/extgrpc" // registers the codec Thanos' stores and Querier use
	"github.com/thanos-io/thanos/pkg/store/storepb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

type server struct {
	storepb.UnimplementedStoreServer
	answer []*storepb.SeriesResponse
}

func (s *server) Series(_ *storepb.SeriesRequest, out storepb.Store_SeriesServer) error {
	for _, r := range s.answer {
		if err := out.Send(r); err != nil {
			return err
		}
	}
	return nil
}

func record(from string, req *storepb.SeriesRequest) ([]*storepb.SeriesResponse, int64, error) {
	conn, err := grpc.NewClient(from, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32)))
	if err != nil {
		return nil, 0, err
	}
	defer conn.Close()
	stream, err := storepb.NewStoreClient(conn).Series(context.Background(), req)
	if err != nil {
		return nil, 0, err
	}
	var answer []*storepb.SeriesResponse
	var bytes int64
	for {
		r, err := stream.Recv()
		if err == io.EOF {
			return answer, bytes, nil
		}
		if err != nil {
			return nil, 0, err
		}
		answer = append(answer, r)
		bytes += int64(r.Size())
	}
}

func main() {
	from := flag.String("from", "", "StoreAPI address whose Series answer is recorded and served")
	listen := flag.String("listen", "127.0.0.1:0", "address to serve on")
	metric := flag.String("metric", "node_cpu_seconds_total", "__name__ to select")
	minT := flag.Int64("min", math.MinInt64, "min_time (ms)")
	maxT := flag.Int64("max", math.MaxInt64, "max_time (ms)")
	batch := flag.Int64("batch", 64, "response_batch_size")
	flag.Parse()
	if *from == "" {
		fmt.Fprintln(os.Stderr, "storeapi-server: -from ADDR is required")
		os.Exit(2)
	}
	answer, bytes, err := record(*from, &storepb.SeriesRequest{
		MinTime:           *minT,
		MaxTime:           *maxT,
		Matchers:          []storepb.LabelMatcher{{Type: storepb.LabelMatcher_EQ, Name: "__name__", Value: *metric}},
		ResponseBatchSize: *batch,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "storeapi-server: recording", *from+":", err)
		os.Exit(1)
	}
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "storeapi-server:", err)
		os.Exit(1)
	}
	srv := grpc.NewServer(grpc.MaxSendMsgSize(math.MaxInt32))
	storepb.RegisterStoreServer(srv, &server{answer: answer})
	// one line, read by SeriesStreamBench
	fmt.Printf("listening %s responses=%d bytes=%d\n", lis.Addr(), len(answer), bytes)
	if err := srv.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, "storeapi-server:", err)
		os.Exit(1)
	}
}
