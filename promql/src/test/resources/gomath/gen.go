// Writes Go's math.Pow, Log, Log2 and Log10 of seeded random inputs, as float64 bits in hex, for
// MathKernelsGoTest: `go run gen.go` in this directory (any Go on amd64; the vectors were made with
// go1.26.8 linux/amd64, whose Log and Exp are assembly).
package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand"
	"os"
)

func main() {
	r := rand.New(rand.NewSource(7))
	pow, _ := os.Create("pow.txt")
	defer pow.Close()
	w := bufio.NewWriter(pow)
	fmt.Fprintln(w, "# x y math.Pow(x, y), float64 bits in hex")
	for i := 0; i < 3000; i++ {
		var x, y float64
		switch r.Intn(6) {
		case 0:
			x = float64(r.Intn(2000) - 1000)
		case 1:
			x = r.Float64() * 10
		case 2:
			x = (r.Float64() - 0.5) * 1e6
		case 3:
			x = math.Ldexp(r.Float64(), r.Intn(2000)-1000)
		case 4:
			x = float64(r.Intn(100)) / 8
		default:
			x = r.NormFloat64() * 100
		}
		switch r.Intn(5) {
		case 0:
			y = float64(r.Intn(40) - 20)
		case 1:
			y = float64(r.Intn(2000) - 1000)
		case 2:
			y = r.Float64()*20 - 10
		case 3:
			y = float64(r.Intn(16)-8) / 4
		default:
			y = r.NormFloat64() * 3
		}
		fmt.Fprintf(w, "%x %x %x\n", math.Float64bits(x), math.Float64bits(y), math.Float64bits(math.Pow(x, y)))
	}
	w.Flush()

	logs, _ := os.Create("log.txt")
	defer logs.Close()
	w = bufio.NewWriter(logs)
	fmt.Fprintln(w, "# x math.Log(x) math.Log2(x) math.Log10(x), float64 bits in hex")
	for i := 0; i < 3000; i++ {
		var x float64
		switch i % 3 {
		case 0:
			x = math.Ldexp(r.Float64(), r.Intn(200)-100)
		case 1:
			x = float64(r.Intn(100000))
		default:
			x = math.Pow(10, float64(r.Intn(40)-20))
		}
		fmt.Fprintf(w, "%x %x %x %x\n", math.Float64bits(x), math.Float64bits(math.Log(x)), math.Float64bits(math.Log2(x)), math.Float64bits(math.Log10(x)))
	}
	w.Flush()
}
