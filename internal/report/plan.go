package report

import (
	"fmt"
	"github.com/gpuscout/gpuscout/internal/render"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
)

// Report limits: the table lists up to reportRows plans, the breakdown the
// top reportTop, the "why" the top reportWhy.
const (
	reportRows = 20
	reportTop  = 6
	reportWhy  = 5
)

// AdviseReport is advise's plan report: the question restated, the headline
// answer (recommended, cheapest, fastest and best on-demand plans, price
// sources and dates, what is unknown), the table of up to 20 plans, the
// Pareto chart of cost against time (upfront cash for steady loads) of every
// plan, the cost breakdown of the top six (a dot plot of cost and time when
// their costs have one part), the cash needed month by month when a top
// plan commits you to pay (cashflowReportChart), the reasons behind the top five with what they
// share said once, and every exclusion.
func AdviseReport(res *advise.Result, req *advise.Request, cur string) *Report {
	plans := res.Plans
	if len(plans) == 0 {
		plans = res.Closest
	}
	r := &Report{Title: "gpuscout plan: " + req.Scenario.Name, Description: req.Scenario.Description, Question: Question(req, cur)}
	r.Table = AdviseTable(res, req, reportRows)
	// The summary, reasons and exclusions have sections of their own.
	r.Table.Notes = slices.DeleteFunc(r.Table.Notes, func(n string) bool {
		return !strings.HasPrefix(n, "Nothing ") && !strings.HasPrefix(n, "ASK") && !strings.HasPrefix(n, "PRICED:")
	})
	// Columns that say nothing for every plan shown (no deadline, no upfront cash) go.
	r.Table.KeepColumns(func(j int, c render.Column) bool {
		for _, row := range r.Table.Rows {
			if v := row[j]; v != "-" && v != "" && !(c.Header == "UPFRONT" && v == "0.00") {
				return true
			}
		}
		return len(r.Table.Rows) == 0
	})
	for _, s := range res.Summary {
		r.Summary = append(r.Summary, strings.TrimLeft(s, "0123456789. "))
	}
	r.Headline = headline(res, req, plans, cur)
	r.Prices = PriceSources(plans)
	r.Unknown = unknowns(res, plans)
	caption := "Prices: " + sourcesCaption(r.Prices) + "."
	if req.IsJob() || !sameUpfront(plans) {
		r.Charts = append(r.Charts, Chart{Name: "cost-time", Heading: paretoHeading(req), Alt: "cost against " + xWord(req) + " of every plan", Chart: paretoChart(plans, req, cur, caption)})
	} else {
		r.Charts = append(r.Charts, costDots(plans, req, cur, caption))
	}
	r.Charts = append(r.Charts, breakdownChart(plans, req, cur))
	if c, ok := cashflowReportChart(plans, req, cur); ok {
		r.Charts = append(r.Charts, c)
	}
	r.WhyShared, r.Sections = whySections(res, plans)
	for _, x := range res.Excluded {
		r.Excluded = append(r.Excluded, Item{What: x.What, Reason: x.Reason})
	}
	return r
}

// Question restates the request in one sentence: the work and its size,
// the deadline, the budget, the objective, limits on where and how to buy,
// and the currency.
func Question(req *advise.Request, cur string) string {
	var parts []string
	ref := ""
	if req.Ref != nil {
		ref = req.Ref.Name
	}
	switch {
	case req.IsJob() && req.Ask != nil:
		parts = append(parts, fmt.Sprintf("%s × %s for %s = %s %s GPU-hours of work", countString(req.Ask.Count), req.Ask.Name, forText(req.Ask.For, req.Ask.Hours), num(req.WorkGPUHours), ref))
	case req.IsJob():
		parts = append(parts, fmt.Sprintf("%s GPU-hours of work on %s", num(req.WorkGPUHours), ref))
	case req.Bursty:
		if req.RefDefault {
			ref += " (the default GPU: --gpu NAME sets it)"
		}
		parts = append(parts, fmt.Sprintf("%s × %s always on, %s at peak for %s h a month, over %s", countString(req.Base), ref, countString(req.Peak), num(req.PeakHours), cost.FormatMonths(req.HorizonMonths)))
	case req.RefDefault:
		// Nobody asked for this size: say it is the default, not the user's.
		parts = append(parts, fmt.Sprintf("%s h a month of a load sized by default as %s × %s (%s), over %s", num(req.HoursPerMonth), countString(req.RefCount), ref, advise.DefaultSizeHint(req), cost.FormatMonths(req.HorizonMonths)))
	default:
		parts = append(parts, fmt.Sprintf("%s × %s for %s h a month, over %s", countString(req.RefCount), ref, num(req.HoursPerMonth), cost.FormatMonths(req.HorizonMonths)))
	}
	if req.Deadline > 0 {
		parts = append(parts, fmt.Sprintf("deadline %s h", num(req.Deadline)))
	} else if req.IsJob() {
		parts = append(parts, "no deadline")
	}
	if req.Budget.Valid {
		parts = append(parts, "budget "+amount(req.Budget.Decimal)+" "+cur)
	} else {
		parts = append(parts, "no budget")
	}
	if req.Objective != "" {
		parts = append(parts, "ranked by "+req.Objective)
	}
	if len(req.Select.Providers) > 0 {
		parts = append(parts, "on "+strings.Join(req.Select.Providers, ", "))
	}
	if len(req.Select.Regions) > 0 {
		parts = append(parts, "in "+strings.Join(req.Select.Regions, ", "))
	}
	if req.NoSpot {
		parts = append(parts, "no spot")
	}
	s := "What is the best way to run " + req.Scenario.Name + ": " + strings.Join(parts, ", ")
	if cur != "" {
		s += ", prices in " + cur
	}
	return s + "?"
}

// forText writes --for as given with its hours: "7d (168 h)".
func forText(given string, hours float64) string {
	h := num(hours) + " h"
	if given == "" || given == h || given == num(hours)+"h" {
		return h
	}
	return given + " (" + h + ")"
}

// num writes a count or quantity without trailing zeros, thousands apart.
func num(v float64) string {
	// A derived figure (1256.2981925925926 GPU-hours) is rounded: whole
	// units from 100 up, three significant digits below.
	if math.Abs(v) >= 100 && math.Abs(v) < 1e15 {
		v = math.Round(v)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		s := strconv.FormatInt(int64(v), 10)
		for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// planKind is the plan's kind for the chart: on-demand, spot, commitment or mix.
func planKind(p *advise.Plan) string {
	switch {
	case p.Mix != "" || p.Model == "mix":
		return render.KindMix
	case p.Term != "":
		return render.KindCommitment
	case p.Model == cost.ModelSpot:
		return render.KindSpot
	}
	return render.KindOnDemand
}

// planTitle names a plan: "#3 nebius gpu-b200-sxm_8gpu… (me-west1), spot".
func planTitle(p *advise.Plan) string {
	s := fmt.Sprintf("#%d %s %s", p.Rank, p.Offering.Provider, p.Offering.InstanceType)
	if p.Offering.Region != "" {
		s += " (" + p.Offering.Region + ")"
	}
	return s + ", " + planModel(p)
}

// planModel is the plan's pricing as the table writes it.
func planModel(p *advise.Plan) string {
	switch {
	case p.Mix != "":
		return p.Mix
	case p.Model == catalog.ModelCapacityBlock:
		return fmt.Sprintf("capacity block %dd", p.BlockDays)
	case p.Term != "":
		return p.Model + " " + p.Term + " " + p.Payment
	case p.Model == cost.ModelSpot && p.Payment != "" && p.Payment != cost.ModelSpot:
		return p.Model + " (" + p.Payment + ")"
	}
	return p.Model
}

// planFigures are a plan's total, hours and shape: "278.87 USD, 29.8 h, 8 × H100-SXM5-80GB".
func planFigures(p *advise.Plan, cur string) string {
	s := amount(p.Total.Value) + " " + cur
	if p.ExpectedHours > 0 {
		s += fmt.Sprintf(", %.1f h", p.ExpectedHours)
	}
	if p.UpfrontCash.Value.IsPositive() {
		s += ", " + amount(p.UpfrontCash.Value) + " " + cur + " upfront"
	}
	gpus := countString(p.Offering.GPUCount) + " × " + p.Offering.GPU.Name
	if p.Instances > 1 {
		gpus = strconv.Itoa(p.Instances) + " instances of " + gpus
	}
	return s + ", " + gpus
}

// headline picks the recommended plan (rank 1), the cheapest, the fastest
// (jobs only) and the best-ranked on-demand plan; a plan with several roles
// is named once with all of them.
func headline(res *advise.Result, req *advise.Request, plans []advise.Plan, cur string) []HeadlineItem {
	if len(plans) == 0 {
		why := res.Violation
		if why == "" {
			why = "no offering could be priced"
		}
		return []HeadlineItem{{Label: "No plan", Text: why}}
	}
	picks := HeadlinePicks(plans, req.IsJob())
	type role struct {
		idx   int
		names []string
	}
	var roles []role
	add := func(i int, name string) {
		if i < 0 {
			return
		}
		for k := range roles {
			if roles[k].idx == i {
				roles[k].names = append(roles[k].names, name)
				return
			}
		}
		roles = append(roles, role{i, []string{name}})
	}
	first := "recommended"
	if len(res.Plans) == 0 {
		first = "closest (violates the constraints)"
	}
	add(0, first)
	add(picks.Cheapest, "cheapest")
	add(picks.Fastest, "fastest")
	add(picks.OnDemand, "best on-demand")
	var out []HeadlineItem
	if len(res.Plans) == 0 {
		out = append(out, HeadlineItem{Label: "No plan meets the constraints", Text: res.Violation + "; the closest plans follow, each with what it violates"})
	}
	for _, ro := range roles {
		p := &plans[ro.idx]
		label := joinAnd(ro.names)
		label = strings.ToUpper(label[:1]) + label[1:]
		text := planTitle(p) + ": " + planFigures(p, cur)
		if ro.idx == 0 {
			if why := oneLineWhy(res, req, p); why != "" {
				text += ". " + why
			}
		}
		out = append(out, HeadlineItem{Label: label, Text: text})
	}
	if picks.OnDemand < 0 {
		none := "no on-demand plan fits"
		if len(res.Plans) == 0 {
			none = "no on-demand plan is among the closest"
		}
		out = append(out, HeadlineItem{Label: "Best on-demand", Text: none})
	}
	return out
}

// Picks are indices into a plan list: the cheapest (lowest total), the
// fastest (fewest hours; -1 for loads) and the best-ranked on-demand plan
// (-1 if none); ties go to the better rank, and hours within 0.1% of each
// other to the cheaper plan.
type Picks struct {
	Cheapest, Fastest, OnDemand int
}

// HeadlinePicks finds the headline's plans in plans (best rank first).
func HeadlinePicks(plans []advise.Plan, job bool) Picks {
	pk := Picks{Cheapest: -1, Fastest: -1, OnDemand: -1}
	for i := range plans {
		p := &plans[i]
		if pk.Cheapest < 0 || p.Total.Value.LessThan(plans[pk.Cheapest].Total.Value) {
			pk.Cheapest = i
		}
		if job && p.ExpectedHours > 0 {
			// Hours within 0.1% (below what the table shows) tie; the cheaper wins.
			if f := pk.Fastest; f < 0 || p.ExpectedHours < plans[f].ExpectedHours*(1-render.SameX) ||
				(p.ExpectedHours <= plans[f].ExpectedHours*(1+render.SameX) && p.Total.Value.LessThan(plans[f].Total.Value)) {
				pk.Fastest = i
			}
		}
		if pk.OnDemand < 0 && planKind(p) == render.KindOnDemand {
			pk.OnDemand = i
		}
	}
	return pk
}

// oneLineWhy says why the recommended plan leads: the objective, and how it
// compares with the shape asked for.
func oneLineWhy(res *advise.Result, req *advise.Request, p *advise.Plan) string {
	if len(res.Plans) == 0 {
		return ""
	}
	s := fmt.Sprintf("First by %s among %d plans that fit", req.Objective, len(res.Plans))
	for _, l := range p.Explanation {
		if strings.HasPrefix(l, "vs the ask (") {
			if i := strings.Index(l, "): "); i > 0 {
				s += "; against the shape asked for: " + firstClause(l[i+3:])
			}
		}
	}
	return s + "."
}

// firstClause is text up to its first semicolon.
func firstClause(s string) string {
	if i := strings.Index(s, ";"); i > 0 {
		return s[:i]
	}
	return s
}

func joinAnd(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// PriceSources collects the distinct sources of the prices the plans use,
// with their dates, most-used first.
func PriceSources(plans []advise.Plan) []PriceSource {
	by := map[string]*PriceSource{}
	for i := range plans {
		seen := map[string]bool{}
		for _, u := range plans[i].PricesUsed() {
			src := u.Price.Source
			if src == "" {
				src = "unnamed source"
			}
			ps := by[src]
			if ps == nil {
				ps = &PriceSource{Source: src}
				by[src] = ps
			}
			asOf := plans[i].DateRead(u)
			if asOf == "" {
				asOf = "undated"
			}
			if !slices.Contains(ps.AsOf, asOf) {
				ps.AsOf = append(ps.AsOf, asOf)
			}
			if !slices.Contains(ps.Kinds, u.Kind) {
				ps.Kinds = append(ps.Kinds, u.Kind)
			}
			if !seen[src] {
				seen[src] = true
				ps.Plans++
			}
		}
	}
	out := make([]PriceSource, 0, len(by))
	for _, ps := range by {
		sort.Strings(ps.AsOf)
		sort.Strings(ps.Kinds)
		out = append(out, *ps)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Plans != out[j].Plans {
			return out[i].Plans > out[j].Plans
		}
		return out[i].Source < out[j].Source
	})
	return out
}

// sourcesCaption is the price sources in a chart caption: "a (2026-07-09), b (2026-06-01, 2026-07-01)".
func sourcesCaption(ps []PriceSource) string {
	if len(ps) == 0 {
		return "none"
	}
	var parts []string
	for _, p := range ps {
		parts = append(parts, p.Source+" ("+strings.Join(p.AsOf, ", ")+")")
	}
	return strings.Join(parts, "; ")
}

// unknowns says what the answer does not know: offering families left out
// for want of a price (counted by provider), shared parts left unpriced,
// and spot interruption bands assumed rather than sourced.
func unknowns(res *advise.Result, plans []advise.Plan) []string {
	var out []string
	byProv := map[string]int{}
	n := 0
	for _, x := range res.Excluded {
		if strings.HasPrefix(x.Reason, "no sourced price") {
			n++
			prov := x.What
			if i, j := strings.LastIndex(prov, "("), strings.LastIndex(prov, ")"); i >= 0 && j > i {
				prov = prov[i+1 : j]
			}
			byProv[prov]++
		}
	}
	if n > 0 {
		provs := make([]string, 0, len(byProv))
		for p := range byProv {
			provs = append(provs, p)
		}
		sort.Strings(provs)
		var parts []string
		for _, p := range provs {
			parts = append(parts, fmt.Sprintf("%s %d", p, byProv[p]))
		}
		out = append(out, fmt.Sprintf("%d offering famil%s without a sourced price, left out (%s); supply prices with --prices FILE", n, map[bool]string{true: "y", false: "ies"}[n == 1], strings.Join(parts, ", ")))
	}
	var notPriced []string
	var assumed []string
	for i := range plans {
		p := &plans[i]
		for _, l := range p.Explanation {
			if s, ok := strings.CutPrefix(l, "not priced: "); ok && !slices.Contains(notPriced, s) {
				notPriced = append(notPriced, s)
			}
			if strings.HasPrefix(l, "interruptions ") && strings.Contains(l, "(assumed") && !slices.Contains(assumed, p.Offering.Provider) {
				assumed = append(assumed, p.Offering.Provider)
			}
		}
	}
	for _, s := range res.Summary {
		if _, rest, ok := strings.Cut(s, "Not compared: "); ok {
			out = append(out, "not compared: "+rest)
		}
	}
	for _, s := range notPriced {
		out = append(out, "left out of totals, no sourced price: "+s)
	}
	if len(assumed) > 0 {
		sort.Strings(assumed)
		out = append(out, "spot interruption rate assumed, not sourced, for "+strings.Join(assumed, ", ")+" (give a provider's own with --spot-band)")
	}
	if len(out) == 0 {
		out = append(out, "nothing: every plan's prices are sourced and nothing was left out for want of a price")
	}
	return out
}

func xWord(req *advise.Request) string {
	if req.IsJob() {
		return "time"
	}
	return "upfront cash"
}

func paretoHeading(req *advise.Request) string {
	if req.IsJob() {
		return "Cost against time"
	}
	return "Cost against cash needed upfront"
}

// paretoChart draws every plan's total against its hours (jobs) or upfront
// cash (loads), the asked duration and the deadline as lines.
func paretoChart(plans []advise.Plan, req *advise.Request, cur, caption string) *render.ParetoChart {
	c := &render.ParetoChart{Caption: caption, YLabel: "total cost (" + cur + ")"}
	pk := HeadlinePicks(plans, req.IsJob())
	if req.IsJob() {
		c.Title = fmt.Sprintf("Which plan finishes %s GPU-hours of %s soonest for the least money?", num(req.WorkGPUHours), req.Scenario.Name)
		c.XLabel = "hours to finish"
		if req.Ask != nil && req.Ask.Hours > 0 {
			c.Marks = append(c.Marks, render.XMark{X: req.Ask.Hours, Label: "asked: " + forText(req.Ask.For, req.Ask.Hours)})
		}
		if req.Deadline > 0 {
			c.Marks = append(c.Marks, render.XMark{X: req.Deadline, Label: "deadline " + num(req.Deadline) + " h"})
		}
	} else {
		c.Title = fmt.Sprintf("What does %s cost over %s months, against the cash needed upfront?", req.Scenario.Name, num(req.HorizonMonths))
		c.XLabel = "upfront cash (" + cur + ")"
		c.YLabel = fmt.Sprintf("total over %s months (%s)", num(req.HorizonMonths), cur)
	}
	for i := range plans {
		p := &plans[i]
		x := p.ExpectedHours
		if !req.IsJob() {
			x = p.UpfrontCash.Value.InexactFloat64()
		}
		tip := fmt.Sprintf("%s: %s %s", planTitle(p), amount(p.Total.Value), cur)
		if p.ExpectedHours > 0 {
			tip += fmt.Sprintf(", %.1f h", p.ExpectedHours)
		}
		if !req.IsJob() {
			tip += ", " + amount(p.UpfrontCash.Value) + " " + cur + " upfront"
		}
		c.Points = append(c.Points, render.ParetoPoint{X: x, Y: p.Total.Value.InexactFloat64(), Kind: planKind(p), Recommended: i == 0,
			Named: i == pk.Cheapest || i == pk.Fastest || i == pk.OnDemand,
			Label: fmt.Sprintf("#%d %s %s×%s", p.Rank, p.Offering.Provider, countString(p.Offering.GPUCount*float64(max(p.Instances, 1))), shortGPU(p.Offering.GPU)), Tip: tip})
	}
	return c
}

// shortGPU is the GPU's family name (B200, H100), or its name.
func shortGPU(g *catalog.GPU) string {
	name := g.Name
	if i := strings.IndexAny(name, "-_ "); i > 0 {
		return name[:i]
	}
	return name
}

// breakdownChart is the top plans' cost split into parts where any of them
// has more than one; otherwise a dot plot of their cost and hours (upfront
// cash for loads), since bars of one part say nothing.
func breakdownChart(plans []advise.Plan, req *advise.Request, cur string) Chart {
	top := plans[:min(len(plans), reportTop)]
	multi := false
	for i := range top {
		n := 0
		for _, k := range advise.BreakdownKinds {
			if v, ok := top[i].Breakdown[k]; ok && !v.IsZero() {
				n++
			}
		}
		multi = multi || n > 1
	}
	if multi {
		c := &render.BreakdownChart{Title: "What makes up the cost of the top plans?", XLabel: "cost (" + cur + ")", Caption: "Prices: " + sourcesCaption(PriceSources(top)) + "."}
		for i := range top {
			p := &top[i]
			row := render.BreakdownRow{Label: dotLabel(p)}
			for _, k := range advise.BreakdownKinds {
				if v, ok := p.Breakdown[k]; ok && !v.IsZero() {
					row.Parts = append(row.Parts, render.Part{Name: k, Value: v.InexactFloat64()})
				}
			}
			c.Rows = append(c.Rows, row)
		}
		return Chart{Name: "breakdown", Heading: "Cost breakdown", Alt: "the cost of the top plans split into parts", Chart: c}
	}
	if !req.IsJob() {
		return Chart{Name: "breakdown", Heading: "Cost breakdown", Note: "Not drawn: every top plan's cost is compute usage only, with nothing else to split it into."}
	}
	c := &render.DotPlot{Caption: "Every top plan's cost is compute usage only, so it is not split. Prices: " + sourcesCaption(PriceSources(top)) + "."}
	c.Title = "What do the top plans cost, and how long do they take?"
	c.Columns = []render.DotColumn{{Label: "total cost (" + cur + ")"}, {Label: "hours to finish"}}
	for i := range top {
		p := &top[i]
		c.Rows = append(c.Rows, render.DotRow{Label: dotLabel(p), Values: []float64{p.Total.Value.InexactFloat64(), p.ExpectedHours}, Mark: i == 0})
	}
	return Chart{Name: "breakdown", Heading: "Cost and time of the top plans", Alt: "total cost and hours of the top plans", Chart: c}
}

// reportCashLines bounds the lines of the cash-flow chart.
const reportCashLines = 5

// paymentScheme is how a plan pays, for the cash-flow chart: on-demand,
// spot, or the commitment's (or a mix's base's) model, term and payment.
func paymentScheme(p *advise.Plan) string {
	switch k := planKind(p); k {
	case render.KindOnDemand, render.KindSpot:
		return k
	default:
		return strings.Join([]string{k, p.Model, p.Term, p.Payment}, " ")
	}
}

// commits says whether a plan binds you to pay whether you use the
// capacity or not: a commitment, a mix on a committed base, or any
// upfront or commitment payment in its cash flows.
func commits(p *advise.Plan) bool {
	if k := planKind(p); k == render.KindCommitment || (k == render.KindMix && p.Term != "") {
		return true
	}
	for _, f := range p.CashFlows {
		if f.Kind == cost.FlowUpfront || f.Kind == cost.FlowCommitment {
			return true
		}
	}
	return false
}

// cashflowReportChart is "Cash needed month by month": the cumulative cash
// paid by the best-ranked plan of each payment scheme among the table's
// plans (the recommended first, at most five). It is shown when one of the
// top plans commits you (upfront, or a fee due used or not) over at least
// two months: then when the cash goes out matters, not only the total;
// pay-as-you-go plans alone pay as they use and their totals say it all.
// Plans rebuilt from an upload without cash flows get a note, never a
// line made up from their totals.
func cashflowReportChart(plans []advise.Plan, req *advise.Request, cur string) (Chart, bool) {
	top := plans[:min(len(plans), reportTop)]
	if !slices.ContainsFunc(top, func(p advise.Plan) bool { return commits(&p) }) {
		return Chart{}, false
	}
	var lines []*advise.Plan
	seen := map[string]bool{}
	for i := range plans[:min(len(plans), reportRows)] {
		p := &plans[i]
		if k := paymentScheme(p); !seen[k] && len(lines) < reportCashLines {
			seen[k] = true
			lines = append(lines, p)
		}
	}
	months, known := 0, true
	for _, p := range lines {
		months = max(months, p.CashFlowMonths())
		known = known && p.CashFlows != nil
	}
	if !known && !req.IsJob() {
		months = max(months, int(math.Ceil(req.HorizonMonths-1e-9)))
	}
	if months < 2 {
		return Chart{}, false
	}
	rc := Chart{Name: "cashflow", Heading: "Cash needed month by month",
		Alt: "cash paid so far, month by month, by the best plan of each payment scheme"}
	if !known {
		rc.Note = "Not drawn: these plans carry no month-by-month payments (an advise -o json written before plans had cash_flows); run advise again to see when the cash goes out."
		return rc, true
	}
	var cl []render.CashflowLine
	var sorted []advise.Plan
	for _, p := range lines {
		cl = append(cl, render.CashflowLine{Name: planTitle(p) + ": " + amount(p.Total.Value) + " " + cur, Flows: p.CashFlows})
		sorted = append(sorted, *p)
	}
	caption := "Cash paid by the end of each month (month 0 is the start: upfront fees and fees billed in advance); each line ends at its plan's total. " +
		"Drawn because a top plan commits you to pay whether you use the capacity or not; the best-ranked plan of each way to pay is shown beside it. " +
		"Prices: " + sourcesCaption(PriceSources(sorted)) + "."
	rc.Chart = render.CashflowChart(fmt.Sprintf("How much cash does each way to pay need, month by month, over %s months?", num(float64(months))), cur, months, cl, caption)
	return rc, true
}

// sharedEnough says whether a line n of the total plans explained have is
// said once for them: when more than half have it (two of two, three of
// four), so that a pair of near-twins does not empty the others' sections.
func sharedEnough(n, total int) bool { return n >= 2 && 2*n > total }

// dotLabel names a plan in a dot plot or bar row, cut to fit the chart.
func dotLabel(p *advise.Plan) string {
	s := fmt.Sprintf("#%d %s %s, %s", p.Rank, p.Offering.Provider, p.Offering.InstanceType, planModel(p))
	if r := []rune(s); len(r) > 54 {
		s = string(r[:53]) + "…"
	}
	return s
}

// sameUpfront reports whether every plan needs the same cash upfront (most
// often none), which leaves a chart against upfront cash nothing to show.
func sameUpfront(plans []advise.Plan) bool {
	for i := range plans {
		if !plans[i].UpfrontCash.Value.Equal(plans[0].UpfrontCash.Value) {
			return false
		}
	}
	return true
}

// costDots is a steady load's first chart when no plan differs in upfront
// cash: the top plans' totals and prices per instance-hour as dots.
func costDots(plans []advise.Plan, req *advise.Request, cur, caption string) Chart {
	top := plans[:min(len(plans), reportRows)]
	c := &render.DotPlot{Title: fmt.Sprintf("What do the top plans for %s cost over %s months, and at what price per hour?", req.Scenario.Name, num(req.HorizonMonths)),
		Columns: []render.DotColumn{{Label: fmt.Sprintf("total over %s months (%s)", num(req.HorizonMonths), cur)}, {Label: "price per instance-hour (" + cur + ")"}},
		Caption: "Every plan needs the same cash upfront, so cost is not drawn against it. " + caption}
	for i := range top {
		p := &top[i]
		ph := math.NaN()
		if p.PricePerHour.Valid {
			ph = p.PricePerHour.Decimal.InexactFloat64()
		}
		c.Rows = append(c.Rows, render.DotRow{Label: dotLabel(p), Values: []float64{p.Total.Value.InexactFloat64(), ph}, Mark: i == 0})
	}
	return Chart{Name: "cost-time", Heading: "Cost of the top plans", Alt: "total cost and price per hour of the top plans", Chart: c}
}

// whySections explains the top plans (and the best plan on the asked
// shape): lines that more than half of them share are said once, with the
// plans that share them when not all do; each plan keeps the rest.
func whySections(res *advise.Result, plans []advise.Plan) ([]SharedLine, []Section) {
	var idx []int
	for i := range plans {
		if len(idx) < reportWhy || (plans[i].AsAsked && i == firstAsked(plans)) {
			idx = append(idx, i)
		}
	}
	count := map[string][]int{}
	var order []string
	for _, i := range idx {
		seen := map[string]bool{}
		for _, l := range planLines(&plans[i]) {
			if seen[l] {
				continue
			}
			seen[l] = true
			if _, ok := count[l]; !ok {
				order = append(order, l)
			}
			count[l] = append(count[l], i)
		}
	}
	var shared []SharedLine
	if len(idx) > 1 {
		for _, l := range order {
			who := count[l]
			if !sharedEnough(len(who), len(idx)) {
				continue
			}
			sl := SharedLine{Text: l}
			if len(who) < len(idx) {
				var names []string
				for _, i := range who {
					names = append(names, "#"+rankString(res, &plans[i]))
				}
				sl.Plans = strings.Join(names, ", ")
			}
			shared = append(shared, sl)
		}
	}
	var secs []Section
	for _, i := range idx {
		p := &plans[i]
		s := Section{Title: strings.Replace(planTitle(p), "#"+strconv.Itoa(p.Rank), "#"+rankString(res, p), 1)}
		for _, l := range planLines(p) {
			if len(idx) > 1 && sharedEnough(len(count[l]), len(idx)) {
				continue
			}
			s.Lines = append(s.Lines, l)
		}
		secs = append(secs, s)
	}
	return shared, secs
}
