package cost

import (
	"fmt"
	"math"
	"strings"

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
// 182 days. Beyond 182 days no one block covers it: it returns the days
// of the back-to-back blocks that would (CapacityBlockLengths) and false.
func CapacityBlockDays(hours float64) (int, bool) {
	d := max(1, int(math.Ceil(hours/24-1e-9)))
	if d <= CapacityBlockMaxDays {
		return blockLength(d), true
	}
	total := 0
	for _, n := range CapacityBlockLengths(hours) {
		total += n
	}
	return total, false
}

// blockLength is the shortest length AWS sells of at least d ≤ 182 days.
func blockLength(d int) int {
	if d <= CapacityBlockDailyUpTo {
		return d
	}
	return int(math.Ceil(float64(d)/7-1e-9)) * 7
}

// CapacityBlockLengths are the blocks, in days, that cover hours of
// wall-clock time back to back: 182-day blocks while more than 182 days
// remain, then the shortest length sold that covers the rest (a 200-day
// job: 182 + 21, as 18 days is not sold). One block where one covers it.
func CapacityBlockLengths(hours float64) []int {
	d := max(1, int(math.Ceil(hours/24-1e-9)))
	var out []int
	for ; d > CapacityBlockMaxDays; d -= CapacityBlockMaxDays {
		out = append(out, CapacityBlockMaxDays)
	}
	return append(out, blockLength(d))
}

// capacityBlock prices the usage as Capacity Blocks: a job's wall-clock
// time (or a steady load's horizon) rounded up to a length AWS sells, every
// hour of it billed whether used or not, each block paid when it is bought.
// Longer than one block (182 days), it is back-to-back blocks, the later
// ones bought only if capacity is on sale for their dates then: priced, and
// not feasible as a plan to book now.
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
	lengths := CapacityBlockLengths(wall)
	opt.BlockDays = days
	inst := p.u.Instances
	blocks := (inst + CapacityBlockMaxPerBlock - 1) / CapacityBlockMaxPerBlock
	perInstance := rate.Mul(decimal.NewFromInt(int64(days * 24)))
	total := perInstance.Mul(decimal.NewFromInt(int64(inst)))
	// Each block is paid when bought: one at the start, the next when the
	// one before it ends.
	var paid []string
	start := 0
	for _, n := range lengths {
		month := int(math.Floor(float64(start*24)/catalog.HoursPerMonth + 1e-9))
		amt := rate.Mul(decimal.NewFromInt(int64(n * 24 * inst)))
		opt.Schedule.Add(FlowUpfront, month, month, amt)
		when := "at the start"
		if start > 0 {
			when = fmt.Sprintf("on day %d", start)
		}
		paid = append(paid, fmt.Sprintf("%s for %s %s", p.money(amt), Count(n, "day", "days"), when))
		start += n
	}
	instances := ""
	if inst > 1 {
		instances = fmt.Sprintf(" × %d instances", inst)
		if blocks > 1 {
			instances += fmt.Sprintf(" (%d blocks at once: at most %d instances a block)", blocks, CapacityBlockMaxPerBlock)
		}
	}
	if len(lengths) == 1 {
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("EC2 Capacity Block of %s for %s: %s/h × %d h%s = %s, paid up front when booked; the capacity is yours for the block, never interrupted, and hours left when the job ends are not refunded (%s; lengths %s)",
			Count(days, "day", "days"), what, p.money(rate), days*24, instances, p.money(total), p.cite(c.Source, c.AsOf), "aws-capacity-blocks-docs"))
	} else {
		parts := make([]string, len(lengths))
		for i, n := range lengths {
			parts[i] = fmt.Sprint(n)
		}
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("%d EC2 Capacity Blocks back to back, %s = %d days, for %s: %s/h × %d h%s = %s, each block paid up front when it is booked (%s: the first is the upfront); the capacity is yours for each block, never interrupted, and hours left when the job ends are not refunded (%s; lengths %s)",
			len(lengths), strings.Join(parts, " + "), days, what, p.money(rate), days*24, instances, p.money(total), strings.Join(paid, ", "), p.cite(c.Source, c.AsOf), "aws-capacity-blocks-docs"))
	}
	if idle := float64(days*24) - wall; idle >= 1 {
		last := "the block is"
		if len(lengths) > 1 {
			last = "the last block is"
		}
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("%s the shortest length AWS sells that covers it (days up to %d, then weeks to %d): %s of it left idle", last, CapacityBlockDailyUpTo, CapacityBlockMaxDays, FormatHours(idle)))
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
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("not feasible as one booking: a Capacity Block lasts at most %d days, so %s needs %d blocks, and each after the first can be bought only if capacity is on sale for its dates then", CapacityBlockMaxDays, what, len(lengths)))
	case inst > CapacityBlockMaxAccount:
		opt.Feasible = false
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("AWS allows at most %d instances across an account's Capacity Blocks; %d asked", CapacityBlockMaxAccount, inst))
	}
	return opt, nil
}
