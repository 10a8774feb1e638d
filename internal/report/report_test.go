package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/render/rendertest"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// testPlan builds a plan with the prices it uses: spot plans price by the
// offering's Spot price, on-demand ones by its OnDemand price.
func testPlan(rank int, provider, inst, gpu string, count float64, model string, total string, hours float64, od, spot catalog.Price) advise.Plan {
	o := &catalog.Offering{Provider: provider, InstanceType: inst, Region: "r-" + provider, GPU: &catalog.GPU{Name: gpu}, GPUCount: count,
		Interconnect: "nvswitch", OnDemand: od, Spot: spot}
	t := decimal.RequireFromString(total)
	return advise.Plan{Rank: rank, Offering: o, Instances: 1, Model: model, Payment: model, Total: money.New(t, "USD"), Currency: "USD",
		ExpectedHours: hours, UpfrontCash: money.New(decimal.Zero, "USD"), Breakdown: map[string]decimal.Decimal{cost.FlowUsage: t}}
}

func price(v, src, asOf string) catalog.Price {
	return catalog.KnownPrice(decimal.RequireFromString(v), "USD", src, asOf)
}

// testResult is a small hand-checked result: #1 is the cheapest, #2 the
// fastest, #3 the best on-demand plan; #1's on-demand price is not used by
// its total (spot without fallback) and must not be cited.
func testResult() (*advise.Result, *advise.Request) {
	a := testPlan(1, "aws", "p5.48xlarge", "H100-SXM5-80GB", 8, "spot", "278.87", 29.76,
		price("55.04", "od-aws", "2026-07-01"), price("9.37", "spot-aws", "2026-07-09"))
	a.Explanation = []string{"spot 9.37 USD/h × 29.76 h = 278.87 USD", "checkpoint every 1 h", "vs the ask (#4 lambda gpu_4x_a100 on-demand, 168.0 h, 1,337.28 USD): 138.2 h faster and 1,058.41 USD cheaper; per GPU 2.64×"}
	a.Risks = []string{"spot capacity can be reclaimed at any time"}
	b := testPlan(2, "nebius", "gpu-b200", "B200", 8, "spot", "299.06", 12.89,
		price("44.00", "od-neb", "2026-07-09"), price("23.20", "spot-neb", "2026-07-09"))
	b.Explanation = []string{"spot 23.20 USD/h × 12.89 h = 299.06 USD", "checkpoint every 1 h",
		"interruptions 5-10% a month (assumed: AWS Spot Advisor's global average, not a nebius figure)"}
	b.Risks = []string{"spot capacity can be reclaimed at any time"}
	c := testPlan(3, "vast", "8x-H100", "H100-SXM5-80GB", 8, "on-demand", "444.54", 29.76,
		price("14.94", "od-vast", "2026-06-30"), catalog.Price{})
	c.Explanation = []string{"on-demand 14.94 USD/h × 29.76 h = 444.54 USD", "checkpoint every 1 h"}
	c.Risks = []string{"spot capacity can be reclaimed at any time"} // three of four: said once
	d := testPlan(4, "lambda", "gpu_4x_a100", "A100-40GB", 4, "on-demand", "1337.28", 168,
		price("7.96", "od-lambda", "2026-05-01"), catalog.Price{})
	d.AsAsked = true
	d.Explanation = []string{"on-demand 7.96 USD/h × 168 h = 1,337.28 USD", "checkpoint every 1 h", "not priced: egress to the internet"}
	res := &advise.Result{Plans: []advise.Plan{a, b, c, d},
		Excluded: []advise.Excluded{{What: "A10 ×1 (alibaba)", Reason: "no sourced price; supply one with --prices FILE"},
			{What: "A10 ×2 (alibaba)", Reason: "no sourced price; supply one with --prices FILE"},
			{What: "L40S ×8 (aws)", Reason: "8 GPUs linked by pcie"}},
		Summary: []string{"1. Scenario fit: fits", "2. Cost sensitivity: short job", "3. Elasticity: spot"}}
	req := &advise.Request{Scenario: &advise.Scenario{Name: "cv-training", Description: "vision"}, Ref: &catalog.GPU{Name: "A100-SXM4-40GB"},
		RefCount: 4, WorkGPUHours: 672, Objective: "cost",
		Ask: &advise.Ask{Name: "A100", Count: 4, Hours: 168, For: "7d"}}
	return res, req
}

// TestAdviseReportRestatesTheQuestion: the question names the work, its
// size, the deadline, the budget and the currency as given.
func TestAdviseReportRestatesTheQuestion(t *testing.T) {
	res, req := testResult()
	for _, tc := range []struct {
		name  string
		setup func(*advise.Request)
		want  []string
	}{
		{"as asked", func(*advise.Request) {}, []string{"cv-training", "4 × A100 for 7d (168 h) = 672 A100-SXM4-40GB GPU-hours of work", "no deadline", "no budget", "ranked by cost", "prices in USD"}},
		{"deadline and budget", func(r *advise.Request) {
			r.Deadline, r.Budget = 52, decimal.NewNullDecimal(decimal.RequireFromString("500"))
			r.Select.Providers = []string{"aws", "nebius"}
		}, []string{"deadline 52 h", "budget 500.00 USD", "on aws, nebius"}},
		{"steady load", func(r *advise.Request) {
			r.WorkGPUHours, r.Ask, r.HoursPerMonth, r.HorizonMonths = 0, nil, 420, 36
		}, []string{"4 × A100-SXM4-40GB for 420 h a month, over 36 months"}},
		// A load nobody sized (advise --hours-per-month 730 alone) reads as
		// the default it is, not as "1 × A100-SXM4-40GB" asked for.
		{"default size", func(r *advise.Request) {
			r.WorkGPUHours, r.Ask, r.HoursPerMonth, r.HorizonMonths, r.RefCount, r.RefDefault = 0, nil, 730, 1, 1, true
		}, []string{"730 h a month of a load sized by default as 1 × A100-SXM4-40GB (--gpu NAME:COUNT or --model sizes it), over 1 month"}},
		{"bursty on the default GPU", func(r *advise.Request) {
			r.WorkGPUHours, r.Ask, r.Bursty, r.Base, r.Peak, r.PeakHours, r.HorizonMonths, r.RefDefault = 0, nil, true, 2, 16, 120, 12, true
		}, []string{"2 × A100-SXM4-40GB (the default GPU: --gpu NAME sets it) always on, 16 at peak for 120 h a month, over 12 months"}},
	} {
		r2 := *req
		tc.setup(&r2)
		got := AdviseReport(res, &r2, "USD").Question
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: question %q lacks %q", tc.name, got, w)
			}
		}
	}
}

// TestAdviseReportCitesEveryPriceUsed: the report (HTML and Markdown)
// shows the source and as-of date of every price the plans' totals use,
// taken from the offerings, and no price they do not use.
func TestAdviseReportCitesEveryPriceUsed(t *testing.T) {
	res, req := testResult()
	r := AdviseReport(res, req, "USD")
	var h, m bytes.Buffer
	if err := r.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&m, "plan"); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Plans {
		used := p.Offering.OnDemand
		if p.Model == cost.ModelSpot {
			used = p.Offering.Spot
		}
		for _, out := range []string{h.String(), m.String()} {
			if want := used.Source + ", as of " + used.AsOf; !strings.Contains(out, want) {
				t.Errorf("plan #%d: report lacks its price source %q", p.Rank, want)
			}
		}
	}
	for _, unused := range []string{"od-aws", "od-neb"} { // spot plans without fallback
		if strings.Contains(h.String(), unused) {
			t.Errorf("report cites %s, a price no total uses", unused)
		}
	}
	want := []PriceSource{
		{Source: "od-lambda", AsOf: []string{"2026-05-01"}, Kinds: []string{"on-demand"}, Plans: 1},
		{Source: "od-vast", AsOf: []string{"2026-06-30"}, Kinds: []string{"on-demand"}, Plans: 1},
		{Source: "spot-aws", AsOf: []string{"2026-07-09"}, Kinds: []string{"spot"}, Plans: 1},
		{Source: "spot-neb", AsOf: []string{"2026-07-09"}, Kinds: []string{"spot"}, Plans: 1},
	}
	if got := fmt.Sprint(r.Prices); got != fmt.Sprint(want) {
		t.Errorf("price sources\n got %v\nwant %v", got, want)
	}
	// A spot plan that falls back to on-demand uses both prices.
	fb := res.Plans[0]
	fb.Payment = "uniform-progress"
	if got := fmt.Sprint(PriceSources([]advise.Plan{fb})); !strings.Contains(got, "od-aws") || !strings.Contains(got, "spot-aws") {
		t.Errorf("fallback plan's sources %s, want od-aws and spot-aws", got)
	}
	for _, u := range []string{"2 offering families without a sourced price, left out (alibaba 2)", "egress to the internet", "assumed, not sourced, for nebius"} {
		if !strings.Contains(strings.Join(r.Unknown, "\n"), u) {
			t.Errorf("unknowns %q lack %q", r.Unknown, u)
		}
	}
}

// TestHeadlinePicks: cheapest, fastest and best on-demand against the
// hand-checked result; a plan with several roles is named once.
func TestHeadlinePicks(t *testing.T) {
	res, req := testResult()
	if got, want := HeadlinePicks(res.Plans, true), (Picks{Cheapest: 0, Fastest: 1, OnDemand: 2}); got != want {
		t.Errorf("picks %+v, want %+v", got, want)
	}
	if got := HeadlinePicks(res.Plans, false); got.Fastest != -1 {
		t.Errorf("a steady load has no fastest plan, got %d", got.Fastest)
	}
	// Hours equal to 0.1%: the cheaper plan is the fastest.
	tie := []advise.Plan{res.Plans[2], res.Plans[1]}
	tie[0].ExpectedHours = 12.888
	if got := HeadlinePicks(tie, true).Fastest; got != 1 {
		t.Errorf("tie on hours: fastest %d, want 1 (the cheaper)", got)
	}
	r := AdviseReport(res, req, "USD")
	var labels []string
	for _, h := range r.Headline {
		labels = append(labels, h.Label)
	}
	if got, want := strings.Join(labels, "|"), "Recommended and cheapest|Fastest|Best on-demand"; got != want {
		t.Errorf("headline labels %q, want %q", got, want)
	}
	if h := r.Headline[0].Text; !strings.Contains(h, "#1 aws p5.48xlarge") || !strings.Contains(h, "278.87 USD, 29.8 h") || !strings.Contains(h, "138.2 h faster and 1,058.41 USD cheaper") {
		t.Errorf("recommended line %q lacks the plan, its figures or why", h)
	}
	// Only on-demand plans: the recommended one is also the best on-demand.
	od := []advise.Plan{res.Plans[2], res.Plans[3]}
	od[0].Rank, od[1].Rank = 1, 2
	r = AdviseReport(&advise.Result{Plans: od}, req, "USD")
	if got := r.Headline[0].Label; got != "Recommended, cheapest, fastest and best on-demand" {
		t.Errorf("one plan, every role: label %q", got)
	}
}

// TestAdviseReportWhySaysSharedLinesOnce: a line every explained plan has
// is said once above them; lines of some plans name those plans.
func TestAdviseReportWhySaysSharedLinesOnce(t *testing.T) {
	res, req := testResult()
	r := AdviseReport(res, req, "USD")
	shared := map[string]string{}
	for _, s := range r.WhyShared {
		shared[s.Text] = s.Plans
	}
	if p, ok := shared["checkpoint every 1 h"]; !ok || p != "" {
		t.Errorf("the line all plans share: %q, %v; want said once for all", p, ok)
	}
	if p := shared["risk: spot capacity can be reclaimed at any time"]; p != "#1, #2, #3" {
		t.Errorf("the spot risk is shared by %q, want #1, #2, #3", p)
	}
	// A line two of four plans have stays with each of them.
	if _, ok := shared["spot 9.37 USD/h × 29.76 h = 278.87 USD"]; ok {
		t.Error("a line of one plan is said as shared")
	}
	for _, tc := range []struct {
		n, total int
		want     bool
	}{{2, 2, true}, {1, 1, false}, {2, 4, false}, {3, 4, true}, {3, 6, false}, {4, 6, true}} {
		if got := sharedEnough(tc.n, tc.total); got != tc.want {
			t.Errorf("sharedEnough(%d, %d) = %v, want %v", tc.n, tc.total, got, tc.want)
		}
	}
	for _, s := range r.Sections {
		for _, l := range s.Lines {
			if _, ok := shared[l]; ok {
				t.Errorf("%s repeats the shared line %q", s.Title, l)
			}
		}
		if len(s.Lines) == 0 {
			t.Errorf("%s: nothing of its own left", s.Title)
		}
	}
}

// TestAdviseReportBreakdown: one part for all top plans gives a dot plot of
// cost and hours; several parts (a credit among them) give stacked bars.
func TestAdviseReportBreakdown(t *testing.T) {
	res, req := testResult()
	r := AdviseReport(res, req, "USD")
	dp, ok := r.Charts[1].Chart.(*render.DotPlot)
	if !ok {
		t.Fatalf("usage only: %T, want a dot plot", r.Charts[1].Chart)
	}
	if got := dp.Rows[1].Values; got[0] != 299.06 || got[1] != 12.89 {
		t.Errorf("dot plot row 2: %v, want 299.06 USD, 12.89 h", got)
	}
	res.Plans[0].Breakdown = map[string]decimal.Decimal{cost.FlowUsage: decimal.RequireFromString("300"),
		cost.FlowEgress: decimal.RequireFromString("28.87"), cost.FlowCredit: decimal.RequireFromString("-50")}
	r = AdviseReport(res, req, "USD")
	bc, ok := r.Charts[1].Chart.(*render.BreakdownChart)
	if !ok {
		t.Fatalf("several parts: %T, want stacked bars", r.Charts[1].Chart)
	}
	if got := fmt.Sprint(bc.Rows[0].Parts); got != "[{usage 300} {egress 28.87} {credit -50}]" {
		t.Errorf("parts of #1: %s", got)
	}
	var b bytes.Buffer
	if err := bc.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "credit (subtracted)") || !strings.Contains(b.String(), "total 278.87") {
		t.Error("the credit is not marked as subtracted, or the total is wrong")
	}
}

// TestAdviseReportHTMLIsResponsive: a viewport, scrolling table, charts
// that scale, print rules, no script, every text escaped.
func TestAdviseReportHTMLIsResponsive(t *testing.T) {
	res, req := testResult()
	req.Scenario.Name = "cv<script>alert(1)</script>"
	var b bytes.Buffer
	if err := AdviseReport(res, req, "USD").WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{`<meta name="viewport" content="width=device-width, initial-scale=1">`, `<div class="scroll"><table>`,
		".scroll{overflow-x:auto", "white-space:nowrap", "tabular-nums", "@media print", `width="100%"`, `<td class="n">278.87</td>`,
		"cv&lt;script&gt;", "<h2>Cost against time</h2>", "<h2>Cost and time of the top plans</h2>", "<h2>Why</h2>", "<b>A10 ×1 (alibaba)</b>"} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(s, "<script") {
		t.Error("HTML carries a script")
	}
	if n := strings.Count(s, "<svg"); n != 2 {
		t.Errorf("%d inline charts, want 2", n)
	}
}

func TestAdviseReportMarkdown(t *testing.T) {
	res, req := testResult()
	r := AdviseReport(res, req, "USD")
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b, "plan"); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"# gpuscout plan: cv-training\n", "**Question:** What is the best way", "- **Recommended and cheapest:** #1 aws",
		"## Plans", "| 1 | aws |", "](plan-cost-time.svg)", "](plan-breakdown.svg)", "### Shared by the plans below", "- **A10 ×1 (alibaba)**: no sourced price",
		"1. Scenario fit: fits\n2. Cost sensitivity"} {
		if !strings.Contains(s, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, s)
		}
	}
	files, err := r.ChartFiles("plan")
	if err != nil || len(files) != 2 || files[0].Name != "plan-cost-time.svg" || files[1].Name != "plan-breakdown.svg" {
		t.Fatalf("chart files %v, %v", files, err)
	}
	for _, f := range files {
		rendertest.CheckReadable(t, f.Name, f.SVG)
	}
}

// TestAdviseReportSteadyLoad: when no plan needs cash upfront, cost is not
// drawn against it (a dot plot of totals and hourly prices instead), and a
// breakdown of one part is a sentence, not a chart.
func TestAdviseReportSteadyLoad(t *testing.T) {
	res, req := testResult()
	req.WorkGPUHours, req.Ask, req.HoursPerMonth, req.HorizonMonths = 0, nil, 300, 12
	res.Summary = append(res.Summary, "4. Not compared: commitments sold without a sourced price here: aws")
	r := AdviseReport(res, req, "USD")
	dp, ok := r.Charts[0].Chart.(*render.DotPlot)
	if !ok || len(dp.Rows) != 4 || dp.Rows[0].Values[0] != 278.87 {
		t.Fatalf("first chart %T, want a dot plot of 4 totals", r.Charts[0].Chart)
	}
	if r.Charts[1].Chart != nil || r.Charts[1].Note == "" {
		t.Errorf("one-part breakdown of a steady load: %T %q, want a note", r.Charts[1].Chart, r.Charts[1].Note)
	}
	if !strings.Contains(strings.Join(r.Unknown, "\n"), "not compared: commitments sold without a sourced price here: aws") {
		t.Errorf("unknowns %q lack the unpriced commitments", r.Unknown)
	}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b, "s"); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "](s-cost-time.svg)") || strings.Contains(s, "s-breakdown.svg") || !strings.Contains(s, r.Charts[1].Note) {
		t.Errorf("markdown links a chart not drawn or lacks the note:\n%s", s)
	}
	if files, _ := r.ChartFiles("s"); len(files) != 1 {
		t.Errorf("%d chart files, want 1", len(files))
	}
	// Plans that differ in upfront cash: the Pareto chart against it.
	res.Plans[3].UpfrontCash = money.New(decimal.NewFromInt(1000), "USD")
	if _, ok := AdviseReport(res, req, "USD").Charts[0].Chart.(*render.ParetoChart); !ok {
		t.Error("plans that differ in upfront cash get no chart against it")
	}
}

// TestAdviseReportClosest: when nothing meets the constraints the headline
// says so first and calls the best plan the closest, not recommended.
func TestAdviseReportClosest(t *testing.T) {
	res, req := testResult()
	res.Closest, res.Plans, res.Violation = res.Plans[:2], nil, "the budget of 10.00 USD"
	r := AdviseReport(res, req, "USD")
	var labels []string
	for _, h := range r.Headline {
		labels = append(labels, h.Label)
	}
	if got, want := strings.Join(labels, "|"), "No plan meets the constraints|Closest (violates the constraints) and cheapest|Fastest|Best on-demand"; got != want {
		t.Errorf("headline labels %q, want %q", got, want)
	}
	if !strings.HasPrefix(r.Headline[0].Text, "the budget of 10.00 USD") || r.Headline[3].Text != "no on-demand plan is among the closest" {
		t.Errorf("headline %+v", r.Headline)
	}
}

func TestAdviseReportWithoutPlans(t *testing.T) {
	_, req := testResult()
	r := AdviseReport(&advise.Result{Violation: "the budget"}, req, "USD")
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "the budget") {
		t.Error("a report without plans does not say why")
	}
}

func TestReportFormat(t *testing.T) {
	for _, tc := range []struct{ path, want string }{{"a.html", "html"}, {"a.HTM", "html"}, {"a.md", "markdown"}, {"a.pdf", ""}, {"a.png", ""}} {
		got, err := FormatOf(tc.path)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("%s: got %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}

// manyPlans is a result of n plans over 3 h to 4,000 h and 150 to 20k USD.
func manyPlans(n int) (*advise.Result, *advise.Request) {
	res, req := testResult()
	base := res.Plans
	res.Plans = nil
	for i := range n {
		p := base[i%len(base)]
		p.Rank = i + 1
		p.ExpectedHours = 3 + float64((i*7919)%4000)
		p.Total = money.New(decimal.NewFromInt(int64(150+(i*104729)%20000)), "USD")
		res.Plans = append(res.Plans, p)
	}
	return res, req
}

// TestAdviseReportSize: 200 plans stay under 300 KB of HTML.
func TestAdviseReportSize(t *testing.T) {
	res, req := manyPlans(200)
	var b bytes.Buffer
	if err := AdviseReport(res, req, "USD").WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	t.Logf("HTML of 200 plans: %d bytes", b.Len())
	if b.Len() >= 300<<10 {
		t.Errorf("HTML of 200 plans is %d bytes, want < 300 KB", b.Len())
	}
}

// BenchmarkAdviseReport: the report of 200 plans, model and HTML (≤ 100 ms).
func BenchmarkAdviseReport(b *testing.B) {
	res, req := manyPlans(200)
	for b.Loop() {
		if err := AdviseReport(res, req, "USD").WriteHTML(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParetoChart: the Pareto chart of 200 plans (≤ 10 ms).
func BenchmarkParetoChart(b *testing.B) {
	res, req := manyPlans(200)
	c := AdviseReport(res, req, "USD").Charts[0].Chart
	for b.Loop() {
		if err := c.Write(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNum: derived figures in the report's prose are rounded (the lora
// report said "1256.2981925925926 GPU-hours").
func TestNum(t *testing.T) {
	for v, want := range map[float64]string{672: "672", 1256.2981925925926: "1,256", 1234567: "1,234,567", 12.3456: "12.3", 0.5: "0.5", -2500.4: "-2,500", 99.95: "100"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}
