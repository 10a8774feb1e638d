package bench

import (
	"math"
	"slices"
	"time"
)

// Stats summarises a set of sample times, in seconds.
type Stats struct {
	N        int
	P50, P99 float64 // percentiles (P50 is the median)
	Mean     float64
	CV       float64 // population standard deviation ÷ mean
	Min, Max float64
}

// Summarize computes the statistics of durations; the zero Stats for none.
func Summarize(ds []time.Duration) Stats {
	if len(ds) == 0 {
		return Stats{}
	}
	s := make([]float64, len(ds))
	for i, d := range ds {
		s[i] = d.Seconds()
	}
	return SummarizeValues(s)
}

// SummarizeValues computes the statistics of plain values.
func SummarizeValues(v []float64) Stats {
	if len(v) == 0 {
		return Stats{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	mean := sum / float64(len(s))
	var ss float64
	for _, x := range s {
		ss += (x - mean) * (x - mean)
	}
	st := Stats{N: len(s), P50: Percentile(s, 0.5), P99: Percentile(s, 0.99), Mean: mean, Min: s[0], Max: s[len(s)-1]}
	if mean != 0 && st.Max != st.Min { // equal values: no spread, whatever the mean's rounding
		st.CV = math.Sqrt(ss/float64(len(s))) / mean
	}
	return st
}

// StdDev is the population standard deviation.
func (s Stats) StdDev() float64 { return s.CV * s.Mean }

// Percentile returns the q-quantile (0 ≤ q ≤ 1) of sorted values, linearly
// interpolated between the closest ranks (NumPy's default): the median of
// 1, 2, 3, 4 is 2.5, its 0.99-quantile 3.97.
func Percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(lo)
	return sorted[lo] + f*(sorted[lo+1]-sorted[lo])
}
