package cli

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/report"
)

// priceDates dates the prices a listing shows (catalog.PriceAge, the one
// age rule) for its PRICED cells, and counts what the notes under it
// explain: stale list prices, dates known only to the year or month, and
// stale spot prices.
type priceDates struct {
	stale, spotStale   int
	partial            bool
	spotOldest, spotTo catalog.Date
}

// add dates a known price of kind at now; nil for an unknown price.
func (d *priceDates) add(c *catalog.Catalog, kind catalog.PriceKind, p catalog.Price, now time.Time) *catalog.Age {
	if !p.Known {
		return nil
	}
	a := c.PriceAge(kind, p.Source, p.AsOf, now)
	switch {
	case kind == catalog.SpotPrice:
		if a.Stale {
			d.spotStale++
			if d.spotOldest.Precision == catalog.Undated || a.Date.Start.Before(d.spotOldest.Start) {
				d.spotOldest = a.Date
			}
			if d.spotTo.Precision == catalog.Undated || a.Date.Start.After(d.spotTo.Start) {
				d.spotTo = a.Date
			}
		}
	default:
		d.partial = d.partial || a.Date.Partial()
		if a.Stale {
			d.stale++
		}
	}
	return &a
}

// notes explain the marks the listing's PRICED cells carry, only where a
// shown row has one: what the column is (what), † and how many rows
// (unit) carry it, a date known only to its year, and stale spot prices.
func (d *priceDates) notes(what, unit string) []string {
	var out []string
	if d.stale > 0 {
		out = append(out, fmt.Sprintf("PRICED: the %s; %s = more than a year old (%d %s shown): check those prices against the provider's console, or run catalog refresh.",
			what, report.StaleMark, d.stale, unit))
	}
	if d.partial {
		out = append(out, partialDateNote)
	}
	if d.spotStale > 0 {
		dates := d.spotOldest.String()
		if d.spotTo != d.spotOldest {
			dates += " to " + d.spotTo.String()
		}
		n := fmt.Sprintf("%d spot prices shown are", d.spotStale)
		if d.spotStale == 1 {
			n = "1 spot price shown is"
		}
		out = append(out, fmt.Sprintf("SPOT: %s older than %s (dated %s), and spot prices move far faster than list prices: check them before you buy; -o csv and -o json give each one's date.",
			n, catalog.SpotPrice.Limit(), dates))
	}
	return out
}

// partialDateNote explains a PRICED date known only to its year or month.
const partialDateNote = "PRICED \"(day unknown)\": the price page gives only the year (or month); its age is counted from the first day of it, the oldest the price can be."

// pricedCell is a PRICED cell: the date as far as it is known, † when
// stale; "-" for a price that is unknown (no date applies).
func pricedCell(a *catalog.Age) string {
	if a == nil {
		return render.NotApplied
	}
	return datedCell(a.Date, a.Stale)
}

// datedCell is a date cell, marked † when stale; "?" for a date no source gives.
func datedCell(d catalog.Date, stale bool) string {
	s := d.String()
	if s == "" {
		s = render.Unknown
	}
	if stale {
		s += report.StaleMark
	}
	return s
}

// csvDate is a price's date for CSV, as far as it is known (2024-11-06,
// 2024-09, 2021); empty for an unknown price or date.
func csvDate(a *catalog.Age) string {
	if a == nil {
		return ""
	}
	return a.Date.ISO()
}

// csvStale is whether a price is stale, for CSV; empty for an unknown price.
func csvStale(a *catalog.Age) string {
	if a == nil {
		return ""
	}
	return strconv.FormatBool(a.Stale)
}
