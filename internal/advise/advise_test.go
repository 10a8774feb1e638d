package advise

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

func advisor(t testing.TB, cur money.Currency) *Advisor {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadScenarios()
	if err != nil {
		t.Fatal(err)
	}
	return &Advisor{Catalog: c, FX: money.DefaultFX(), Currency: cur, Scenarios: s}
}

func request(t testing.TB, a *Advisor, scenario, ref string) *Request {
	t.Helper()
	sc, err := a.Scenarios.Get(scenario)
	if err != nil {
		t.Fatal(err)
	}
	g := a.Catalog.GPU(ref)
	if g == nil {
		t.Fatalf("no GPU %s", ref)
	}
	return &Request{Scenario: sc, Ref: g, RefCount: 1, Objective: ObjectiveCost, Usage: cost.Usage{Spot: cost.DefaultSpot}}
}

func run(t *testing.T, a *Advisor, req *Request) *Result {
	t.Helper()
	res, err := a.Advise(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// An 8-GPU LLM job never lands on PCIe-only instances when NVSwitch ones fit
// the budget: worked by hand, 8×L40S PCIe nodes are cheap per BF16 FLOP
// (362 TF per GPU) yet the rule removes them because NVSwitch nodes fit.
func TestLLMJobAvoidsPCIe(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-pretraining", "A100-SXM4-40GB")
	// 2000 GPU-h in 30 days fits one 8-GPU node, so PCIe nodes reach the
	// rule (a job needing several nodes drops them earlier: their network
	// is not a fast one).
	req.WorkGPUHours, req.Deadline = 2000, 30*24
	req.Budget = decimal.NullDecimal{Decimal: decimal.NewFromInt(60000), Valid: true}
	res := run(t, a, req)
	if len(res.Plans) == 0 {
		t.Fatal("no plan")
	}
	nvs := 0
	for _, p := range res.Plans {
		if p.Offering.GPUCount >= 4 {
			if l := p.Offering.Interconnect; l != catalog.LinkNVSwitch && l != catalog.LinkNVLink {
				t.Errorf("plan on %s with %s links", p.Offering.InstanceType, l)
			}
			nvs++
		}
	}
	if nvs == 0 {
		t.Fatal("no multi-GPU NVSwitch plan, so the rule was not exercised")
	}
	found := false
	for _, x := range res.Excluded {
		if strings.Contains(x.Reason, "linked by pcie") {
			found = true
		}
		// An unsourced link is not a link named "unknown".
		if strings.Contains(x.Reason, "linked by unknown") {
			t.Errorf("%s: %s", x.What, x.Reason)
		}
	}
	if !found {
		t.Error("no PCIe family was excluded with its reason")
	}
}

// A steady 730 h a month load picks a commitment where one is priced: GCP L4
// g2-standard-4, 3y CUD 231.43 USD/month × 36 < on-demand 0.70 USD/h × 730 × 36.
func TestSteadyLoadPicksCommitment(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "inference-online", "L4")
	req.HoursPerMonth, req.HorizonMonths = 730, 36
	req.Select = catalog.Query{Providers: []string{"gcp"}}
	res := run(t, a, req)
	best := res.Plans[0]
	if best.Model != catalog.ModelCommitment || best.Term != "3y" {
		t.Fatalf("best plan %s %s, want the 3y commitment", best.Model, best.Term)
	}
	// Cross-check with the cost engine directly.
	eng := &cost.Engine{Catalog: a.Catalog, FX: a.FX, Currency: a.Currency, SkipSpot: true}
	u, err := cost.Usage{HoursPerMonth: 730, HorizonMonths: 36, Instances: 1, Egress: map[string]float64{}}.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := eng.Price(&u, best.Offering)
	for _, o := range opts {
		if o.Model == best.Model && o.Term == best.Term && !o.Total.Value.Equal(best.Total.Value) {
			t.Errorf("plan total %s differs from the cost engine's %s", best.Total, o.Total)
		}
	}
	if !strings.Contains(strings.Join(best.Explanation, "\n"), "wins above 329 h/month") {
		t.Errorf("explanation lacks the break-even: %v", best.Explanation)
	}
}

// A one-week job (on an A100; longer on slower GPUs) never picks a
// commitment longer than the billing months its run begins (a year's term):
// a one-month subscription it may, paying the whole month at its start
// (cost.Usage.Terms); a Capacity Block, made for jobs, lasts the job's days.
func TestWeekJobNoCommitment(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "cv-training", "A100-SXM4-40GB")
	req.WorkGPUHours = 7 * 24 * 4
	res := run(t, a, req)
	blocks := 0
	for _, p := range res.Plans {
		switch {
		case p.Model == catalog.ModelCapacityBlock:
			blocks++
			if p.BlockDays < 1 || p.BlockDays > 14 || !p.UpfrontCash.Value.Equal(p.Total.Value) {
				t.Errorf("plan %d: a %d-day block, upfront %s of %s, for a job of at most a week", p.Rank, p.BlockDays, p.UpfrontCash.Value, p.Total.Value)
			}
		case p.Term != "" && catalog.TermMonths(p.Term) > int(math.Ceil(p.HorizonMonths-1e-9)):
			t.Errorf("plan %d uses a %s commitment for a %.0f h job of %.2f months", p.Rank, p.Term, p.ExpectedHours, p.HorizonMonths)
		case p.Model == catalog.ModelSubscription && !p.UpfrontCash.Value.IsPositive():
			t.Errorf("plan %d: a %s subscription with no cash at the start: %+v", p.Rank, p.Term, p.CashFlows)
		}
	}
	if blocks == 0 {
		t.Error("no Capacity Block plan, though p4d.24xlarge has one in us-east-1")
	}
}

// A China-only constraint returns only mainland regions.
func TestChinaOnly(t *testing.T) {
	a := advisor(t, money.CNY)
	req := request(t, a, "inference-online", "A100-SXM4-40GB")
	req.HoursPerMonth, req.HorizonMonths = 730, 12
	yes := true
	req.Select = catalog.Query{China: &yes}
	res := run(t, a, req)
	if len(res.Plans) == 0 {
		t.Fatal("no plan in mainland China")
	}
	for _, p := range res.Plans {
		if !p.Offering.China || p.Currency != money.CNY {
			t.Errorf("plan in %s (china=%v, %s)", p.Offering.Region, p.Offering.China, p.Currency)
		}
	}
}

// No plan violates a constraint, over many budgets and deadlines.
func TestNoPlanViolatesConstraints(t *testing.T) {
	a := advisor(t, money.USD)
	a.SpotRuns = 200 // 16 plans with spot: keep it cheap under -race; the constraint check does not depend on the run count
	for _, budget := range []int64{0, 2000, 10000, 50000} {
		for _, deadline := range []float64{0, 48, 200, 800} {
			req := request(t, a, "llm-finetuning", "A100-SXM4-80GB")
			req.WorkGPUHours = 2000
			req.Deadline = deadline
			if budget > 0 {
				req.Budget = decimal.NullDecimal{Decimal: decimal.NewFromInt(budget), Valid: true}
			}
			res := run(t, a, req)
			for _, p := range res.Plans {
				if req.Budget.Valid && p.Total.Value.GreaterThan(req.Budget.Decimal) {
					t.Errorf("budget %d: plan %d costs %s", budget, p.Rank, p.Total)
				}
				if deadline > 0 && (p.ExpectedHours > deadline+1e-6 || p.PMissDeadline > 0.05) {
					t.Errorf("deadline %g: plan %d takes %.1f h, misses %.2f", deadline, p.Rank, p.ExpectedHours, p.PMissDeadline)
				}
			}
			if len(res.Plans) == 0 && (res.Violation == "" || len(res.Closest) == 0) {
				t.Errorf("budget %d deadline %g: nothing fits, but no explanation or closest plans", budget, deadline)
			}
		}
	}
}

// Contradictory constraints give an answer that says so and shows the closest plans.
func TestContradictoryConstraints(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-pretraining", "A100-SXM4-40GB")
	req.WorkGPUHours, req.Deadline = 20000, 24
	req.Budget = decimal.NullDecimal{Decimal: decimal.NewFromInt(100), Valid: true}
	res := run(t, a, req)
	if len(res.Plans) != 0 || len(res.Closest) == 0 || !strings.Contains(res.Violation, "the cheapest plan that meets the 24 h deadline") ||
		!strings.Contains(res.Violation, "over the budget") {
		t.Errorf("violation %q, %d closest", res.Violation, len(res.Closest))
	}
}

// The spot plan's numbers are the simulator's: re-simulate with the same inputs.
func TestSpotPlanMatchesSimulator(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "cv-training", "A100-SXM4-40GB")
	req.WorkGPUHours, req.Deadline = 672, 400
	res := run(t, a, req)
	var sp *Plan
	for i := range res.Plans {
		if res.Plans[i].Model == cost.ModelSpot {
			sp = &res.Plans[i]
			break
		}
	}
	if sp == nil {
		t.Fatal("no spot plan")
	}
	o := sp.Offering
	lambda, _, _, _ := spot.BandHazard(a.Catalog.SpotBandChoice(o, "").Label)
	job := spot.Job{Work: req.WorkGPUHours / sp.NodeSpeed / float64(sp.Instances), Deadline: req.Deadline, Nodes: sp.Instances,
		Checkpoint: 1, Restart: 10.0 / 60, SpotPrice: a.Catalog.SpotQuoteFor(o).Price.Value.InexactFloat64(), ODPrice: o.OnDemand.Value.InexactFloat64()}
	job.Restart *= cost.Harmonic(sp.Instances) // the gang waits for its last instance
	job.Startup = job.Restart                  // and the first launch pays it too, as in spot
	s, err := spot.Simulate(spot.Config{Job: job, Model: spot.Hazard{PerHour: lambda}, Runs: spot.DefaultRuns, Seed: 1}, []spot.Policy{spot.UniformProgress{}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sp.Total.Value.InexactFloat64()-s[0].CostMean) > 1e-6 || math.Abs(sp.ExpectedHours-s[0].CompletionMean) > 1e-6 {
		t.Errorf("plan %s / %.3f h, simulator %.4f / %.3f h", sp.Total, sp.ExpectedHours, s[0].CostMean, s[0].CompletionMean)
	}
	// The breakdown splits the usage: work at the spot price (total ÷ the
	// simulated hours factor, to the cent) and the spot overhead, summing to the total.
	f := sp.option.SpotEstimate.HoursFactor
	work, over := sp.Breakdown[cost.FlowUsage], sp.Breakdown[SpotOverhead]
	if f <= 1 || !work.Add(over).Equal(sp.Total.Value) || math.Abs(work.InexactFloat64()-sp.Total.Value.InexactFloat64()/f) > 0.005 {
		t.Errorf("breakdown usage %s + overhead %s; want %s split at hours factor %.4f", work, over, sp.Total.Value, f)
	}
}

// The throughput model: H100 SXM over A100 SXM4 40GB for llm-pretraining
// (β = 0.2): (989/312)^0.8 · (3350/1555)^0.2 = 2.93.
func TestSpeedModel(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-pretraining", "A100-SXM4-40GB")
	sm := &speedModel{sc: req.Scenario, ref: req.Ref}
	s, _, err := sm.speed(a.Catalog.GPU("H100-SXM5-80GB"))
	want := math.Pow(989.0/312, 0.8) * math.Pow(3350.0/1555, 0.2)
	if err != nil || math.Abs(s-want) > 1e-9 {
		t.Errorf("speed %v, want %v", s, want)
	}
	if _, _, err := sm.speed(&catalog.GPU{Name: "NoFigures"}); err == nil || !strings.Contains(err.Error(), "--bench") {
		t.Errorf("a GPU without compute figures or an estimate: %v", err)
	}
	// A10G has no figures of its own: A10's stand in (gpus.yaml estimate).
	a10g, _, err := sm.speed(a.Catalog.GPU("A10G"))
	if a10, _, _ := sm.speed(a.Catalog.GPU("A10")); err != nil || a10g != a10 {
		t.Errorf("A10G speed %g (%v); want A10's %g", a10g, err, a10)
	}
	// A measured scenario throughput replaces the model.
	sm.bench = map[*catalog.GPU]*benchreport.Report{
		a.Catalog.GPU("A10G"):           {ScenarioThroughput: map[string]float64{"llm-pretraining": 50}},
		a.Catalog.GPU("A100-SXM4-40GB"): {ScenarioThroughput: map[string]float64{"llm-pretraining": 200}},
	}
	if s, _, err := sm.speed(a.Catalog.GPU("A10G")); err != nil || s != 0.25 {
		t.Errorf("measured A10G speed %v, %v; want 0.25", s, err)
	}
}

// BenchmarkAdviseWithSpot plans the article's example with spot simulation.
func BenchmarkAdviseWithSpot(b *testing.B) {
	a := advisor(b, money.USD)
	for b.Loop() {
		req := request(b, a, "cv-training", "A100-SXM4-40GB")
		req.WorkGPUHours = 672
		if _, err := a.Advise(req); err != nil {
			b.Fatal(err)
		}
	}
}

// The decisive comparison carries the model's numbers: the speed ratio and
// the cost ratio against the cheapest plan on the reference family.
func TestReferenceComparison(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "cv-training", "A100-SXM4-40GB")
	req.WorkGPUHours = 672
	res := run(t, a, req)
	checked := 0
	for _, p := range res.Plans {
		for _, line := range p.Explanation {
			if !strings.Contains(line, "as fast as") {
				continue
			}
			var ref *Plan
			for i := range res.Plans {
				q := &res.Plans[i]
				if q.Offering.GPU.Family == "A100" && strings.Contains(line, q.Offering.InstanceType+" "+q.Model+" (") {
					ref = q
				}
			}
			if ref == nil {
				t.Fatalf("reference plan of %q not found", line)
			}
			want := fmt.Sprintf("%.2f× as fast", p.Speed/ref.Speed)
			if !strings.Contains(line, want) {
				t.Errorf("%q lacks %q", line, want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no plan compares itself with the reference GPU")
	}
}

// Issue 8: a job shorter than a provider's billing minimum is billed the
// minimum, not excluded. 0.05 GPU-h of A100 work on an 8-GPU p4d.24xlarge
// takes 0.05/(8 × 0.95 scaling) h ≈ 24 s; AWS bills 60 s at least, so the
// on-demand plan costs the hourly price × 60/3600.
func TestJobBelowBillingMinimum(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "inference-batch", "A100-SXM4-40GB")
	req.WorkGPUHours = 0.05
	req.Select = catalog.Query{Providers: []string{"aws"}}
	res := run(t, a, req)
	for _, x := range res.Excluded {
		if strings.Contains(x.Reason, "billing minimum") {
			t.Errorf("excluded for the billing minimum: %s: %s", x.What, x.Reason)
		}
	}
	found := false
	for _, p := range res.Plans {
		if p.Offering.InstanceType != "p4d.24xlarge" || p.Model != cost.ModelOnDemand {
			continue
		}
		found = true
		want := p.Offering.OnDemand.Value.Mul(decimal.NewFromInt(60)).Div(decimal.NewFromInt(3600))
		if p.Total.Value.Sub(want).Abs().GreaterThan(decimal.New(1, -6)) {
			t.Errorf("p4d.24xlarge on-demand total %s, want %s (60 s at %s/h)", p.Total, want, p.Offering.OnDemand.Value)
		}
		if p.ExpectedHours >= 60.0/3600 {
			t.Errorf("expected hours %v: the job itself is shorter than a minute", p.ExpectedHours)
		}
		if !strings.Contains(strings.Join(p.Explanation, "\n"), "billed the 60 s minimum") {
			t.Errorf("explanation does not say the minimum is billed: %v", p.Explanation)
		}
	}
	if !found {
		t.Fatal("no on-demand plan on p4d.24xlarge")
	}
}

// A scenario that needs 80 GB keeps the H100s feeds list at 79.6 GiB (their
// nominal class is 80 GB), as offers --min-gpu-memory 80GB does.
func TestMemoryClassNotNVMLMiB(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-pretraining", "H100-SXM5-80GB")
	req.Scenario.MinGPUMemoryGiB = 80
	req.WorkGPUHours = 1000
	res := run(t, a, req)
	for _, x := range res.Excluded {
		if strings.Contains(x.What, "H100-SXM5-80GB") && strings.Contains(x.Reason, "below the 80") {
			t.Errorf("%s excluded: %s", x.What, x.Reason)
		}
	}
	found := false
	for i := range a.Catalog.Offerings {
		o := &a.Catalog.Offerings[i]
		if o.GPU != nil && o.GPU.Name == "H100-SXM5-80GB" && o.GPUMemoryGiB < 80 {
			found = true
		}
	}
	if !found {
		t.Skip("no H100 listed below 80 GiB in the catalog: nothing to check")
	}
}
