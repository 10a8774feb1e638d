package cost

import (
	"fmt"
	"math"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// What AWS sells as a Capacity Block (source aws-capacity-blocks-docs): a
// length of 1 to 14 days in 1-day steps, then 7-day steps to 182 days; up
// to 64 instances a block and 256 across an account's blocks; the price is
// charged up front.
const (
	CapacityBlockDailyUpTo   = 14
	CapacityBlockMaxDays     = 182
	CapacityBlockMaxPerBlock = 64
	CapacityBlockMaxAccount  = 256
)

// CapacityBlockDays is the shortest Capacity Block length that covers
// hours of wall-clock time: whole days up to 14, then whole weeks up to
// 182 days. Beyond 182 days it returns the number of days back-to-back
// blocks would cover (whole days) and false.
func CapacityBlockDays(hours float64) (int, bool) {
	d := max(1, int(math.Ceil(hours/24-1e-9)))
	switch {
	case d <= CapacityBlockDailyUpTo:
		return d, true
	case d <= CapacityBlockMaxDays:
		return int(math.Ceil(float64(d)/7-1e-9)) * 7, true
	}
	return d, false
}

// capacityBlock prices the usage as Capacity Blocks: a job's wall-clock
// time (or a steady load's horizon) rounded up to a length AWS sells, every
// hour of it billed whether used or not, paid when the block is bought.
func (p *pricer) capacityBlock(o *catalog.Offering, c *catalog.Commitment, od decimal.NullDecimal) (Option, error) {
	opt := Option{Offering: o, Model: c.Model, Term: c.Term, Payment: c.Payment, Known: true, Feasible: true, Currency: p.e.Currency, QuotedIn: c.Currency, commitment: c, ondemandHourly: od}
	rate, err := p.e.FX.Convert(c.Hourly, c.Currency, p.e.Currency)
	if err != nil {
		return opt, err
	}
	opt.ListHourly = decimal.NullDecimal{Decimal: rate, Valid: true}
	// The wall-clock time the capacity must be held: a job at its hours a
	// month takes DurationHours / HoursPerMonth months of calendar.
	wall := p.u.HorizonMonths * catalog.HoursPerMonth
	what := fmt.Sprintf("your %s of use", FormatMonths(p.u.HorizonMonths))
	if p.u.DurationHours > 0 {
		wall = p.u.DurationHours / p.u.HoursPerMonth * catalog.HoursPerMonth
		what = fmt.Sprintf("a %s job (%s of wall-clock time)", FormatHours(p.u.DurationHours), FormatHours(wall))
	}
	days, ok := CapacityBlockDays(wall)
	opt.BlockDays = days
	inst := p.u.Instances
	blocks := (inst + CapacityBlockMaxPerBlock - 1) / CapacityBlockMaxPerBlock
	perInstance := rate.Mul(decimal.NewFromInt(int64(days * 24)))
	total := perInstance.Mul(decimal.NewFromInt(int64(inst)))
	// Each block is paid when bought: one at the start, or one every 182
	// days when back-to-back blocks would be needed.
	for start := 0; start < days; start += CapacityBlockMaxDays {
		n := min(CapacityBlockMaxDays, days-start)
		month := int(math.Floor(float64(start*24)/catalog.HoursPerMonth + 1e-9))
		opt.Schedule.Add(FlowUpfront, month, month, rate.Mul(decimal.NewFromInt(int64(n*24*inst))))
	}
	instances := ""
	if inst > 1 {
		instances = fmt.Sprintf(" × %d instances", inst)
		if blocks > 1 {
			instances += fmt.Sprintf(" (%d blocks: at most %d instances a block)", blocks, CapacityBlockMaxPerBlock)
		}
	}
	opt.Explanation = append(opt.Explanation, fmt.Sprintf("EC2 Capacity Block of %d days for %s: %s/h × %d h%s = %s, paid up front when booked; the capacity is yours for the block, never interrupted, and hours left when the job ends are not refunded (%s; lengths %s)",
		days, what, p.money(rate), days*24, instances, p.money(total), p.cite(c.Source, c.AsOf), "aws-capacity-blocks-docs"))
	if idle := float64(days*24) - wall; idle >= 1 && ok {
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("the block is the shortest length AWS sells that covers it (days up to %d, then weeks to %d): %s of it left idle", CapacityBlockDailyUpTo, CapacityBlockMaxDays, FormatHours(idle)))
	}
	if od.Valid && od.Decimal.IsPositive() {
		d := 1 - rate.Div(od.Decimal).InexactFloat64()
		cmp := "below"
		if d < 0 {
			cmp, d = "above", -d
		}
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("the block's hourly price is %.0f%% %s on-demand %s/h", 100*d, cmp, p.money(od.Decimal)))
	}
	switch {
	case !ok:
		opt.Feasible = false
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("a Capacity Block lasts at most %d days: %s would need back-to-back blocks, each bought only if capacity is on sale then; their cost is shown", CapacityBlockMaxDays, what))
	case inst > CapacityBlockMaxAccount:
		opt.Feasible = false
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("AWS allows at most %d instances across an account's Capacity Blocks; %d asked", CapacityBlockMaxAccount, inst))
	}
	return opt, nil
}
