package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/form"
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

// defaultOfferingsLimit is GET /api/v1/offerings' limit when none is
// given (the CLI's is all rows); limit=0 asks for all.
const defaultOfferingsLimit = "100"

// offeringsQuery turns the query string into a catalog query: its
// parameters are `gpuscout offers`' flag names, read by the same form
// (internal/form), plus currency; every problem is a field error in
// the CLI's words.
func offeringsQuery(c *catalog.Catalog, fx *money.FX, r *http.Request) (catalog.Query, []FieldError) {
	v := r.URL.Query()
	f := form.NewOffers()
	_ = f.Set("limit", defaultOfferingsLimit)
	cur := money.USD
	var bad []FieldError
	if texts, ok := v[keyCurrency]; ok {
		c, err := form.ParseCurrency(texts[0], fx)
		if err != nil {
			bad = append(bad, FieldError{keyCurrency, err.Error()})
		}
		cur = c
	}
	bad = append(bad, fieldErrors(f.SetQuery(v, keyCurrency))...)
	if bad != nil {
		return catalog.Query{}, bad
	}
	q, err := f.Query(c, fx, cur)
	if err != nil {
		var ie *form.InputError
		if errors.As(err, &ie) {
			return q, []FieldError{{ie.Name, ie.Error()}}
		}
		return q, []FieldError{{"query", err.Error()}}
	}
	return q, nil
}

// offeringsParams lists the query's parameters (for the OpenAPI check).
func offeringsParams() []string {
	return append(form.NewOffers().Names(), keyCurrency)
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
	out := s.cfg.Catalog.RowsJSON(rows, q.Currency, s.cfg.Now())
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
