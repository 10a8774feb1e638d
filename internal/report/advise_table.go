package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
)

// AdviseTable is advise's listing: at most limit plans (0: all; the closest
// plans when none fits), the decision summary, the reasons behind the top
// three and the exclusions as notes.
func AdviseTable(res *advise.Result, req *advise.Request, limit int) *render.Table {
	plans := res.Plans
	if len(plans) == 0 {
		plans = res.Closest
	}
	cur := ""
	if len(plans) > 0 {
		cur = string(plans[0].Currency) // one advisor, one currency
	}
	t := &render.Table{Columns: []render.Column{{Header: "#", Right: true}, {Header: "PROVIDER"}, {Header: "INSTANCE"}, {Header: "REGION"},
		{Header: "GPU"}, {Header: "×N", Right: true}, {Header: "LINK"}, {Header: "PLAN"}, {Header: strings.TrimSpace("TOTAL " + cur), Right: true},
		{Header: "HOURS", Right: true}, {Header: "P(MISS)", Right: true}, {Header: "UPFRONT", Right: true}, {Header: "PRICED"}, {Header: "ASK"}}, Currency: cur}
	stale := 0
	shown := map[string]bool{} // providers whose as-asked plan is shown
	for i := range plans {
		p := &plans[i]
		if limit > 0 && i >= limit && (!p.AsAsked || shown[p.Offering.Provider]) {
			continue // past the limit, only the best as-asked plan of each provider
		}
		if p.AsAsked {
			shown[p.Offering.Provider] = true
		}
		ask := ""
		if p.AsAsked {
			ask = "*"
		}
		plan := planModel(p)
		hours := "-"
		if p.ExpectedHours > 0 {
			hours = fmt.Sprintf("%.1f", p.ExpectedHours)
		}
		inst := fmt.Sprintf("%s×%d", countString(p.Offering.GPUCount), p.Instances)
		priced := dashEmpty(p.PriceAsOf)
		if p.Stale {
			priced += StaleMark
			stale++
		}
		t.Rows = append(t.Rows, []string{rankString(res, p), p.Offering.Provider, p.Offering.InstanceType, dashEmpty(p.Offering.Region), p.Offering.GPU.Name, inst,
			p.Offering.Interconnect, plan, amount(p.Total.Value), hours, missCell(req, p), amount(p.UpfrontCash.Value), priced, ask})
	}
	if stale > 0 {
		shown := fmt.Sprintf("%d plans shown", stale)
		if stale == 1 {
			shown = "1 plan shown"
		}
		t.Notes = append(t.Notes, fmt.Sprintf(stalePrefix+"the date of the oldest price a plan bills at; %s = one of its prices is older than %s, or its spot price older than %s (%s): the plan's explanation says which; check those prices against the provider's console, or run catalog refresh.",
			StaleMark, catalog.ListPrice.Limit(), catalog.SpotPrice.Limit(), shown))
	}
	switch {
	case len(res.Plans) == 0 && len(res.Closest) > 0:
		t.Notes = append(t.Notes, "Nothing meets the constraints: "+res.Violation+". The closest plans are shown (~), each with what it violates.")
	case len(res.Plans) == 0:
		t.Notes = append(t.Notes, "Nothing can be planned: "+res.Violation+".")
	}
	if req.Ask != nil {
		if len(shown) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("ASK *: the shape asked for (%s ×%s for %s), on every provider that has it; the other plans say how they differ from the best of them.",
				req.Ask.Name, countString(req.Ask.Count), req.Ask.For))
		} else {
			t.Notes = append(t.Notes, fmt.Sprintf("ASK: no plan on the shape asked for (%s ×%s) meets the constraints; the excluded list says why.", req.Ask.Name, countString(req.Ask.Count)))
		}
	}
	t.Notes = append(t.Notes, res.Summary...)
	detailed := 0
	for i := range plans {
		p := &plans[i]
		if detailed >= 3 && !(p.AsAsked && i == firstAsked(plans)) {
			continue
		}
		detailed++
		t.Notes = append(t.Notes, fmt.Sprintf("#%s %s/%s/%s %s:", rankString(res, p), p.Offering.Provider, p.Offering.InstanceType, dashEmpty(p.Offering.Region), p.Model))
		for _, line := range planLines(p) {
			t.Notes = append(t.Notes, "    "+line)
		}
	}
	if len(res.Excluded) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Excluded (%d):", len(res.Excluded)))
		for i, x := range res.Excluded {
			if i == 12 {
				t.Notes = append(t.Notes, fmt.Sprintf("    ... %d more (-o json lists all)", len(res.Excluded)-12))
				break
			}
			t.Notes = append(t.Notes, "    "+x.What+": "+x.Reason)
		}
	}
	return t
}

// StaleMark marks a price older than a year (catalog.StaleAfter) in tables.
const StaleMark = "†"

// firstAsked is the index of the best as-asked plan, or -1.
func firstAsked(plans []advise.Plan) int {
	for i := range plans {
		if plans[i].AsAsked {
			return i
		}
	}
	return -1
}

// FitAdvise fits advise's table to width columns with render's one rule
// (Table.Fit): it writes long PLAN cells compactly, folds the ASK mark into
// the rank when the table is too wide, and ranks the columns that may go.
// Columns that say nothing go first (no deadline, no upfront cash); where
// (REGION), how many (×N) and how old the price (PRICED) always stay, so
// the PRICED footnote always has its column; PLAN and REGION wrap at
// spaces before any column goes; then LINK, UPFRONT, HOURS, P(MISS), GPU
// and PROVIDER go in that order, only as many as the width needs (each
// detailed plan names its provider, GPU and link; an instance name often
// says its GPU, seldom its provider). Instance names are never
// split. When even that is too wide, "subscription" is written "subscr." so
// that PLAN wraps narrower. --wide keeps the full table.
func FitAdvise(t *render.Table, width int) {
	shortenPlans(t)
	// The ASK mark fits beside the rank ("15*").
	if ask := slices.IndexFunc(t.Columns, func(c render.Column) bool { return c.Header == "ASK" }); ask > 0 && t.Width() > width {
		for _, r := range t.Rows {
			r[0] += r[ask]
		}
		t.KeepColumns(func(_ int, c render.Column) bool { return c.Header != "ASK" })
	}
	for j, c := range t.Columns {
		switch c.Header {
		case "LINK":
			t.Columns[j].Drop = 6
		case "UPFRONT":
			t.Columns[j].Drop = 5
		case "HOURS":
			t.Columns[j].Drop = 4
		case "P(MISS)":
			t.Columns[j].Drop = 3
		case "GPU":
			t.Columns[j].Drop = 2
		case "PROVIDER":
			t.Columns[j].Drop = 1
		case "PLAN", "REGION": // "subscription 1mo" / "monthly", "South Korea," / "KR, AS"
			t.Columns[j].Prose, t.Columns[j].MinWrap = true, 1
		}
	}
	if width > 0 { // too wide even then: a shorter word lets PLAN wrap narrower
		trial := t.Clone()
		trial.Fit(width)
		if trial.Width() > trial.FitWidth() {
			abbreviatePlans(t)
		}
	}
	t.Fit(width)
}

// abbreviatePlans writes the longest word of a plan shorter: the word a
// narrow PLAN column wraps at.
func abbreviatePlans(t *render.Table) {
	j := slices.IndexFunc(t.Columns, func(c render.Column) bool { return c.Header == "PLAN" })
	if j < 0 {
		return
	}
	for _, r := range t.Rows {
		r[j] = strings.ReplaceAll(r[j], catalog.ModelSubscription, "subscr.")
	}
}

// stalePrefix begins the footnote that explains the PRICED column; render
// never leaves PRICED out, so the footnote always has its column.
const stalePrefix = "PRICED: "

// shortenPlans writes long PLAN cells compactly for a terminal: Uniform
// Progress spot as spot/UP (with a legend), a bursty mix without its
// "for N h/month" (the summary states the peak hours).
func shortenPlans(t *render.Table) {
	col := -1
	for j, c := range t.Columns {
		if c.Header == "PLAN" {
			col = j
		}
	}
	if col < 0 {
		return
	}
	up, fo := false, false
	for _, r := range t.Rows {
		v := r[col]
		if strings.Contains(v, "(uniform-progress)") {
			v, up = strings.ReplaceAll(v, " (uniform-progress)", "/UP"), true
		}
		for _, pol := range []string{" (failover-deadline)", " (failover)"} {
			if strings.Contains(v, pol) {
				v, fo = strings.ReplaceAll(v, pol, "/FO"), true
			}
		}
		if i := strings.Index(v, " for "); i > 0 && strings.HasSuffix(v, " h/month") {
			v = v[:i]
		}
		v = strings.TrimPrefix(strings.ReplaceAll(v, " × ", "×"), "base ")
		r[col] = v
	}
	if fo {
		t.Notes = append([]string{"spot/FO: spot that may fail over to other regions (--spot-regions; listed in the plan), under a deadline falling back to on-demand when behind its progress line."}, t.Notes...)
	}
	if up {
		t.Notes = append([]string{"spot/UP: spot with Uniform Progress, falling back to on-demand when behind the deadline's progress line."}, t.Notes...)
	}
}

// planLines are a plan's explanation, capacity risks and ecosystem notes.
func planLines(p *advise.Plan) []string {
	out := append([]string{}, p.Explanation...)
	for _, r := range p.Risks {
		out = append(out, "risk: "+r)
	}
	return append(out, p.Ecosystem...)
}

func rankString(res *advise.Result, p *advise.Plan) string {
	if len(res.Plans) == 0 {
		return "~"
	}
	return strconv.Itoa(p.Rank)
}

func missCell(req *advise.Request, p *advise.Plan) string {
	if req.Deadline == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*p.PMissDeadline)
}

// amount is a money amount without its currency: 12,345.68.
func amount(d decimal.Decimal) string {
	return strings.TrimSuffix(money.Format(d, ""), " ")
}

func countString(f float64) string {
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}

func dashEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
