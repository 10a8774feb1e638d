package catalog

import "time"

// StaleAfter is the age above which a price is flagged wherever it is used
// (catalog info, the advise table, a plan's explanation, reports and JSON):
// a list price older than a year has likely moved.
const StaleAfter = 365 * 24 * time.Hour

// PriceAge is how many whole days old a price dated asOf (YYYY-MM-DD, or
// an RFC 3339 time) is at now, and whether that is past StaleAfter. An
// empty or malformed date is of no known age: 0 days, not stale.
func PriceAge(asOf string, now time.Time) (days int, stale bool) {
	if len(asOf) < len("2006-01-02") {
		return 0, false
	}
	d, err := time.Parse("2006-01-02", asOf[:len("2006-01-02")])
	if err != nil {
		return 0, false
	}
	age := now.Sub(d)
	if age < 0 {
		return 0, false
	}
	return int(age.Hours() / 24), age > StaleAfter
}
