package spot

import (
	"math"
	"math/rand/v2"
)

// Synthesize makes a trace in the Can't Be Late format from a two-state
// model: availability holds for exponential times with the given means
// (hours), sampled every gap seconds; data is nodes while up and 0 while down.
// With a spot price, every tick carries it. It is how gpuscout's own test
// traces are made (`gpuscout spot synth`), since the real ones carry no licence.
func Synthesize(meanUp, meanDown, gapSeconds, hours float64, nodes int, price float64, seed uint64) *Trace {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	gap := gapSeconds / 3600
	n := int(math.Ceil(hours / gap))
	t := &Trace{Name: "synthetic", GapSeconds: gapSeconds, Data: make([]int, n)}
	up := rng.Float64() < meanUp/(meanUp+meanDown)
	left := rng.ExpFloat64() * pick(up, meanUp, meanDown)
	for i := 0; i < n; i++ {
		for left <= 0 {
			up = !up
			left += rng.ExpFloat64() * pick(up, meanUp, meanDown)
		}
		if up {
			t.Data[i] = nodes
		}
		left -= gap
	}
	if price > 0 {
		t.Prices = make([]float64, n)
		for i := range t.Prices {
			t.Prices[i] = price
		}
	}
	return t
}

func pick(up bool, a, b float64) float64 {
	if up {
		return a
	}
	return b
}
