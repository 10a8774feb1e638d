// Package feedstest is the conformance suite every feeds.Source passes, run
// by each feed's own test on that feed's real inputs (shared/data, skipped
// where absent, and data/curated): the feed describes what it reads and the
// files exist; it parses them without error and deterministically; a known
// price is positive and has a source id, an as-of date (YYYY-MM-DD) and an
// ISO 4217 currency; an unknown price is never a zero amount; commitments
// and spot bands are cited and in range; and every source row is accounted
// for — turned into a record or reported as left out with a reason.
package feedstest

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// Want is what the feed's own test counted in its inputs, independently of
// the feed's parser.
type Want struct {
	// Rows maps each file the feed reads (relative to its folder) to the
	// number of rows (or entries) in it. Every row must be the origin of a
	// record or of a left-out report.
	Rows map[string]int
	// Empty, when set, says why the real inputs yield no record (every row
	// is then left out with a reason).
	Empty string
}

// Inputs returns the project's real inputs: shared/data (the test skips where
// it is absent) and data/curated.
func Inputs(t testing.TB) feeds.Inputs {
	t.Helper()
	shared := shareddata.Dir(t)
	return feeds.Inputs{Shared: os.DirFS(shared), Curated: os.DirFS(filepath.Join(shareddata.ModuleRoot(t), "data", "curated"))}
}

var (
	currencyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z]{3}$`) })
)

// Run checks src against the suite on the real inputs.
func Run(t *testing.T, src feeds.Source, want Want) {
	t.Helper()
	if src == nil {
		t.Fatal("feedstest: nil source (is it in the registry?)")
	}
	RunWith(t, src, Inputs(t), want)
}

// RunWith checks src against the suite on the given inputs.
func RunWith(t testing.TB, src feeds.Source, in feeds.Inputs, want Want) {
	t.Helper()
	if src.ID() == "" {
		t.Error("ID() is empty")
	}
	d := src.Describe()
	if d.Title == "" || d.Yields == "" || len(d.Reads) == 0 {
		t.Errorf("Describe() = %+v: want a title, what it yields and the files it reads", d)
	}
	var files []string
	for _, r := range d.Reads {
		fsys, err := in.FS(r.Root)
		if err != nil {
			t.Fatal(err)
		}
		m, err := fs.Glob(fsys, r.Path)
		if err != nil || len(m) == 0 {
			t.Errorf("reads %s: no such file (%v)", r, err)
		}
		files = append(files, m...)
	}
	res, err := src.Read(in)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	again, err := src.Read(in)
	if err != nil {
		t.Fatalf("second Read: %v", err)
	}
	if !reflect.DeepEqual(res, again) {
		t.Error("two reads of the same files differ: the parse is not deterministic")
	}
	if n := len(res.Offerings) + len(res.Commitments) + len(res.SpotBands) + len(res.Specs); n == 0 && want.Empty == "" {
		t.Error("the feed yielded nothing")
	} else if n > 0 && want.Empty != "" {
		t.Errorf("Want.Empty says %q, but the feed yielded %d records", want.Empty, n)
	}
	origins := map[string]bool{}
	origin := func(kind, o string) {
		t.Helper()
		file := originFile(o)
		if !slices.Contains(files, file) {
			t.Errorf("%s origin %q: not one of the files the feed says it reads (%s)", kind, o, strings.Join(files, ", "))
		}
		origins[o] = true
	}
	for _, o := range res.Offerings {
		origin("offering", o.Origin)
		if o.Provider == "" || o.InstanceType == "" {
			t.Errorf("%s: offering without provider or instance type", o.Origin)
		}
		checkPrice(t, o.Origin+" on-demand", o.OnDemand)
		checkPrice(t, o.Origin+" spot", o.Spot)
		if o.GPUCount < 0 || o.GPUMemoryMiB < 0 || o.VCPUs < 0 || o.MemoryGiB < 0 || o.LocalDiskGB < 0 {
			t.Errorf("%s: a negative spec figure in %+v", o.Origin, o)
		}
	}
	for _, c := range res.Commitments {
		origin("commitment", c.Origin)
		cited(t, c.Origin+" commitment", c.Currency, c.Source, c.AsOf)
		if c.Upfront.IsNegative() || c.Hourly.IsNegative() || c.Monthly.IsNegative() {
			t.Errorf("%s: negative commitment fee", c.Origin)
		}
		if !c.Upfront.IsPositive() && !c.Hourly.IsPositive() && !c.Monthly.IsPositive() {
			t.Errorf("%s: commitment %s %s %s with no fee: an unknown price must not read as zero", c.Origin, c.Model, c.Term, c.Payment)
		}
	}
	for _, b := range res.SpotBands {
		origin("spot band", b.Origin)
		cited(t, b.Origin+" spot band", "USD", b.Source, b.AsOf)
		if !(b.Low >= 0 && b.Low < b.High && b.High <= 100) || b.Label == "" {
			t.Errorf("%s: band %q [%v, %v] percent out of range", b.Origin, b.Label, b.Low, b.High)
		}
	}
	for _, s := range res.Specs {
		origin("spec", s.Origin)
		if s.GPU == "" || s.GPUCount <= 0 || s.VCPUs <= 0 || s.MemoryGiB <= 0 {
			t.Errorf("%s: spec %s lacks GPU, count, vCPUs or memory", s.Origin, s.InstanceType)
		}
	}
	for _, a := range res.Accelerators {
		origin("accelerator", a.Origin)
	}
	for _, l := range res.Licenses {
		origin("licence", l.Origin)
		cited(t, l.Origin+" licence", l.Currency, l.Source, l.AsOf)
		if !l.PerHour.IsPositive() || l.License == "" || l.InstanceType == "" {
			t.Errorf("%s: licence %q on %q at %s per hour: want a named licence, an instance type and a positive price", l.Origin, l.License, l.InstanceType, l.PerHour)
		}
	}
	for _, l := range res.LeftOut {
		origin("left-out", l.Origin)
		if strings.TrimSpace(l.Reason) == "" || strings.TrimSpace(l.What) == "" {
			t.Errorf("%s: left out without saying what or why: %+v", l.Origin, l)
		}
	}
	for file, n := range want.Rows {
		got := 0
		for o := range origins {
			if originFile(o) == file {
				got++
			}
		}
		if got != n {
			t.Errorf("%s: %d rows accounted for (records or left out), the file has %d", file, got, n)
		}
	}
	for _, f := range files {
		if _, ok := want.Rows[f]; !ok {
			t.Errorf("%s: the test gives no row count for it", f)
		}
	}
}

// originFile is the file part of "file:line" or "file#entry".
func originFile(o string) string {
	if i := strings.IndexByte(o, '#'); i >= 0 {
		return o[:i]
	}
	if i := strings.LastIndexByte(o, ':'); i >= 0 {
		return o[:i]
	}
	return o
}

func checkPrice(t testing.TB, what string, p feeds.Price) {
	t.Helper()
	if !p.Known {
		if !p.Amount.IsZero() || p.Source != "" {
			t.Errorf("%s: unknown price with amount %s, source %q", what, p.Amount, p.Source)
		}
		return
	}
	if !p.Amount.IsPositive() {
		t.Errorf("%s: known price %s is not positive: an unknown price must not read as zero", what, p.Amount)
	}
	cited(t, what, p.Currency, p.Source, p.AsOf)
}

func cited(t testing.TB, what, currency, source, asOf string) {
	t.Helper()
	if !currencyRE().MatchString(currency) {
		t.Errorf("%s: currency %q is not an ISO 4217 code", what, currency)
	}
	if source == "" {
		t.Errorf("%s: no source id", what)
	}
	if _, err := time.Parse("2006-01-02", asOf); err != nil {
		t.Errorf("%s: as-of %q is not a YYYY-MM-DD date", what, asOf)
	}
}
