package catalog

import (
	"fmt"
	"time"
)

// The age rule: one place decides when a price is too old to trust
// (catalog info, offers, cost, the advise table, a plan's explanation,
// reports and JSON all ask PriceAge).
//
// StaleAfter is the age above which a list price (on-demand, commitment,
// and the tables behind them) is flagged: a list price older than a year
// has likely moved.
const StaleAfter = 365 * 24 * time.Hour

// SpotStaleAfter is the age above which a spot price snapshot is flagged.
// Spot prices move far faster than list prices: Google's price list says
// "Spot prices are dynamic and can change up to once every 30 days"
// (https://cloud.google.com/skus), and AWS's follow supply and demand from
// day to day, so a snapshot more than 30 days old has likely moved on
// either cloud.
const SpotStaleAfter = 30 * 24 * time.Hour

// PriceKind is what a price prices, for the age rule.
type PriceKind uint8

const (
	ListPrice PriceKind = iota // on-demand, commitments, Capacity Blocks: StaleAfter
	SpotPrice                  // a spot price snapshot: SpotStaleAfter
)

// KindOf is the kind of a price a plan or option bills at, by the name it
// gives it ("on-demand", "spot", "commitment"): spot, or a list price.
func KindOf(what string) PriceKind {
	if what == "spot" {
		return SpotPrice
	}
	return ListPrice
}

// StaleAfter is the kind's threshold.
func (k PriceKind) StaleAfter() time.Duration {
	if k == SpotPrice {
		return SpotStaleAfter
	}
	return StaleAfter
}

// Limit names the kind's threshold: "a year", "30 days".
func (k PriceKind) Limit() string {
	if k == SpotPrice {
		return fmt.Sprintf("%d days", int(SpotStaleAfter.Hours()/24))
	}
	return "a year"
}

// Precision is how much of a date is known.
type Precision uint8

const (
	Undated   Precision = iota // no date, or one that cannot be read
	YearOnly                   // "2021": a page that states no day or month
	MonthOnly                  // "2024-09"
	DayKnown                   // "2024-11-06" (or an RFC 3339 time)
)

// Date is an as-of date as far as it is known.
type Date struct {
	// Start is the first day the date may be (midnight UTC): the day itself,
	// or the first day of its month or year.
	Start     time.Time
	Precision Precision
	raw       string // the text read, for a date that cannot be read
}

// ReadDate is the one reader of as-of dates: YYYY-MM-DD (or an RFC 3339
// time), YYYY-MM or YYYY for a source dated only that far. Anything else is
// undated (and keeps its text for String).
func ReadDate(s string) Date {
	for _, f := range []struct {
		layout string
		p      Precision
	}{{"2006-01-02", DayKnown}, {"2006-01", MonthOnly}, {"2006", YearOnly}} {
		text := s
		if f.p == DayKnown && len(s) > len(f.layout) && s[len(f.layout)] == 'T' {
			text = s[:len(f.layout)] // an RFC 3339 time: its day
		}
		if t, err := time.Parse(f.layout, text); err == nil {
			return Date{Start: t, Precision: f.p}
		}
	}
	return Date{raw: s}
}

// ISO is the date as far as it is known: "2024-11-06", "2024-09", "2021";
// an unreadable date's own text.
func (d Date) ISO() string {
	switch d.Precision {
	case DayKnown:
		return d.Start.Format("2006-01-02")
	case MonthOnly:
		return d.Start.Format("2006-01")
	case YearOnly:
		return d.Start.Format("2006")
	}
	return d.raw
}

// String is the date for people: "2024-11-06", "2024-09 (day unknown)",
// "2021 (day unknown)"; an unreadable date's own text, "" for none.
func (d Date) String() string {
	if d.Precision == YearOnly || d.Precision == MonthOnly {
		return d.ISO() + " (day unknown)"
	}
	return d.ISO()
}

// Partial says the date is known only to its year or month.
func (d Date) Partial() bool { return d.Precision == YearOnly || d.Precision == MonthOnly }

// PriceDate reads the date of a price (or commitment price) from source:
// its as-of date, except where the source itself is dated only to a year or
// month (sources.yaml's as_of "2021": a page that states no date) and the
// price carries that period's first day, the placeholder a feed writes
// where its format needs a full date. Such a price is dated only as far as
// its source is. A nil catalog reads the price's own date.
func (c *Catalog) PriceDate(source, asOf string) Date {
	d := ReadDate(asOf)
	if c == nil || source == "" {
		return d
	}
	s := c.Source(source)
	if s == nil {
		return d
	}
	sd := ReadDate(s.AsOf)
	if sd.Partial() && (d.Precision == Undated && asOf == "" || d.Precision == DayKnown && d.Start.Equal(sd.Start)) {
		return sd
	}
	return d
}

// Age is how old a price is at a moment, by its kind's rule.
type Age struct {
	Date Date
	Kind PriceKind
	// Days is the whole days since the date; for a date known only to its
	// year or month, since the period's first day: the most it can be.
	Days int
	// Stale says the price is past its kind's threshold; for a date known
	// only to its year or month, that it may be (the period's first day is).
	Stale bool
}

// PriceAge is the age of a price of kind dated d at now. An undated price,
// or one dated after now, is of no known age: 0 days, not stale.
func PriceAge(kind PriceKind, d Date, now time.Time) Age {
	a := Age{Date: d, Kind: kind}
	if d.Precision == Undated {
		return a
	}
	age := now.Sub(d.Start)
	if age < 0 {
		return a
	}
	a.Days, a.Stale = int(age.Hours()/24), age > kind.StaleAfter()
	return a
}

// PriceAge is the age at now of a price of kind from source dated asOf,
// read with PriceDate.
func (c *Catalog) PriceAge(kind PriceKind, source, asOf string, now time.Time) Age {
	return PriceAge(kind, c.PriceDate(source, asOf), now)
}

// Ago says how long ago the price was dated: "757 days ago", "up to 2160
// days ago" for a date known only to its year or month; "" undated.
func (a Age) Ago() string {
	switch {
	case a.Date.Precision == Undated:
		return ""
	case a.Date.Partial():
		return fmt.Sprintf("up to %d days ago", a.Days)
	}
	return fmt.Sprintf("%d days ago", a.Days)
}

// partialName names a partial date's precision for JSON: "year", "month";
// "" for a known day or no date.
func (p Precision) partialName() string {
	switch p {
	case YearOnly:
		return "year"
	case MonthOnly:
		return "month"
	}
	return ""
}
