package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/plandoc"
	"github.com/gpuscout/gpuscout/internal/report"
	"github.com/gpuscout/gpuscout/internal/store"
)

// maxPlanRows bounds the plans rebuilt from one upload.
const maxPlanRows = 200

// rebuild turns the uploaded JSON back into advise's result and request,
// as far as the JSON carries them, and says what it could not rebuild.
func (d *dash) rebuild(u *plandoc.Document) (*advise.Result, *advise.Request, []string) {
	cur := u.Inputs.Currency
	if cur == "" {
		cur = string(money.USD)
	}
	var missing []string
	unmatched, noFlows := 0, 0
	var badFlows []string
	plan := func(p plandoc.Plan) advise.Plan {
		o := d.findOffering(p)
		if o == nil {
			unmatched++
			o = &catalog.Offering{Provider: p.Provider, InstanceType: p.InstanceType, Region: p.Region, GPU: d.gpuOrName(p.GPU), GPUCount: p.GPUCount, Interconnect: p.Interconnect}
		}
		pl := advise.Plan{Rank: p.Rank, Offering: o, Instances: p.Instances, Model: p.PricingModel, Term: p.Term, Payment: p.Payment, Mix: p.Mix,
			Currency: money.Currency(p.Currency), ExpectedHours: p.ExpectedHours, Speed: p.RelSpeed, Breakdown: breakdown(p.Breakdown),
			Explanation: p.Explanation, Risks: p.Risks, Ecosystem: p.Ecosystem, AsAsked: p.AsAsked, Deadline: plandoc.Value(u.Inputs.DeadlineHours)}
		if v, ok := plandoc.Decimal(p.TotalCost); ok {
			pl.Total = money.New(v, pl.Currency)
		}
		pl.UpfrontCash = money.New(decimal.Zero, pl.Currency)
		if v, ok := plandoc.Decimal(p.UpfrontCash); ok {
			pl.UpfrontCash = money.New(v, pl.Currency)
		}
		if v, ok := plandoc.Decimal(p.PricePerHour); ok {
			pl.PricePerHour = decimal.NullDecimal{Decimal: v, Valid: true}
		}
		if p.PMissDeadline != nil {
			pl.PMissDeadline = *p.PMissDeadline
		}
		// The cash flows are the upload's own, read back with bounds; a plan
		// without them (or with unreadable ones) has none, never made-up ones.
		pl.HorizonMonths, pl.NotPriced = math.Max(0, math.Min(p.HorizonMonths, advise.MaxHorizonMonths)), p.NotPriced
		switch flows, err := advise.ParseCashFlows(p.CashFlows); {
		case p.CashFlows == nil:
			noFlows++
		case err != nil:
			badFlows = append(badFlows, fmt.Sprintf("plan #%d: %v", p.Rank, err))
		default:
			pl.CashFlows = flows
		}
		return pl
	}
	res := &advise.Result{Summary: u.Summary, Violation: u.Violation}
	for _, e := range u.Excluded {
		res.Excluded = append(res.Excluded, advise.Excluded(e))
	}
	for i, p := range u.Plans {
		if i == maxPlanRows {
			missing = append(missing, fmt.Sprintf("plans beyond the first %d (the upload has %d)", maxPlanRows, len(u.Plans)))
			break
		}
		res.Plans = append(res.Plans, plan(p))
	}
	for i, p := range u.Closest {
		if i == maxPlanRows {
			break
		}
		res.Closest = append(res.Closest, plan(p))
	}
	in := u.Inputs
	req := &advise.Request{Scenario: &advise.Scenario{Name: in.Scenario}, Ref: d.gpuOrName(in.ReferenceGPU), RefCount: 1,
		WorkGPUHours: plandoc.Value(in.WorkGPUHours), HoursPerMonth: plandoc.Value(in.HoursPerMonth), Bursty: in.Bursty, HorizonMonths: plandoc.Value(in.HorizonMonths),
		Deadline: plandoc.Value(in.DeadlineHours), Objective: in.Objective, RefDefault: in.ReferenceDefault}
	if in.ReferenceCount > 0 && in.ReferenceCount <= advise.MaxGPUs {
		req.RefCount = in.ReferenceCount
	}
	if v, ok := plandoc.Decimal(in.Budget); ok {
		req.Budget = decimal.NullDecimal{Decimal: v, Valid: true}
	}
	if in.Ask != nil {
		req.Ask = &advise.Ask{Name: in.Ask.GPU, Count: in.Ask.Count, Hours: in.Ask.Hours, For: durationText(in.Ask.Hours)}
		req.RefCount = in.Ask.Count
	}
	if unmatched > 0 {
		missing = append(missing, fmt.Sprintf("the price sources of %d plan(s) whose offering the catalog no longer lists", unmatched))
	}
	if noFlows > 0 {
		missing = append(missing, fmt.Sprintf("the month-by-month cash flows of %d plan(s): the upload predates cash_flows in advise -o json, so no cash-flow chart is drawn for them (upload a new advise -o json to see it)", noFlows))
	}
	if len(badFlows) > 0 {
		missing = append(missing, "unreadable cash flows, left out: "+strings.Join(badFlows, "; "))
	}
	missing = append(missing,
		"commitment prices' sources and dates (the JSON names the term and payment, not the commitment row)",
		"the prices' dates are today's catalog's for the same offering, which may be newer than the plan's")
	return res, req, missing
}

// breakdown is a plan's cost breakdown as decimals; an amount out of range
// is left out.
func breakdown(b map[string]*json.Number) map[string]decimal.Decimal {
	out := make(map[string]decimal.Decimal, len(b))
	for k, n := range b {
		if v, ok := plandoc.Decimal(n); ok {
			out[k] = v
		}
	}
	return out
}

// findOffering is the catalog offering a plan row names, or nil.
func (d *dash) findOffering(p plandoc.Plan) *catalog.Offering {
	for i := range d.Catalog.Offerings {
		o := &d.Catalog.Offerings[i]
		if o.Provider == p.Provider && o.InstanceType == p.InstanceType && o.Region == p.Region {
			return o
		}
	}
	return nil
}

// gpuOrName is the catalog's GPU of that name, or one that carries only the name.
func (d *dash) gpuOrName(name string) *catalog.GPU {
	if g := d.Catalog.GPU(name); g != nil {
		return g
	}
	return &catalog.GPU{Name: name}
}

// plan serves an uploaded plan as the plan report `advise --report` writes
// (report.AdviseReport: the same code), rebuilt from its JSON, with a note
// of what the JSON does not carry.
func (d *dash) plan(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	fail := func(err error) {
		d.page(func(*http.Request) (*page, error) { return nil, err })(w, r)
	}
	if !store.ValidID(id) {
		fail(badRequest("plan id %q: want the 64 hex digits of a SHA-256", id))
		return
	}
	doc, err := d.Store.GetDocument(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		fail(notFound("no plan has id %s", id))
		return
	}
	if err != nil {
		fail(err)
		return
	}
	if doc.Kind != store.KindPlan {
		fail(notFound("document %s is a %s, not a plan", id, doc.Kind))
		return
	}
	u, err := plandoc.Unmarshal(doc.Body)
	if err != nil {
		fail(badRequest("stored plan %s: %v", id, err))
		return
	}
	res, req, missing := d.rebuild(u)
	rep := report.AdviseReport(res, req, string(money.USD))
	if u.Inputs.Currency != "" {
		rep = report.AdviseReport(res, req, u.Inputs.Currency)
	}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		fail(err)
		return
	}
	// The dashboard's navigation and the note on what was rebuilt go at
	// the top of the report's own page.
	var head bytes.Buffer
	if err := planHead().Execute(&head, struct {
		Nav      []link
		ID       string
		Received string
		Missing  []string
	}{nav, id[:12], doc.ReceivedAt.UTC().Format("2006-01-02 15:04Z"), missing}); err != nil {
		fail(err)
		return
	}
	page := strings.Replace(b.String(), "<body>", "<body>\n"+head.String(), 1)
	writeHTML(w, http.StatusOK, []byte(page))
}

var planHead = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("planhead").Parse(`<nav aria-label="pages">{{range $i, $l := .Nav}}{{if $i}} · {{end}}<a href="{{$l.Href}}">{{$l.Text}}</a>{{end}}</nav>
<p class="muted">Plan {{.ID}}, uploaded {{.Received}}, rebuilt from its <code>advise -o json</code>. Not rebuilt from the upload:</p>
<ul class="muted">{{range .Missing}}<li>{{.}}</li>{{end}}</ul>
`))
})

// durationText writes hours as the user likely wrote them: 7d, 36h.
func durationText(h float64) string {
	if h >= 24 && math.Mod(h, 24) == 0 {
		return strconv.FormatFloat(h/24, 'f', -1, 64) + "d"
	}
	return strconv.FormatFloat(h, 'f', -1, 64) + "h"
}
