package advise

import (
	"sort"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// offering finds a catalog row by provider, type and region (its cheapest spot zone).
func offering(t *testing.T, c *catalog.Catalog, provider, typ, region string) *catalog.Offering {
	t.Helper()
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if o.Provider == provider && o.InstanceType == typ && o.Region == region {
			return c.SpotQuoteFor(o).Offering
		}
	}
	t.Fatalf("no %s %s in %s", provider, typ, region)
	return nil
}

// expectedRegions lists, straight from the catalog rows, the regions where
// typ has a spot and an on-demand price in USD and a sourced cross-region
// egress price: the first region, then the cheapest others by spot price.
func expectedRegions(c *catalog.Catalog, provider, typ, first string, n int) []string {
	spot := map[string]decimal.Decimal{}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if o.Provider != provider || o.InstanceType != typ || !o.Spot.Known || !o.OnDemand.Known || o.Spot.Currency != money.USD {
			continue
		}
		if t := c.Egress(provider, o.Region); t == nil {
			continue
		} else if _, ok := t.Paths[catalog.PathCrossRegion]; !ok {
			continue
		}
		if v, ok := spot[o.Region]; !ok || o.Spot.Value.LessThan(v) {
			spot[o.Region] = o.Spot.Value
		}
	}
	var others []string
	for r := range spot {
		if r != first {
			others = append(others, r)
		}
	}
	sort.Slice(others, func(i, j int) bool {
		if c := spot[others[i]].Cmp(spot[others[j]]); c != 0 {
			return c < 0
		}
		return others[i] < others[j]
	})
	return append([]string{first}, others[:n-1]...)
}

func failoverRequest(t *testing.T, a *Advisor, regions int) *Request {
	req := request(t, a, "cv-training", "A100-SXM4-40GB")
	req.WorkGPUHours, req.Deadline, req.SpotRegions = 672, 216, regions
	req.Defaults()
	return req
}

// --spot-regions 3 for p5.48xlarge in us-west-2: the regions are the
// catalog's (spot and on-demand known, egress sourced), the cheapest first;
// a move costs the job state (cv-training's ResNet-50: 25.6M params × 14 B
// = 0.3584 GB) × the cross-region price of the region it leaves:
// 0.3584 × 0.02 = 0.007168 USD out of us-west-2, 0.3584 × 0.09 = 0.032256
// USD out of Tokyo (egress.yaml).
func TestFailoverRegionsFromCatalog(t *testing.T) {
	a := advisor(t, money.USD)
	req := failoverRequest(t, a, 3)
	o := offering(t, a.Catalog, "aws", "p5.48xlarge", "us-west-2")
	f, info, err := a.failover(req, o)
	if err != nil || f == nil {
		t.Fatalf("failover: %v, %+v", err, info)
	}
	want := expectedRegions(a.Catalog, "aws", "p5.48xlarge", "us-west-2", 3)
	var got []string
	for _, r := range f.Regions {
		got = append(got, r.Name)
		if !r.Spot.Equal(a.Catalog.SpotQuoteFor(offering(t, a.Catalog, "aws", "p5.48xlarge", r.Name)).Price.Value) {
			t.Errorf("%s spot %s; want the region's cheapest zone", r.Name, r.Spot)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") || want[1] != "ap-northeast-1" {
		t.Fatalf("regions %v; want %v (ap-northeast-1 second)", got, want)
	}
	for _, c := range []struct {
		from, to int
		want     string
	}{{0, 1, "0.007168"}, {0, 2, "0.007168"}, {1, 0, "0.032256"}, {1, 1, "0"}} {
		if v := f.MoveCost[c.from][c.to]; !v.Equal(decimal.RequireFromString(c.want)) {
			t.Errorf("move %s → %s costs %s; want %s", got[c.from], got[c.to], v, c.want)
		}
	}
	if !strings.Contains(info.state, "25.6M params × 14 B") {
		t.Errorf("state note %q does not say where the size comes from", info.state)
	}
	// --checkpoint-gb replaces the estimate: 50 GB × 0.02 = 1 USD.
	req.CheckpointGB = 50
	f, _, _ = a.failover(req, o)
	if !f.MoveCost[0][1].Equal(decimal.NewFromInt(1)) {
		t.Errorf("50 GB out of us-west-2 costs %s; want 1", f.MoveCost[0][1])
	}
}

// A region whose cross-region egress has no sourced price is left out,
// with a note, and the next cheapest takes its place; where the plan's own
// region has none, the plan stays in it and says why.
func TestFailoverUnknownEgress(t *testing.T) {
	a := advisor(t, money.USD)
	c := a.Catalog.Clone()
	tokyo := c.Egress("aws", "ap-northeast-1")
	var tables []catalog.EgressTable
	for _, e := range c.EgressTables {
		if e.Group != tokyo.Group || e.Provider != "aws" {
			tables = append(tables, e)
		}
	}
	c.EgressTables = tables
	a.Catalog = c
	req := failoverRequest(t, a, 3)
	f, info, err := a.failover(req, offering(t, c, "aws", "p5.48xlarge", "us-west-2"))
	if err != nil || f == nil {
		t.Fatalf("failover: %v %+v", err, info)
	}
	want := expectedRegions(c, "aws", "p5.48xlarge", "us-west-2", 3)
	var got []string
	for _, r := range f.Regions {
		got = append(got, r.Name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") || strings.Contains(strings.Join(got, ","), "ap-northeast-1") {
		t.Errorf("regions %v; want %v, without ap-northeast-1", got, want)
	}
	if n := strings.Join(info.notes, "\n"); !strings.Contains(n, "ap-northeast-1 left out: moving the job out of it has no sourced price") {
		t.Errorf("notes %q do not say why ap-northeast-1 was left out", n)
	}
	f, info, _ = a.failover(req, offering(t, c, "aws", "p5.48xlarge", "ap-northeast-1"))
	if f != nil || len(info.notes) != 1 || !strings.HasPrefix(info.notes[0], "spot in ap-northeast-1 only: moving the job out of it has no sourced price") {
		t.Errorf("from Tokyo: %v, %q; want no failover, and why", f, info.notes)
	}
}

// A whole advise with --spot-regions 3: every failing-over plan names its
// regions (its own first), says its moves, and its floor (the multi-region
// optimum) is at most its usage.
func TestAdviseSpotRegions(t *testing.T) {
	a := advisor(t, money.USD)
	a.SpotRuns = 200
	req := failoverRequest(t, a, 3)
	req.Deadline = 100 // the optimum on 20 runs fits its budget (a 0.49 h grid for 29.75 h)
	res := run(t, a, req)
	n, floors := 0, 0
	for i := range res.Plans {
		p := &res.Plans[i]
		if len(p.SpotRegions) == 0 {
			continue
		}
		n++
		text := strings.Join(p.Explanation, "\n")
		if p.SpotRegions[0] != p.Offering.Region || len(p.SpotRegions) != 3 || p.Payment != "failover-deadline" ||
			!strings.Contains(text, "spot in "+p.Offering.Region+", failing over to "+strings.Join(p.SpotRegions[1:], ", ")) || !strings.Contains(text, "moves a run on average") {
			t.Errorf("plan %d: regions %v, payment %s:\n%s", p.Rank, p.SpotRegions, p.Payment, text)
		}
		usage := p.Breakdown[cost.FlowUsage].Add(p.Breakdown[SpotOverhead])
		if p.SpotFloor.Valid && p.SpotFloor.Decimal.GreaterThan(usage) {
			t.Errorf("plan %d: floor %s above the usage %s", p.Rank, p.SpotFloor.Decimal, usage)
		}
		if p.SpotFloor.Valid {
			floors++
		} else if !strings.Contains(text, "no hindsight optimum") && !strings.Contains(text, "hindsight optimum: computed for the best spot plan") {
			t.Errorf("plan %d: no floor and no reason", p.Rank)
		}
	}
	if n == 0 || floors == 0 {
		t.Fatalf("%d plans fail over, %d with a floor; want some of each", n, floors)
	}
}

// The job state a move transfers: --checkpoint-gb, else the model (a full
// fine-tune of an 8B model: 8.03B × 14 B), else the scenario's reference
// model; a scenario without one and no flag: no failover, and the plan says
// to give --checkpoint-gb.
func TestFailoverJobState(t *testing.T) {
	a := advisor(t, money.USD)
	req := failoverRequest(t, a, 2)
	if gb, _ := jobState(req); gb != 25.6e6*14/1e9 {
		t.Errorf("cv-training: %g GB; want 25.6e6 × 14 B = 0.3584", gb)
	}
	req.CheckpointGB = 7
	if gb, how := jobState(req); gb != 7 || !strings.Contains(how, "--checkpoint-gb") {
		t.Errorf("--checkpoint-gb 7: %g GB (%s)", gb, how)
	}
	inf := request(t, a, "inference-batch", "L4")
	inf.WorkGPUHours, inf.SpotRegions = 48, 3
	inf.Defaults()
	if gb, _ := jobState(inf); gb != 0 {
		t.Fatalf("inference-batch without a model: %g GB; want none", gb)
	}
	f, info, err := a.failover(inf, offering(t, a.Catalog, "aws", "p5.48xlarge", "us-west-2"))
	if err != nil || f != nil || len(info.notes) != 1 || !strings.Contains(info.notes[0], "give --checkpoint-gb") {
		t.Errorf("no state size: %v, %q", f, info.notes)
	}
}
