package feedstest

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// recorder collects the suite's failures instead of failing the test.
type recorder struct {
	*testing.T
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Error(args ...any) { r.add(fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) {
	r.add(fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.add(fmt.Sprint(args...)); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) {
	r.add(fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (r *recorder) add(s string) { r.mu.Lock(); r.errs = append(r.errs, s); r.mu.Unlock() }

func run(t *testing.T, src feeds.Source, in feeds.Inputs, want Want) []string {
	r := &recorder{T: t}
	done := make(chan struct{})
	go func() { defer close(done); RunWith(r, src, in, want) }()
	<-done
	return r.errs
}

// fake yields what its fields say, from one file "f.csv" with three rows.
type fake struct {
	offs  []feeds.Offering
	left  []feeds.LeftOut
	calls int
	flaky bool
}

func (f *fake) ID() string { return "fake" }
func (f *fake) Describe() feeds.Description {
	return feeds.Description{Title: "t", Yields: "y", Reads: []feeds.Input{{Root: feeds.Shared, Path: "f.csv"}}}
}
func (f *fake) Read(feeds.Inputs) (*feeds.Result, error) {
	f.calls++
	res := &feeds.Result{Offerings: append([]feeds.Offering(nil), f.offs...), LeftOut: f.left}
	if f.flaky && f.calls%2 == 0 {
		res.Offerings = res.Offerings[:1]
	}
	return res, nil
}

func TestSuiteCatchesViolations(t *testing.T) {
	in := feeds.Inputs{Shared: fstest.MapFS{"f.csv": {Data: []byte("h\n1\n2\n3\n")}}}
	good := feeds.Known(decimal.RequireFromString("1.5"), "USD", "src", "2026-07-09")
	off := func(line int, p feeds.Price) feeds.Offering {
		return feeds.Offering{Origin: fmt.Sprintf("f.csv:%d", line), Provider: "p", InstanceType: "t", OnDemand: p}
	}
	valid := []feeds.Offering{off(2, good), off(3, feeds.Unknown("USD"))}
	left := []feeds.LeftOut{{Origin: "f.csv:4", What: "t", Reason: "CPU-only"}}
	for _, tc := range []struct {
		name string
		src  *fake
		want string // a failure containing this; "" = passes
	}{
		{"conforming", &fake{offs: valid, left: left}, ""},
		{"known zero price", &fake{offs: []feeds.Offering{off(2, feeds.Known(decimal.Zero, "USD", "src", "2026-07-09")), valid[1]}, left: left}, "not positive"},
		{"no source", &fake{offs: []feeds.Offering{off(2, feeds.Known(decimal.NewFromInt(1), "USD", "", "2026-07-09")), valid[1]}, left: left}, "no source id"},
		{"bad date", &fake{offs: []feeds.Offering{off(2, feeds.Known(decimal.NewFromInt(1), "USD", "s", "2026-7-9")), valid[1]}, left: left}, "YYYY-MM-DD"},
		{"bad currency", &fake{offs: []feeds.Offering{off(2, feeds.Known(decimal.NewFromInt(1), "usd", "s", "2026-07-09")), valid[1]}, left: left}, "ISO 4217"},
		{"row silently dropped", &fake{offs: valid}, "2 rows accounted for"},
		{"left out without reason", &fake{offs: valid, left: []feeds.LeftOut{{Origin: "f.csv:4", What: "t"}}}, "without saying"},
		{"not deterministic", &fake{offs: valid, left: left, flaky: true}, "not deterministic"},
		{"origin in another file", &fake{offs: []feeds.Offering{valid[0], {Origin: "g.csv:3", Provider: "p", InstanceType: "t"}}, left: left}, "not one of the files"},
	} {
		errs := run(t, tc.src, in, Want{Rows: map[string]int{"f.csv": 3}})
		got := strings.Join(errs, "\n")
		if tc.want == "" && len(errs) > 0 {
			t.Errorf("%s: failures %q, want none", tc.name, got)
		}
		if tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: failures %q, want one containing %q", tc.name, got, tc.want)
		}
	}
}
