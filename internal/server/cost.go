package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/form"
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
	req := cost.Request{Usage: u, Currency: spec.Currency}
	// The CLI's validation: the currency and every amount convert, every credit's provider exists.
	if err := req.Validate(c, fx); err != nil {
		field := "credits"
		if ce := (*cost.CurrencyError)(nil); errors.As(err, &ce) {
			field = map[string]string{"currency": "currency", "credit": "credits", "promotion": "promotions", "storage": "storage"}[ce.What]
		}
		badRequest(w, FieldError{field, err.Error()})
		return
	}
	// What to price, selected as the CLI's --gpu and --offering select it.
	sel := form.Selection{GPU: spec.GPU}
	if err := sel.ApplyPriced(&req.Query, c, spec.Offering); err != nil {
		var ie *form.InputError
		if errors.As(err, &ie) {
			badRequest(w, FieldError{ie.Name, err.Error()})
			return
		}
		badRequest(w, FieldError{"request", err.Error()})
		return
	}
	all, err := req.Quote(c, fx)
	if err != nil {
		badRequest(w, FieldError{"request", err.Error()})
		return
	}
	cost.DatePrices(c, all, s.cfg.Now())
	total := len(all)
	if len(all) > limit {
		all = all[:limit]
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": total, "options": cost.OptionsJSON(all, req.AnswerCurrency(), &req.Usage, withCashflow)})
}
