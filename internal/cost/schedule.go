package cost

import (
	"math"
	"sort"

	"github.com/shopspring/decimal"
)

// Kinds of cash flow.
const (
	FlowUpfront    = "upfront"
	FlowCommitment = "commitment" // recurring commitment charges, used or not
	FlowUsage      = "usage"      // on-demand or spot hours
	FlowEgress     = "egress"
	FlowStorage    = "storage"
	FlowPromotion  = "promotion" // negative
	FlowCredit     = "credit"    // negative
)

// FlowKinds lists the kinds in display order.
var FlowKinds = []string{FlowUpfront, FlowCommitment, FlowUsage, FlowEgress, FlowStorage, FlowPromotion, FlowCredit}

// Flow is an amount paid at the end of each month From..To. Month 0 is the
// start (upfront payments); month j is the end of the j-th month. Runs of
// equal months are one Flow, so a 3-year schedule stays a handful of values.
type Flow struct {
	Kind     string
	From, To int
	PerMonth decimal.Decimal
}

// Schedule is an option's cash flows.
type Schedule []Flow

// Add appends a flow, skipping empty ones.
func (s *Schedule) Add(kind string, from, to int, perMonth decimal.Decimal) {
	if to < from || perMonth.IsZero() {
		return
	}
	*s = append(*s, Flow{Kind: kind, From: from, To: to, PerMonth: perMonth})
}

// addTerm adds the payments of one commitment term of n months bought at
// month index start: the upfront fee at start, and the recurring fee of each
// of its months at that month's start where it is paid ahead (indexes
// start..start+n-1: a subscription's month 0 is its first month's fee), else
// at its end (start+1..start+n).
func (s *Schedule) addTerm(start, n int, upfront, recurring decimal.Decimal, ahead bool) {
	s.Add(FlowUpfront, start, start, upfront)
	if ahead {
		s.Add(FlowCommitment, start, start+n-1, recurring)
	} else {
		s.Add(FlowCommitment, start+1, start+n, recurring)
	}
}

// Total is the plain sum of all payments.
func (s Schedule) Total() decimal.Decimal {
	t := decimal.Zero
	for _, f := range s {
		t = t.Add(f.PerMonth.Mul(decimal.NewFromInt(int64(f.To - f.From + 1))))
	}
	return t
}

// TotalOf sums the flows of one kind.
func (s Schedule) TotalOf(kind string) decimal.Decimal {
	t := decimal.Zero
	for _, f := range s {
		if f.Kind == kind {
			t = t.Add(f.PerMonth.Mul(decimal.NewFromInt(int64(f.To - f.From + 1))))
		}
	}
	return t
}

// AtStart is the cash paid at month 0: upfront fees and fees billed in advance.
func (s Schedule) AtStart() decimal.Decimal {
	t := decimal.Zero
	for _, f := range s {
		if f.From == 0 {
			t = t.Add(f.PerMonth)
		}
	}
	return t
}

// annuity is Σ_{j=from}^{to} v^j with v = 1/(1+i); exactly the count at i = 0.
func annuity(i float64, from, to int) decimal.Decimal {
	n := to - from + 1
	if i == 0 {
		return decimal.NewFromInt(int64(n))
	}
	v := 1 / (1 + i)
	f := math.Pow(v, float64(from)) * (1 - math.Pow(v, float64(n))) / (1 - v)
	return decimal.NewFromFloat(f)
}

// NPV discounts every payment to the start at the monthly rate i.
func (s Schedule) NPV(i float64) decimal.Decimal {
	t := decimal.Zero
	for _, f := range s {
		t = t.Add(f.PerMonth.Mul(annuity(i, f.From, f.To)))
	}
	return t
}

// Month is one month of a schedule, by kind.
type Month struct {
	Index  int
	ByKind map[string]decimal.Decimal
	Total  decimal.Decimal
}

// Expand lays the schedule out month by month, 0..n.
func (s Schedule) Expand(n int) []Month {
	out := make([]Month, n+1)
	for j := range out {
		out[j] = Month{Index: j, ByKind: map[string]decimal.Decimal{}, Total: decimal.Zero}
	}
	for _, f := range s {
		for j := f.From; j <= f.To && j <= n; j++ {
			out[j].ByKind[f.Kind] = out[j].ByKind[f.Kind].Add(f.PerMonth)
			out[j].Total = out[j].Total.Add(f.PerMonth)
		}
	}
	return out
}

// interval is a run of months over which the monthly charges are constant.
type interval struct {
	from, to int
	charge   decimal.Decimal // sum of the given kinds in each month of the run
}

// intervals splits months 0..n into runs of equal monthly charge of the given
// kinds (month 0 holds fees billed in advance for the first month).
func (s Schedule) intervals(n int, kinds map[string]bool, extraBreaks ...int) []interval {
	cuts := map[int]bool{0: true, 1: true, n + 1: true}
	for _, f := range s {
		if kinds[f.Kind] {
			cuts[f.From] = true
			cuts[f.To+1] = true
		}
	}
	for _, b := range extraBreaks {
		cuts[b] = true
	}
	var pts []int
	for c := range cuts {
		if c >= 0 && c <= n+1 {
			pts = append(pts, c)
		}
	}
	sort.Ints(pts)
	var out []interval
	for k := 0; k+1 < len(pts); k++ {
		a, b := pts[k], pts[k+1]-1
		ch := decimal.Zero
		for _, f := range s {
			if kinds[f.Kind] && f.From <= a && a <= f.To {
				ch = ch.Add(f.PerMonth)
			}
		}
		out = append(out, interval{from: a, to: b, charge: ch})
	}
	return out
}
