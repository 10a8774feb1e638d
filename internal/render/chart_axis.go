package render

import (
	"math"
)

// logSpan is the ratio of the largest to the smallest value above which an
// axis uses a log scale: beyond 100× a linear axis crowds the small values
// into one corner.
const logSpan = 100

// ChooseLog reports whether values from lo to hi (the data's range) want a
// log axis: both positive and hi more than 100 times lo.
func ChooseLog(lo, hi float64) bool {
	return lo > 0 && hi > 0 && hi/lo > logSpan && !math.IsInf(hi, 0)
}

// Scale maps data values to pixels along one axis, linear or log, over a
// range rounded out to round ticks.
type Scale struct {
	Min, Max float64 // the data range the axis shows, after rounding out
	Log      bool
	from, to float64 // pixels of Min and Max
}

// NewScale frames the data range [lo, hi] on pixels from..to (to may be
// smaller than from, as for a y axis). It chooses a log scale by ChooseLog
// unless linearOnly; a linear axis starts at zero when the data come close to
// it (lo within one span of zero).
func NewScale(lo, hi, from, to float64, linearOnly bool) Scale {
	s := Scale{from: from, to: to}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) || hi < lo {
		lo, hi = 0, 1
	}
	if !linearOnly && ChooseLog(lo, hi) {
		s.Log = true
		s.Min = math.Pow(10, math.Floor(math.Log10(lo)))
		s.Max = math.Pow(10, math.Ceil(math.Log10(hi)))
		return s
	}
	if hi == lo {
		if lo == 0 {
			hi = 1
		} else {
			lo, hi = lo-math.Abs(lo)*0.1, hi+math.Abs(hi)*0.1
		}
	}
	span := hi - lo
	if lo >= 0 && lo < span {
		lo = 0
	}
	st := niceStep(hi-lo, 5)
	s.Min, s.Max = math.Floor(lo/st)*st, math.Ceil(hi/st)*st
	if s.Max == s.Min {
		s.Max = s.Min + st
	}
	return s
}

// Pos is the pixel of a data value.
func (s Scale) Pos(v float64) float64 {
	var f float64
	if s.Log {
		v = math.Max(v, s.Min/10)
		f = (math.Log10(v) - math.Log10(s.Min)) / (math.Log10(s.Max) - math.Log10(s.Min))
	} else {
		f = (v - s.Min) / (s.Max - s.Min)
	}
	return s.from + f*(s.to-s.from)
}

// Ticks returns round values to mark: 1, 2, 5 × 10^k on a linear axis
// (about five of them); on a log axis every power of ten, with 2 and 5 ×
// between when it spans at most three decades.
func (s Scale) Ticks() []float64 {
	var out []float64
	if s.Log {
		lo, hi := int(math.Round(math.Log10(s.Min))), int(math.Round(math.Log10(s.Max)))
		for k := lo; k <= hi; k++ {
			p := math.Pow(10, float64(k))
			out = append(out, p)
			if hi-lo <= 3 && k < hi {
				out = append(out, 2*p, 5*p)
			}
		}
		return out
	}
	st := niceStep(s.Max-s.Min, 5)
	for i := 0; ; i++ {
		v := s.Min + float64(i)*st
		if v > s.Max+st/1e6 {
			break
		}
		if math.Abs(v) < st/1e6 {
			v = 0
		}
		out = append(out, v)
	}
	return out
}
