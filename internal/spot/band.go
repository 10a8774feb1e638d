package spot

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// ParseBand reads a monthly interruption band label as [low, high] percent:
// "<5%" is [0, 5], "5-10%" (or "5-10") is [5, 10], ">20%" is [20, 100]. The
// spot package owns what a band means for a hazard; feeds that read band
// labels check their syntax on their own.
func ParseBand(label string) (lo, hi float64, err error) {
	t := strings.TrimSuffix(strings.TrimSpace(label), "%")
	bad := fmt.Errorf("band %q: want <5%%, 5-10%%, 10-15%%, 15-20%% or >20%% (or any LOW-HIGH%% within 0-100%%)", label)
	num := func(s string) (float64, bool) {
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
		return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	switch {
	case strings.HasPrefix(t, "<"):
		v, ok := num(t[1:])
		if !ok || !(v > 0 && v <= 100) {
			return 0, 0, bad
		}
		return 0, v, nil
	case strings.HasPrefix(t, ">"):
		v, ok := num(t[1:])
		if !ok || !(v >= 0 && v < 100) {
			return 0, 0, bad
		}
		return v, 100, nil
	}
	a, b, found := strings.Cut(t, "-")
	if !found {
		return 0, 0, bad
	}
	l, ok1 := num(a)
	h, ok2 := num(b)
	if !ok1 || !ok2 || !(l >= 0 && h > l && h <= 100) {
		return 0, 0, bad
	}
	return l, h, nil
}

// BandHazard converts a monthly interruption band ("10-15%") to an hourly
// hazard per instance: λ = −ln(1−p)/730 with p the band's midpoint, or its
// lower bound for an open band (">20%"). AWS does not define the conversion;
// gpuscout states it with every result.
func BandHazard(label string) (lambda float64, p float64, note string, err error) {
	lo, hi, err := ParseBand(label)
	if err != nil {
		return 0, 0, "", err
	}
	p, note = (lo+hi)/2/100, "midpoint"
	if hi >= 100 {
		p, note = lo/100, "lower bound (optimistic: the band has no upper bound)"
	}
	if p >= 1 {
		return 0, 0, "", fmt.Errorf("band %q: a monthly interruption probability of 100%% has no hourly hazard", label)
	}
	return -math.Log(1-p) / catalog.HoursPerMonth, p, note, nil
}
