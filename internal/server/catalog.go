package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// gpuJSON is one GPU of GET /api/v1/gpus: the same fields as `gpus -o json`.
type gpuJSON struct {
	Name         string                  `json:"name"`
	Vendor       string                  `json:"vendor"`
	Family       string                  `json:"family"`
	FormFactor   string                  `json:"form_factor"`
	Aliases      []string                `json:"aliases"`
	Figures      map[string]*json.Number `json:"figures"`
	Sources      map[string]string       `json:"sources"`
	Interconnect string                  `json:"interconnect"`
}

func (s *Server) getGPUs(w http.ResponseWriter, r *http.Request) {
	if bad := unknownParams(r, nil); bad != nil {
		badRequest(w, bad...)
		return
	}
	out := make([]gpuJSON, 0, len(s.cfg.Catalog.GPUs))
	for _, g := range s.cfg.Catalog.GPUs {
		j := gpuJSON{Name: g.Name, Vendor: g.Vendor, Family: g.Family, FormFactor: g.FormFactor,
			Aliases: append([]string{}, g.Aliases...), Figures: map[string]*json.Number{}, Sources: map[string]string{}, Interconnect: g.Interconnect}
		for _, nf := range g.Figures() {
			if nf.Figure.Known {
				n := json.Number(nf.Figure.String())
				j.Figures[nf.Name], j.Sources[nf.Name] = &n, nf.Figure.Source
			} else {
				j.Figures[nf.Name] = nil // unknown or unsupported: never zero
			}
		}
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, map[string]any{"gpus": out})
}

// offeringJSON is one row of GET /api/v1/offerings (the fields of `offers -o json`).
type offeringJSON struct {
	Provider         string       `json:"provider"`
	InstanceType     string       `json:"instance_type"`
	Region           string       `json:"region"`
	Zone             string       `json:"zone"`
	China            bool         `json:"china"`
	GPU              string       `json:"gpu"`
	GPUCount         float64      `json:"gpu_count"`
	GPUMemoryGiB     float64      `json:"gpu_memory_gib"`
	VCPUs            float64      `json:"vcpus"`
	MemoryGiB        float64      `json:"memory_gib"`
	PricePerHour     *json.Number `json:"price_per_hour"`
	SpotPricePerHour *json.Number `json:"spot_price_per_hour"`
	PricePerGPUHour  *json.Number `json:"price_per_gpu_hour"`
	Currency         string       `json:"currency"`
	PriceSource      string       `json:"price_source"`
	PriceAsOf        string       `json:"price_as_of"`
	SpotSource       string       `json:"spot_source,omitempty"`
}

var offeringParams = []string{"gpu", "provider", "region", "spot", "china", "max-price", "currency", "sort", "limit"}

// offeringsQuery turns the query string into a catalog query, as `gpuscout
// offers` turns its flags; every problem is a field error.
func offeringsQuery(c *catalog.Catalog, fx *money.FX, r *http.Request) (catalog.Query, []FieldError) {
	v := r.URL.Query()
	q := catalog.Query{FX: fx, Currency: money.USD}
	var bad []FieldError
	if bad = unknownParams(r, offeringParams); bad != nil {
		return q, bad
	}
	add := func(f, format string, a ...any) { bad = append(bad, FieldError{f, fmt.Sprintf(format, a...)}) }
	if g := v.Get("gpu"); g != "" {
		name, count, _ := strings.Cut(g, ":")
		gpus, err := c.LookupGPU(name)
		if err != nil {
			add("gpu", "%v", err)
		}
		q.GPUs = gpus
		if count != "" {
			n, err := strconv.ParseFloat(count, 64)
			if err != nil || !(n > 0 && n <= 64) {
				add("gpu", "count %q: want a number from 0 to 64 (NAME:COUNT)", count)
			}
			q.GPUCount = n
		}
	}
	for _, list := range v["provider"] {
		for _, p := range strings.Split(list, ",") {
			prov := c.Provider(strings.TrimSpace(p))
			if prov == nil {
				add("provider", "%q is not a known provider; known: %s", p, strings.Join(c.ProviderNames(), ", "))
				continue
			}
			q.Providers = append(q.Providers, prov.Name)
		}
	}
	for _, reg := range v["region"] {
		rs := c.ResolveRegion(reg)
		if len(rs) == 0 {
			add("region", "%q is not a known region; closest: %s", reg, strings.Join(catalog.Closest(reg, c.Regions(""), 5), ", "))
		}
		q.Regions = append(q.Regions, rs...)
	}
	if s := v.Get("spot"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			add("spot", "%q: want true or false", s)
		}
		q.Spot = b
	}
	if s := v.Get("china"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			add("china", "%q: want true (only mainland China) or false (exclude it)", s)
		}
		q.China = &b
	}
	if s := v.Get("currency"); s != "" {
		cur, err := money.ParseCurrency(s)
		if err != nil || !q.FX.Known(cur) {
			add("currency", "%q: want one of %s", s, strings.Join(q.FX.Currencies(), ", "))
		} else {
			q.Currency = cur
		}
	}
	if s := v.Get("max-price"); s != "" {
		d, err := money.ParseDecimal(s)
		if err != nil || d.IsNegative() || d.GreaterThan(money.MaxHourly) {
			add("max-price", "%q: want a price per hour from 0 to %s in %s", s, money.Grouped(money.MaxHourly, 0), q.Currency)
		} else {
			q.MaxPrice = decimal.NullDecimal{Decimal: d, Valid: true}
		}
	}
	var err error
	if q.Sort, err = catalog.ParseSortKey(v.Get("sort")); err != nil {
		add("sort", "%v", err)
	}
	q.Limit = 100
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 10000 {
			add("limit", "%q: want a number from 1 to 10000", s)
		}
		q.Limit = n
	}
	return q, bad
}

func (s *Server) getOfferings(w http.ResponseWriter, r *http.Request) {
	q, bad := offeringsQuery(s.cfg.Catalog, s.cfg.FX, r)
	if bad != nil {
		badRequest(w, bad...)
		return
	}
	rows, err := s.cfg.Catalog.Query(q)
	if err != nil {
		badRequest(w, FieldError{"query", err.Error()})
		return
	}
	out := make([]offeringJSON, 0, len(rows))
	for _, row := range rows {
		o := row.Offering
		out = append(out, offeringJSON{Provider: o.Provider, InstanceType: o.InstanceType, Region: o.Region, Zone: row.Zone, China: o.China,
			GPU: o.GPU.Name, GPUCount: o.GPUCount, GPUMemoryGiB: o.GPUMemoryGiB, VCPUs: o.VCPUs, MemoryGiB: o.MemoryGiB,
			PricePerHour: money.NullNumber(row.Price), SpotPricePerHour: money.NullNumber(row.Spot), PricePerGPUHour: money.NullNumber(row.PerGPU),
			Currency: string(q.Currency), PriceSource: o.OnDemand.Source, PriceAsOf: o.OnDemand.AsOf, SpotSource: o.Spot.Source})
	}
	writeJSON(w, http.StatusOK, map[string]any{"offerings": out})
}

// unknownParams refuses query parameters the route does not know.
func unknownParams(r *http.Request, known []string) []FieldError {
	var bad []FieldError
	for k := range r.URL.Query() {
		ok := false
		for _, n := range known {
			ok = ok || k == n
		}
		if !ok {
			bad = append(bad, FieldError{k, "unknown parameter; allowed: " + strings.Join(known, ", ")})
		}
	}
	return bad
}
