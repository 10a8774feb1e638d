package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// adviseRequest is POST /api/v1/advise's body: the core of `gpuscout
// advise`'s flags, by the same names (a job by work_gpu_hours, or a steady
// load by hours_per_month).
type adviseRequest struct {
	Scenario      string   `json:"scenario"`
	ReferenceGPU  string   `json:"reference_gpu"`
	GPUCount      float64  `json:"gpu_count"`
	WorkGPUHours  float64  `json:"work_gpu_hours"`
	HoursPerMonth float64  `json:"hours_per_month"`
	DeadlineHours float64  `json:"deadline_hours"`
	Budget        string   `json:"budget"`
	Objective     string   `json:"objective"`
	Providers     []string `json:"providers"`
	Regions       []string `json:"regions"`
	China         *bool    `json:"china"`
	NoSpot        bool     `json:"no_spot"`
	Currency      string   `json:"currency"`
	MaxNodes      int      `json:"max_nodes"`
}

// adviseFromRequest builds the advisor and the domain request, as the CLI
// does from its flags; every problem is a field error.
func (s *Server) adviseFromRequest(in *adviseRequest) (*advise.Advisor, *advise.Request, []FieldError) {
	var bad []FieldError
	add := func(f, format string, a ...any) { bad = append(bad, FieldError{f, fmt.Sprintf(format, a...)}) }
	c := s.cfg.Catalog
	fx := s.cfg.FX
	cur := money.USD
	if in.Currency != "" {
		v, err := money.ParseCurrency(in.Currency)
		if err != nil || !fx.Known(v) {
			add("currency", "%q: want one of %s", in.Currency, strings.Join(fx.Currencies(), ", "))
		} else {
			cur = v
		}
	}
	a := &advise.Advisor{Catalog: c, FX: fx, Currency: cur, Scenarios: s.scenarios}
	req := &advise.Request{RefCount: 1, Objective: in.Objective, NoSpot: in.NoSpot, MaxNodes: in.MaxNodes, Bench: map[*catalog.GPU]*benchreport.Report{}}
	sc, err := s.scenarios.Get(in.Scenario)
	if err != nil {
		add("scenario", "%q: want one of %s", in.Scenario, strings.Join(s.scenarios.Names(), ", "))
	}
	req.Scenario = sc
	ref := in.ReferenceGPU
	if ref == "" {
		ref = "A100-SXM4-40GB"
	}
	if gs, err := c.LookupGPU(ref); err != nil {
		add("reference_gpu", "%v", err)
	} else {
		req.Ref = gs[0]
		for _, g := range gs {
			if !g.Generic && (g.BF16.Known || g.FP16.Known) {
				req.Ref = g
				break
			}
		}
	}
	if in.GPUCount != 0 {
		if !(in.GPUCount > 0 && in.GPUCount <= advise.MaxGPUs) {
			add("gpu_count", "%v: want more than 0 and at most %d", in.GPUCount, advise.MaxGPUs)
		}
		req.RefCount = in.GPUCount
	}
	switch {
	case (in.WorkGPUHours != 0) == (in.HoursPerMonth != 0):
		add("work_gpu_hours", "give the size once: work_gpu_hours (a job) or hours_per_month (a steady load)")
	case in.WorkGPUHours != 0:
		req.WorkGPUHours = in.WorkGPUHours
	default:
		req.HoursPerMonth = in.HoursPerMonth
	}
	req.Deadline = in.DeadlineHours
	if in.Budget != "" {
		d, err := money.ParseDecimal(in.Budget)
		if err != nil || !d.IsPositive() {
			add("budget", "%q: want an amount above zero in %s, e.g. \"60000\"", in.Budget, cur)
		} else {
			req.Budget = decimal.NullDecimal{Decimal: d, Valid: true}
		}
	}
	for _, p := range in.Providers {
		prov := c.Provider(p)
		if prov == nil {
			add("providers", "%q is not a known provider; known: %s", p, strings.Join(c.ProviderNames(), ", "))
			continue
		}
		req.Select.Providers = append(req.Select.Providers, prov.Name)
	}
	for _, r := range in.Regions {
		rs := c.ResolveRegion(r)
		if len(rs) == 0 {
			add("regions", "%q is not a known region", r)
		}
		req.Select.Regions = append(req.Select.Regions, rs...)
	}
	req.Select.China = in.China
	req.Usage.Spot = cost.DefaultSpot
	if bad != nil {
		return nil, nil, bad
	}
	req.Defaults()
	if err := req.Validate(); err != nil {
		return nil, nil, []FieldError{{"request", err.Error()}}
	}
	return a, req, nil
}

// postAdvise answers what `gpuscout advise -o json` prints for the request.
func (s *Server) postAdvise(w http.ResponseWriter, r *http.Request) {
	var in adviseRequest
	if !decodeStrict(w, r, &in) {
		return
	}
	a, req, bad := s.adviseFromRequest(&in)
	if bad != nil {
		badRequest(w, bad...)
		return
	}
	res, err := a.Advise(req)
	if err != nil {
		badRequest(w, FieldError{"request", err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, advise.NewOutput(res, req, a))
}
