package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/plandoc"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/store"
)

// planListPage is the rows the plan list shows a page: each row reads its
// plan's body (an `advise -o json` is about 100 KiB) the first time it is
// shown, so fewer than the report list's.
const planListPage = 25

// planGist is what a list says of an uploaded plan: the question it
// answers and its first plan. Read from the plan's JSON once per document
// (a document never changes: its ID is its hash).
type planGist struct {
	Scenario string // "cv-training"
	Work     string // "4 × A100 for 7d", "672 GPU-h of A100-SXM4-40GB", "730 h/month of ..."
	Best     string // "aws p5.48xlarge (us-west-2) spot", "" when no plan fit
	Total    string // "278.87 USD", render.Unknown when the plan has no total
	Hours    string // expected hours of the best plan
	Plans    int    // how many plans fit
}

// gistOf reads a plan's gist from its JSON.
func gistOf(body []byte) (*planGist, error) {
	u, err := plandoc.Unmarshal(body)
	if err != nil {
		return nil, err
	}
	return gistOfPlan(u), nil
}

// gistOfPlan is a decoded plan's gist.
func gistOfPlan(u *plandoc.Document) *planGist {
	in := u.Inputs
	hpm, work, horizon := plandoc.Value(in.HoursPerMonth), plandoc.Value(in.WorkGPUHours), plandoc.Value(in.HorizonMonths)
	g := &planGist{Scenario: orUnknown(in.Scenario), Plans: len(u.Plans), Best: "no plan fits", Total: render.NotApplied, Hours: render.NotApplied}
	switch {
	case in.Ask != nil && in.Ask.GPU != "":
		g.Work = fmt.Sprintf("%s × %s for %s", fmtCount(in.Ask.Count), in.Ask.GPU, durationText(in.Ask.Hours))
	case in.Bursty:
		g.Work = "bursty load of " + orUnknown(in.ReferenceGPU)
	case hpm > 0:
		g.Work = fmt.Sprintf("%s h/month of %s", fmtNum(hpm), orUnknown(in.ReferenceGPU))
		if in.ReferenceCount > 1 {
			g.Work = fmt.Sprintf("%s h/month of %s × %s", fmtNum(hpm), fmtCount(in.ReferenceCount), orUnknown(in.ReferenceGPU))
		}
	case work > 0:
		g.Work = fmt.Sprintf("%s GPU-h of %s", fmtNum(work), orUnknown(in.ReferenceGPU))
	default:
		g.Work = render.Unknown
	}
	// A load's total is over its horizon: say how long, or the total reads as a month's.
	if (in.Bursty || hpm > 0) && horizon > 0 {
		g.Work += fmt.Sprintf(" over %s months", fmtNum(horizon))
	}
	if len(u.Plans) > 0 {
		b := u.Plans[0]
		g.Best = strings.TrimSpace(fmt.Sprintf("%s %s (%s) %s", b.Provider, b.InstanceType, orDash(b.Region), b.PricingModel))
		if b.Instances > 1 {
			g.Best = fmt.Sprintf("%d × %s", b.Instances, g.Best)
		}
		g.Total = render.Unknown
		if v, ok := plandoc.Decimal(b.TotalCost); ok {
			g.Total = v.StringFixed(2) + " " + orUnknown(b.Currency)
		}
		if b.ExpectedHours > 0 {
			g.Hours = strconv.FormatFloat(b.ExpectedHours, 'f', 1, 64)
		}
	}
	return g
}

// addPlan keeps the gist of a newly stored plan, decoded by the server:
// the plan list and the overview show it without reading its body.
func (d *dash) addPlan(id string, u *plandoc.Document) {
	d.gists.keep(id, gistOfPlan(u))
}

// planGists returns the gists of the stored plans with the ids, each read
// once and kept (at most maxDecoded of them): the bodies of those not kept
// yet come from the store in one query. A plan whose body is not a plan
// (logged) maps to nil; an id not stored is absent.
func (d *dash) planGists(ctx context.Context, ids []string) (map[string]*planGist, error) {
	return d.gists.get(ctx, d.Store, d.Logger, ids, gistOf)
}

// plans lists the uploaded plans, newest first, planListPage a page: what
// each asked and the plan it recommends, at its total cost.
func (d *dash) plans(r *http.Request) (*page, error) {
	pg, err := pageParam(r)
	if err != nil {
		return nil, err
	}
	docs, err := d.Store.ListDocuments(r.Context(), store.Filter{Kind: store.KindPlan, Limit: planListPage + 1, Offset: (pg - 1) * planListPage}, false)
	if err != nil {
		return nil, err
	}
	more := len(docs) > planListPage
	if more {
		docs = docs[:planListPage]
	}
	p := &page{Title: "Plans", Intro: []string{"Plans uploaded by 'gpuscout advise ... --upload', newest first: the question each answers and the plan it ranks first, at the total cost and prices of the day it was made."}}
	if len(docs) == 0 {
		p.Intro = append(p.Intro, "No plan here: 'gpuscout advise ... --upload URL --token TOKEN' adds one.")
		return p, nil
	}
	t := &render.Table{Legend: true, Columns: []render.Column{{Header: "PLAN"}, {Header: "RECEIVED"}, {Header: "SCENARIO"}, {Header: "WORK"},
		{Header: "#1 PLAN"}, {Header: "TOTAL", Right: true}, {Header: "HOURS", Right: true}, {Header: "PLANS", Right: true}, {Header: "UPLOADED BY"}}}
	ids := make([]string, len(docs))
	for i, doc := range docs {
		ids[i] = doc.ID
	}
	gists, err := d.planGists(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	var hrefs []string
	for _, doc := range docs {
		row := []string{doc.ID[:12], doc.ReceivedAt.UTC().Format("2006-01-02 15:04Z")}
		g, stored := gists[doc.ID]
		switch {
		case !stored:
			continue // deleted since the listing
		case g == nil:
			row = append(row, render.Unknown, "does not decode", render.Unknown, render.Unknown, render.Unknown, render.Unknown)
		default:
			row = append(row, g.Scenario, g.Work, g.Best, g.Total, g.Hours, strconv.Itoa(g.Plans))
		}
		t.Rows = append(t.Rows, append(row, orDash(doc.TokenName)))
		hrefs = append(hrefs, "/plans/"+doc.ID)
	}
	first := (pg-1)*planListPage + 1
	p.Blocks = append(p.Blocks, block{Heading: fmt.Sprintf("Plans %d to %d", first, first+len(t.Rows)-1), Table: tableHTML(t, hrefs), Links: pager("/plans", pg, more)})
	return p, nil
}
