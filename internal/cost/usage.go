// Package cost prices the whole bill of a workload on a catalog offering
// under every pricing model the provider sells: on-demand, spot, and
// commitments with their real payment schemes as cash-flow schedules; plus
// egress by path and tier, storage, credits and promotions. It computes
// totals, net present value, break-even usage against on-demand and the
// implied interest rate of paying upfront, and explains each result.
package cost

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// MinBillableHours is the shortest usage any sourced provider bills (AWS and GCP: 60 s).
const MinBillableHours = 60.0 / 3600

// HoursPerMonthRange says what an hours-a-month figure (a steady load's use,
// a bursty load's hours at peak) may be: from the shortest billable use to
// the whole month.
var HoursPerMonthRange = fmt.Sprintf("want 1 minute (%.4f h) to %d h: the shortest use any sourced provider bills, up to the %d hours of a month", MinBillableHours, catalog.HoursPerMonth, catalog.HoursPerMonth)

// Usage describes a workload.
type Usage struct {
	Instances     int
	HoursPerMonth float64 // per instance, when the load is steady
	DurationHours float64 // a job that runs this many hours back to back (0: steady load)
	HorizonMonths float64 // the planning window
	DiscountRate  decimal.Decimal
	License       string             // linux or windows
	Egress        map[string]float64 // GB per month by path
	Storage       []Storage
	Credits       []Credit
	Promotions    []Promotion
	Spot          SpotAssumptions
}

// Storage is a storage volume with the user's price (no storage price is sourced in the catalog).
type Storage struct {
	Kind          string // object or block
	GBMonth       float64
	PricePerGB    decimal.Decimal
	Currency      money.Currency
	ProviderScope []string // empty: every provider
}

// Credit is a prepaid balance that pays monthly charges until spent or expired.
type Credit struct {
	Name          string
	Amount        decimal.Decimal
	Currency      money.Currency
	ExpiresMonths float64  // 0: never
	Providers     []string // empty: every provider
}

// Promotion kinds.
const (
	PromoFirstMonth = "first-month-discount"
	PromoStudent    = "student-price"
	PromoVoucher    = "voucher"
)

// Promotion is an offer the user enables, with its limits.
type Promotion struct {
	Kind         string
	Percent      decimal.Decimal // first-month-discount: fraction off month 1's usage
	PricePerHour decimal.Decimal // student-price
	DailyHours   float64         // student-price: hours a day at that price
	Months       float64         // student-price: months it lasts (0: the whole horizon)
	Amount       decimal.Decimal // voucher
	Currency     money.Currency
	Providers    []string
	GPU          string // student-price: only offerings of this GPU family (empty: any)
}

// SpotAssumptions tune the simple spot model.
type SpotAssumptions struct {
	Band            string  // interruption band per month, e.g. "10-15%"; empty: the Spot Advisor's, else the default
	CheckpointHours float64 // work lost per interruption is half of this, plus the restart
	RestartHours    float64
	// OutageHours is the mean time spot capacity stays short after an
	// interruption (exponential; 0: back at once). No band sources it: it
	// is the user's assumption (--spot-outage), and what makes failing over
	// to other regions pay.
	OutageHours float64
}

// DefaultSpot are the spot assumptions when the user gives none.
var DefaultSpot = SpotAssumptions{CheckpointHours: 1, RestartHours: 10.0 / 60}

// Bounds of a usage, documented in README ("cost"): beyond them an input is a typo.
const (
	MaxInstances      = 100000
	MaxHorizonMonths  = 120 // 10 years
	MaxEgressGBMonth  = 1e12
	MaxStorageGBMonth = 1e12
	// MaxSpotOutageHours bounds the mean time spot stays short after an
	// interruption (--spot-outage): a month; longer is no spot at all.
	MaxSpotOutageHours = 30 * 24
)

// WithDefaults returns u with every unset field given its default: one
// instance; a job runs back to back (730 h a month) and a steady load uses the
// whole month; the horizon is the job's calendar time, else a year; Linux; the
// default spot assumptions. u itself is not changed.
func (u Usage) WithDefaults() Usage {
	d := u.clone()
	if d.Instances == 0 {
		d.Instances = 1
	}
	if d.HoursPerMonth == 0 {
		d.HoursPerMonth = catalog.HoursPerMonth
	}
	if d.HorizonMonths == 0 {
		if d.DurationHours > 0 {
			// A job's horizon is the calendar time it takes at the given hours per month.
			d.HorizonMonths = d.DurationHours / d.HoursPerMonth
		} else {
			d.HorizonMonths = 12
		}
	}
	if d.License == "" {
		d.License = "linux"
	}
	if d.Spot.CheckpointHours == 0 {
		d.Spot.CheckpointHours = DefaultSpot.CheckpointHours
	}
	if d.Spot.RestartHours == 0 {
		d.Spot.RestartHours = DefaultSpot.RestartHours
	}
	return d
}

// Resolved is WithDefaults followed by Validate: the usage the engine prices.
func (u Usage) Resolved() (Usage, error) {
	d := u.WithDefaults()
	return d, d.Validate()
}

// Validate checks a usage with its defaults applied (see Resolved) and never
// changes it. Errors name the field, the value and what is allowed.
func (u *Usage) Validate() error {
	if u.Instances < 1 || u.Instances > MaxInstances {
		return fieldErrorf(FieldInstances, "instances %d: want 1 to %d", u.Instances, MaxInstances)
	}
	if !(u.HoursPerMonth >= MinBillableHours && u.HoursPerMonth <= catalog.HoursPerMonth) {
		return fieldErrorf(FieldHoursPerMonth, "hours per month %g: %s", u.HoursPerMonth, HoursPerMonthRange)
	}
	if !(u.DurationHours >= 0 && u.DurationHours <= MaxDurationHours) {
		return fieldErrorf(FieldDuration, "duration %g h: want a positive duration such as 7d, at most 100y", u.DurationHours)
	}
	if u.DurationHours > 0 && u.DurationHours < MinBillableHours {
		return fieldErrorf(FieldDuration, "duration %s is shorter than the billing minimum of 60 s (AWS, GCP)", FormatHours(u.DurationHours))
	}
	if !(u.HorizonMonths > 0 && u.HorizonMonths <= MaxHorizonMonths) {
		return fieldErrorf(FieldHorizon, "horizon %s: want up to 10y", FormatMonths(u.HorizonMonths))
	}
	if u.HorizonMonths*catalog.HoursPerMonth < MinBillableHours {
		return fieldErrorf(FieldHorizon, "horizon %s is shorter than the billing minimum of 60 s (AWS, GCP)", FormatHours(u.HorizonMonths*catalog.HoursPerMonth))
	}
	if u.DurationHours > 0 && u.DurationHours > u.HorizonMonths*u.HoursPerMonth+1e-9 {
		return fieldErrorf(FieldDuration, "the job needs %s but the horizon of %s at %g h/month holds only %s", FormatHours(u.DurationHours),
			FormatMonths(u.HorizonMonths), u.HoursPerMonth, FormatHours(u.HorizonMonths*u.HoursPerMonth))
	}
	if u.DiscountRate.LessThan(decimal.Zero) || u.DiscountRate.GreaterThan(decimal.NewFromInt(1)) {
		return fieldErrorf(FieldDiscountRate, "discount rate %s%%: want a yearly rate from 0%% to 100%%, such as 8%%", u.DiscountRate.Mul(decimal.NewFromInt(100)))
	}
	switch u.License {
	case "linux", "windows":
	default:
		return fieldErrorf(FieldLicense, "license %q: want linux or windows", u.License)
	}
	for p, gb := range u.Egress {
		if !(gb >= 0 && gb <= MaxEgressGBMonth) {
			return fieldErrorf(FieldEgress, "egress %s: %g GB/month: want 0 to %g", p, gb, MaxEgressGBMonth)
		}
	}
	for _, c := range u.Credits {
		if err := money.New(c.Amount, c.Currency).CheckRange("credit "+c.Name, decimal.Zero, money.MaxAmount); err != nil {
			return err
		}
	}
	for _, p := range u.Promotions {
		for what, v := range map[string]decimal.Decimal{"voucher": p.Amount, "student price per hour": p.PricePerHour} {
			if err := money.New(v, p.Currency).CheckRange(what, decimal.Zero, money.MaxAmount); err != nil {
				return err
			}
		}
	}
	for _, st := range u.Storage {
		if !(st.GBMonth >= 0 && st.GBMonth <= MaxStorageGBMonth) {
			return fieldErrorf(FieldStorage, "storage %s: %g GB-month: want 0 to %g", st.Kind, st.GBMonth, MaxStorageGBMonth)
		}
		if err := money.New(st.PricePerGB, st.Currency).CheckRange("storage price per GB-month", decimal.Zero, money.MaxHourly); err != nil {
			return err
		}
	}
	if u.Spot.Band != "" {
		if _, _, _, err := spot.BandHazard(u.Spot.Band); err != nil {
			return fieldErrorf(FieldSpotBand, "spot band: %v", err)
		}
	}
	if !(u.Spot.CheckpointHours > 0 && u.Spot.CheckpointHours <= MaxDurationHours) {
		return fieldErrorf(FieldCheckpoint, "spot checkpoint interval %s: want above zero", FormatHours(u.Spot.CheckpointHours))
	}
	if !(u.Spot.RestartHours >= 0 && u.Spot.RestartHours <= MaxDurationHours) {
		return fieldErrorf(FieldRestart, "spot restart time %s: want 0 or more", FormatHours(u.Spot.RestartHours))
	}
	if !(u.Spot.OutageHours >= 0 && u.Spot.OutageHours <= MaxSpotOutageHours) {
		return fieldErrorf(FieldOutage, "spot outage %s: want 0 to %s", FormatHours(u.Spot.OutageHours), FormatHours(MaxSpotOutageHours))
	}
	return nil
}

// FieldError is a Usage that Validate refused, with the field at fault, so
// that a usage file's error names that field's line and a command its flag.
type FieldError struct {
	Field Field
	Msg   string
}

func (e *FieldError) Error() string { return e.Msg }

func fieldErrorf(f Field, format string, args ...any) error {
	return &FieldError{Field: f, Msg: fmt.Sprintf(format, args...)}
}

// Months is the number of monthly billing periods in the horizon.
func (u *Usage) Months() int { return int(math.Ceil(u.HorizonMonths - 1e-9)) }

// Terms is how many commitment terms of termMonths months the usage buys,
// the one rule of whether a term can serve it: the whole terms its horizon
// holds, and at least one where the horizon's billing months (Months: a
// month begun is a month paid) fill a term. So a 336 h job buys one 1-month
// subscription, the rest of the month idle, and an 11.5-month plan one
// 1-year term; a 7-day job cannot use a 1-year term (0). Months after the
// last whole term run on-demand.
func (u *Usage) Terms(termMonths int) int {
	if termMonths <= 0 || u.Months() < termMonths {
		return 0
	}
	return max(1, int(math.Floor(u.HorizonMonths/float64(termMonths)+1e-9)))
}

// HoursSeg is a run of months with the same hours of use and calendar share.
type HoursSeg struct {
	From, To int     // months, 1-based, inclusive
	Hours    float64 // per instance per month
	Calendar float64 // share of the calendar month inside the horizon (for daily caps, prorating)
}

// HoursByMonth lays the usage out month by month.
func (u *Usage) HoursByMonth() []HoursSeg {
	var out []HoursSeg
	add := func(from, to int, h, cal float64) {
		if to < from || h <= 0 {
			return
		}
		out = append(out, HoursSeg{From: from, To: to, Hours: h, Calendar: cal})
	}
	full := int(math.Floor(u.HorizonMonths + 1e-9))
	frac := u.HorizonMonths - float64(full)
	if frac < 1e-9 {
		frac = 0
	}
	if u.DurationHours == 0 {
		add(1, full, u.HoursPerMonth, 1)
		add(full+1, full+1, u.HoursPerMonth*frac, frac)
		return out
	}
	remaining := u.DurationHours
	fullJob := int(math.Floor(remaining/u.HoursPerMonth + 1e-9))
	add(1, fullJob, u.HoursPerMonth, 1)
	remaining -= float64(fullJob) * u.HoursPerMonth
	if remaining > 1e-9 {
		add(fullJob+1, fullJob+1, remaining, remaining/u.HoursPerMonth)
	}
	return out
}

// TotalHours is the hours of use per instance over the horizon.
func (u *Usage) TotalHours() float64 {
	var t float64
	for _, s := range u.HoursByMonth() {
		t += s.Hours * float64(s.To-s.From+1)
	}
	return t
}

// MaxDurationHours bounds every duration a user gives (a job, a horizon, an
// expiry, a checkpoint interval): 100 years, far beyond any plan.
const MaxDurationHours = 100 * 8760

// ParseDuration reads 90m, 168h, 7d, 2w, 3mo, 1y (and combinations like 1y6mo)
// as hours; the result must be above zero.
func ParseDuration(s string) (float64, error) {
	h, err := ParseNonNegativeDuration(s)
	if err == nil && h == 0 {
		return 0, fmt.Errorf("duration %q must be longer than zero", s)
	}
	return h, err
}

// ParseNonNegativeDuration is ParseDuration where zero is allowed: "0", "0m"
// and "0s" all read as zero hours.
func ParseNonNegativeDuration(s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return 0, fmt.Errorf("empty duration; want for example 7d, 168h, 3mo or 1y")
	}
	units := []struct {
		suffix string
		hours  float64
	}{{"mo", catalog.HoursPerMonth}, {"y", 8760}, {"w", 168}, {"d", 24}, {"h", 1}, {"m", 1.0 / 60}, {"s", 1.0 / 3600}}
	if n, err := strconv.ParseFloat(t, 64); err == nil && n == 0 {
		return 0, nil // a bare 0 needs no unit
	}
	var total float64
	for t != "" {
		i := 0
		for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("duration %q: want a number then a unit (s, m, h, d, w, mo, y), e.g. 7d", s)
		}
		n, err := strconv.ParseFloat(t[:i], 64)
		if err != nil {
			return 0, fmt.Errorf("duration %q: %q is not a number", s, t[:i])
		}
		rest := t[i:]
		matched := false
		for _, u := range units {
			if strings.HasPrefix(rest, u.suffix) {
				total += n * u.hours
				t = rest[len(u.suffix):]
				matched = true
				break
			}
		}
		if !matched {
			return 0, fmt.Errorf("duration %q: unknown unit %q; want s, m, h, d, w, mo or y", s, rest)
		}
	}
	if !(total >= 0 && total <= MaxDurationHours) {
		return 0, fmt.Errorf("duration %q is too long: at most 100y", s)
	}
	return total, nil
}

// FormatHours renders hours compactly: "168 h", "45 s".
func FormatHours(h float64) string {
	if h < 1.0/60 {
		return strconv.FormatFloat(h*3600, 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(math.Round(h*100)/100, 'f', -1, 64) + " h"
}

// FormatMonths renders months: "36 months", "0.23 months", "1 month".
func FormatMonths(m float64) string {
	v := math.Round(m*100) / 100
	if v == 1 {
		return "1 month"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + " months"
}

// Extras are what the usage adds to every option's total beyond the
// capacity, those given only: egress, storage, credits, promotions.
func (u *Usage) Extras() []string {
	var out []string
	for _, x := range []struct {
		name  string
		given bool
	}{{"egress", len(u.Egress) > 0}, {"storage", len(u.Storage) > 0}, {"credits", len(u.Credits) > 0}, {"promotions", len(u.Promotions) > 0}} {
		if x.given {
			out = append(out, x.name)
		}
	}
	return out
}

// TotalsNote says what the totals include beyond the capacity: only what
// was given ("Totals include egress and credits."), or that none was.
func (u *Usage) TotalsNote() string {
	x := u.Extras()
	switch len(x) {
	case 0:
		return "No egress, storage, credits or promotions given: totals are the capacity alone."
	case 1:
		return "Totals include the " + x[0] + " given."
	}
	return "Totals include the " + strings.Join(x[:len(x)-1], ", ") + " and " + x[len(x)-1] + " given."
}

// Count is n and the noun, singular for 1: "1 instance", "2 instances".
// The one place a count's noun is chosen (cost, advise and the CLI).
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// MonthlyRate converts a yearly discount rate to a monthly one: (1+r)^(1/12) - 1.
func MonthlyRate(annual decimal.Decimal) float64 {
	r := annual.InexactFloat64()
	return math.Pow(1+r, 1.0/12) - 1
}
