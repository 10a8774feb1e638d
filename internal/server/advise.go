package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sync"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/form"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/store"
)

// POST /api/v1/advise's body is a JSON object whose keys are `gpuscout
// advise`'s flag names, read by the same form (internal/form) as the
// flags: {"scenario": "cv-training", "gpu": "A100:4", "for": "7d"}. Beside
// the form's inputs it takes "currency" (the CLI's --currency) and "bench",
// ids of bench reports in the store (the CLI's --bench files).
const (
	keyCurrency = "currency"
	keyBench    = "bench"
	// maxBenchIDs bounds "bench": more reports than GPU models in the catalog.
	maxBenchIDs = 50
)

// renamedAdviseKeys are the body's keys before the API took advise's flag
// names (v1, core fields only), with what replaced each.
var renamedAdviseKeys = map[string]string{
	"reference_gpu":   `renamed: the GPU is "gpu": "NAME[:COUNT]", or the one after @ in "work"`,
	"gpu_count":       `renamed: the count is in "gpu": "NAME:COUNT"`,
	"work_gpu_hours":  `renamed: "work": "N gpu-h@GPU" (or "gpu" with "for")`,
	"hours_per_month": `renamed: "hours-per-month"`,
	"deadline_hours":  `renamed: "deadline": a duration such as "720h" or "30d"`,
	"providers":       `renamed: "provider" (a string or a list)`,
	"regions":         `renamed: "region" (a string or a list)`,
	"no_spot":         `renamed: "no-spot"`,
	"max_nodes":       `renamed: "max-nodes"`,
}

// fieldErrors turns the form's input errors into the API's field errors,
// with the CLI's words.
func fieldErrors(errs []*form.InputError) []FieldError {
	var out []FieldError
	for _, e := range errs {
		problem := e.Error()
		if hint, ok := renamedAdviseKeys[e.Name]; ok && e.Unknown {
			problem = hint
		}
		out = append(out, FieldError{e.Name, problem})
	}
	return out
}

// adviseFromBody builds the advisor and the domain request from the body,
// as the CLI does from its flags; every problem is a field error, and a
// store failure is an error.
func (s *Server) adviseFromBody(r *http.Request, body []byte) (*advise.Advisor, *advise.Request, []FieldError, error) {
	f := form.NewAdvise()
	own, errs := f.SetJSON(body, keyCurrency, keyBench)
	bad := fieldErrors(errs)
	cur := money.USD
	if raw, ok := own[keyCurrency]; ok {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			bad = append(bad, FieldError{keyCurrency, "want a string, e.g. \"CNY\""})
		} else if c, err := form.ParseCurrency(text, s.cfg.FX); err != nil {
			bad = append(bad, FieldError{keyCurrency, err.Error()})
		} else {
			cur = c
		}
	}
	var benchIDs []string
	if raw, ok := own[keyBench]; ok {
		if err := json.Unmarshal(raw, &benchIDs); err != nil || len(benchIDs) > maxBenchIDs {
			bad = append(bad, FieldError{keyBench, fmt.Sprintf("want a list of at most %d bench report ids (GET /api/v1/reports?kind=bench)", maxBenchIDs)})
		}
	}
	if bad != nil {
		return nil, nil, bad, nil
	}
	env := form.Env{Catalog: s.cfg.Catalog, FX: s.cfg.FX, Currency: cur, Scenarios: s.scenarios}
	req, err := f.Request(env)
	if err != nil {
		var ie *form.InputError
		if errors.As(err, &ie) {
			return nil, nil, []FieldError{{ie.Name, ie.Error()}}, nil
		}
		return nil, nil, nil, err
	}
	for _, id := range benchIDs {
		if !store.ValidID(id) {
			return nil, nil, []FieldError{{keyBench, fmt.Sprintf("%q: want the 64 hex digits of a report's SHA-256", id)}}, nil
		}
		d, err := s.cfg.Store.GetDocument(r.Context(), id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && d.Kind != store.KindBench) {
			return nil, nil, []FieldError{{keyBench, fmt.Sprintf("%s: no bench report with that id", id)}}, nil
		}
		if err != nil {
			return nil, nil, nil, err
		}
		rep, g, err := benchreport.Read(d.Body, id, s.cfg.Catalog)
		if err == nil {
			err = rep.CheckScenarios(s.scenarios.Names()) // as advise --bench
		}
		if err != nil {
			return nil, nil, []FieldError{{keyBench, err.Error()}}, nil
		}
		rep.Path = "/api/v1/reports/" + id // where the measured figures came from, as the CLI names the file
		req.Bench[g] = rep
	}
	req.Defaults()
	if err := req.Validate(); err != nil {
		return nil, nil, validationFields(err.Error()), nil
	}
	a := &advise.Advisor{Catalog: s.cfg.Catalog, FX: s.cfg.FX, Currency: cur, Scenarios: s.scenarios, Now: s.cfg.Now}
	return a, req, nil, nil
}

// postAdvise answers what `gpuscout advise -o json` prints for the same inputs.
func (s *Server) postAdvise(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	a, req, bad, err := s.adviseFromBody(r, body)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", "lookup failed", nil)
		return
	}
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

// flagWord is a flag named in a message: --NAME.
var flagWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--([a-z][a-z0-9-]*)`) })

// validationFields names the inputs a check of the whole request (the
// CLI's words: "--pattern bursty needs 0 <= --base <= --peak …, got base
// -2, peak 4") is about: one field error per input it names, in its order,
// each with the whole message; "request" when it names none.
func validationFields(msg string) []FieldError {
	inputs := adviseInputs()
	var out []FieldError
	seen := map[string]bool{}
	for _, m := range flagWord().FindAllStringSubmatch(msg, -1) {
		if name := m[1]; slices.Contains(inputs, name) && !seen[name] {
			seen[name] = true
			out = append(out, FieldError{name, msg})
		}
	}
	if out == nil {
		out = []FieldError{{"request", msg}}
	}
	return out
}

// adviseInputs lists the body's keys (for the OpenAPI check).
func adviseInputs() []string {
	return append(form.NewAdvise().Names(), keyCurrency, keyBench)
}
