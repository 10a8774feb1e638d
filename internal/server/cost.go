package server

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// postCost prices a usage on every matching offering under every pricing
// model, as `gpuscout cost --usage FILE -o json` does: the body is the usage
// file's content as JSON (gpu or offering, duration or hours_per_month,
// horizon, discount_rate, currency, egress, storage, credits, promotions,
// spot, license, instances). ?cashflow=true adds each option's monthly cash
// flow; ?limit=N keeps the N cheapest options (default 100).
func (s *Server) postCost(w http.ResponseWriter, r *http.Request) {
	if bad := unknownParams(r, []string{"cashflow", "limit"}); bad != nil {
		badRequest(w, bad...)
		return
	}
	var bad []FieldError
	withCashflow := false
	if v := r.URL.Query().Get("cashflow"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad = append(bad, FieldError{"cashflow", strconv.Quote(v) + ": want true or false"})
		}
		withCashflow = b
	}
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			bad = append(bad, FieldError{"limit", strconv.Quote(v) + ": want a number from 1 to 10000"})
		}
		limit = n
	}
	if bad != nil {
		badRequest(w, bad...)
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	spec, err := cost.ParseSpec("request body", body)
	if err != nil {
		badRequest(w, FieldError{"body", err.Error()})
		return
	}
	u, err := spec.Usage.Resolved()
	if err != nil {
		badRequest(w, FieldError{"body", err.Error()})
		return
	}
	c, fx := s.cfg.Catalog, s.cfg.FX
	cur := spec.Currency
	if cur == "" {
		cur = money.USD
	}
	if !fx.Known(cur) {
		badRequest(w, FieldError{"currency", string(cur) + ": want one of " + strings.Join(fx.Currencies(), ", ")})
		return
	}
	// The same checks as the CLI's: every amount converts, every credit's provider exists.
	if err := cost.CheckUsage(&u, c, fx); err != nil {
		field := "credits"
		if ce := (*cost.CurrencyError)(nil); errors.As(err, &ce) {
			field = map[string]string{"credit": "credits", "promotion": "promotions", "storage": "storage"}[ce.What]
		}
		badRequest(w, FieldError{field, err.Error()})
		return
	}
	q := catalog.Query{FX: fx, Currency: cur}
	switch {
	case spec.Offering != "":
		ref, err := catalog.ParseOfferingRef(spec.Offering)
		if err != nil {
			badRequest(w, FieldError{"offering", err.Error()})
			return
		}
		provider, regions, err := c.Resolve(ref)
		if err != nil {
			badRequest(w, FieldError{"offering", err.Error()})
			return
		}
		q.Providers, q.InstanceTypes, q.Regions = []string{provider}, []string{ref.InstanceType}, regions
	case spec.GPU != "":
		name, count, _ := strings.Cut(spec.GPU, ":")
		if q.GPUs, err = c.LookupGPU(name); err != nil {
			badRequest(w, FieldError{"gpu", err.Error()})
			return
		}
		if count != "" {
			n, err := strconv.ParseFloat(count, 64)
			if err != nil || !(n > 0 && n <= 64) {
				badRequest(w, FieldError{"gpu", strconv.Quote(spec.GPU) + ": count " + strconv.Quote(count) + ": want a number more than 0 and at most 64 (NAME:COUNT; fractions such as 0.5 select GPU slices)"})
				return
			}
			q.GPUCount = n
		}
	default:
		badRequest(w, FieldError{"gpu", "say what to price: gpu NAME[:COUNT] or offering provider/instance"})
		return
	}
	all, err := cost.Quote(c, fx, cur, q, &u)
	if err != nil {
		badRequest(w, FieldError{"request", err.Error()})
		return
	}
	if len(all) > limit {
		all = all[:limit]
	}
	writeJSON(w, http.StatusOK, map[string]any{"options": cost.OptionsJSON(all, cur, &u, withCashflow)})
}
