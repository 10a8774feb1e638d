package form

import (
	"strings"

	"github.com/gpuscout/gpuscout/internal/money"
)

// ParseCurrency reads --currency (the display currency of every command
// that prices, and the API's "currency"): an ISO code, or 人民币/元/RMB,
// that the exchange rates know. The CLI adds how to give a rate (--fx).
func ParseCurrency(s string, fx *money.FX) (money.Currency, error) {
	c, err := money.ParseCurrency(s)
	if err != nil {
		return "", inputErrorf("currency", "--currency: %v", err)
	}
	if !fx.Known(c) {
		return "", inputErrorf("currency", "--currency %s: no exchange rate for it (known: %s)", c, strings.Join(fx.Currencies(), ", "))
	}
	return c, nil
}
