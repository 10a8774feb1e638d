package cost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// TestCapacityBlockDays: the lengths AWS sells (aws-capacity-blocks-docs):
// days up to 14, then weeks up to 182.
func TestCapacityBlockDays(t *testing.T) {
	for _, tc := range []struct {
		hours float64
		days  int
		ok    bool
	}{
		{0.5, 1, true}, {24, 1, true}, {24.01, 2, true}, {13 * 24, 13, true}, {14 * 24, 14, true},
		{14*24 + 1, 21, true}, {21 * 24, 21, true}, {22 * 24, 28, true}, {175*24 + 1, 182, true}, {182 * 24, 182, true},
		{182*24 + 1, 183, false}, {200 * 24, 203, false}, {365 * 24, 365, false},
	} {
		days, ok := CapacityBlockDays(tc.hours)
		if days != tc.days || ok != tc.ok {
			t.Errorf("CapacityBlockDays(%g h) = %d, %v; want %d, %v", tc.hours, days, ok, tc.days, tc.ok)
		}
	}
}

// TestCapacityBlockLengths: beyond 182 days, back-to-back blocks of 182
// days and the shortest length sold that covers the rest (18 days is not
// sold: 21).
func TestCapacityBlockLengths(t *testing.T) {
	for _, tc := range []struct {
		days float64
		want string
	}{
		{20, "[21]"}, {182, "[182]"}, {183, "[182 1]"}, {200, "[182 21]"}, {365, "[182 182 1]"}, {400, "[182 182 42]"},
	} {
		if got := fmt.Sprint(CapacityBlockLengths(tc.days * 24)); got != tc.want {
			t.Errorf("CapacityBlockLengths(%g days) = %s, want %s", tc.days, got, tc.want)
		}
	}
}

// TestCapacityBlockPrices: p5.48xlarge in us-east-1 at the table's 41.528
// USD an instance-hour (aws-capacity-blocks@b3a54aee), against hand
// calculations: the block covers the job's wall-clock days, every hour of
// it is paid up front.
func TestCapacityBlockPrices(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "aws", "p5.48xlarge", "us-east-1")
	tests := []struct {
		name     string
		u        Usage
		total    string
		feasible bool
		upfront  map[int]string // month -> paid then
		explain  []string
	}{
		// 14 days × 24 h × 41.528 = 13,953.408.
		{"a 14-day job", Usage{DurationHours: 14 * 24}, "13953.408", true, map[int]string{0: "13953.408"},
			[]string{"Capacity Block of 14 days", "41.53 USD/h × 336 h = 13,953.41 USD", "25% below on-demand 55.04 USD/h"}},
		// 20 days rounds up to 21 (weeks after 14): 21 × 24 × 41.528 × 2 = 41,860.224.
		{"20 days on 2 instances", Usage{DurationHours: 20 * 24, Instances: 2}, "41860.224", true, map[int]string{0: "41860.224"},
			[]string{"Capacity Block of 21 days", "× 2 instances", "24 h of it left idle"}},
		// A job run 365 h a month takes twice its hours of calendar: 336 h of
		// work hold the capacity 28 days: 28 × 24 × 41.528 = 27,906.816.
		{"half-time job", Usage{DurationHours: 336, HoursPerMonth: 365}, "27906.816", true, map[int]string{0: "27906.816"},
			[]string{"Capacity Block of 28 days", "672 h of wall-clock time"}},
		// 70 instances: two blocks (64 at most a block), one price: 1 × 24 × 41.528 × 70 = 69,767.04.
		{"70 instances", Usage{DurationHours: 10, Instances: 70}, "69767.04", true, map[int]string{0: "69767.04"},
			[]string{"EC2 Capacity Block of 1 day for", "(2 blocks at once: at most 64 instances a block)"}},
		// 200 days: longer than a block; back-to-back blocks of 182 and 21
		// days (18 is not sold), the second paid at month
		// floor(182 × 24 / 730) = 5: 203 × 24 × 41.528 = 202,324.416, of
		// which 182 × 24 × 41.528 = 181,394.304 up front. The label, the
		// total and the upfront say the same.
		{"200 days", Usage{DurationHours: 200 * 24}, "202324.416", false, map[int]string{0: "181394.304", 5: "20930.112"},
			[]string{"2 EC2 Capacity Blocks back to back, 182 + 21 = 203 days", "× 4872 h = 202,324.42 USD",
				"181,394.30 USD for 182 days at the start, 20,930.11 USD for 21 days on day 182: the first is the upfront",
				"the last block is the shortest length AWS sells", "not feasible as one booking: a Capacity Block lasts at most 182 days, so a 4800 h job (4800 h of wall-clock time) needs 2 blocks"}},
		// 257 instances: over the account's 256.
		{"257 instances", Usage{DurationHours: 24, Instances: 257}, "256144.704", false, nil, []string{"at most 256 instances"}},
		// A steady load over 3 months (2,190 h = 91.25 days) needs a 98-day block: 98 × 24 × 41.528 = 97,673.856.
		{"steady 3 months", Usage{HoursPerMonth: catalog.HoursPerMonth, HorizonMonths: 3}, "97673.856", true, nil,
			[]string{"Capacity Block of 98 days for your 3 months of use"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := e.Price(usage(t, tc.u), o)
			if err != nil {
				t.Fatal(err)
			}
			b := find(t, opts, catalog.ModelCapacityBlock, catalog.TermBlock, catalog.PayAll, "")
			if !b.Known || b.Feasible != tc.feasible || !b.Total.Value.Equal(dec(tc.total)) {
				t.Errorf("known %v feasible %v total %s; want true, %v, %s", b.Known, b.Feasible, b.Total.Value, tc.feasible, tc.total)
			}
			if tc.feasible && !b.Upfront.Value.Equal(b.Total.Value) {
				t.Errorf("upfront %s, want all of the total %s", b.Upfront.Value, b.Total.Value)
			}
			if w, ok := tc.upfront[0]; ok && !b.Upfront.Value.Equal(dec(w)) {
				t.Errorf("upfront %s, want what is paid at the start, %s", b.Upfront.Value, w)
			}
			for m, want := range tc.upfront {
				got := dec("0")
				for _, f := range b.Schedule {
					if f.Kind == FlowUpfront && f.From <= m && m <= f.To {
						got = got.Add(f.PerMonth)
					}
				}
				if !got.Equal(dec(want)) {
					t.Errorf("paid at month %d: %s, want %s (schedule %+v)", m, got, want, b.Schedule)
				}
			}
			text := strings.Join(b.Explanation, "\n")
			for _, want := range append(tc.explain, "aws-capacity-blocks@b3a54aee, 2026-07-22") {
				if !strings.Contains(text, want) {
					t.Errorf("explanation lacks %q:\n%s", want, text)
				}
			}
		})
	}
}

// TestCapacityBlockOnlyWhereSold: an instance type the table does not price
// as a Capacity Block has no such option, priced or not (AWS sells blocks
// of a few GPU types only).
func TestCapacityBlockOnlyWhereSold(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "aws", "g5.xlarge", "us-east-1")
	opts, err := e.Price(usage(t, Usage{DurationHours: 24}), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range opts {
		if x.Model == catalog.ModelCapacityBlock {
			t.Errorf("g5.xlarge has a capacity-block option: %+v", x)
		}
	}
}
