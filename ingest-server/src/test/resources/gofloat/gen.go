// Writes sample values as Prometheus' JSON writes them (go1.26.8): strconv.AppendFloat with 'f'
// from 1e-6 up to 1e21 and 'e' outside, shortest digits, for PromFloatTest: `go run gen.go`.
package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
)

func text(v float64) string {
	f := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		f = 'e'
	}
	return strconv.FormatFloat(v, f, -1, 64)
}

func main() {
	r := rand.New(rand.NewSource(11))
	out, _ := os.Create("floats.txt")
	defer out.Close()
	w := bufio.NewWriter(out)
	defer w.Flush()
	fmt.Fprintln(w, "# float64 bits in hex, then the text Prometheus' JSON holds for it")
	for i := 0; i < 6000; i++ {
		var v float64
		switch i % 6 {
		case 0:
			v = math.Float64frombits(r.Uint64())
		case 1:
			v = r.NormFloat64() * math.Pow(10, float64(r.Intn(50)-25))
		case 2:
			v = math.Float64frombits(r.Uint64() & (1<<52 - 1)) // subnormal
		case 3:
			v = float64(r.Int63n(2_000_000)-1_000_000) / 1000
		case 4:
			v = math.Pow(10, float64(r.Intn(60)-30)) * float64(r.Intn(9)+1)
		default:
			v = math.Ldexp(r.Float64(), r.Intn(2100)-1075)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		fmt.Fprintf(w, "%x %s\n", math.Float64bits(v), text(v))
	}
}
