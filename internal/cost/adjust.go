package cost

import (
	"fmt"
	"math"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// chargeKinds are the monthly charges credits and vouchers pay (not upfront fees).
var chargeKinds = map[string]bool{FlowCommitment: true, FlowUsage: true, FlowEgress: true, FlowStorage: true, FlowPromotion: true, FlowCredit: true}

func eligible(providers []string, p string) bool {
	if len(providers) == 0 {
		return true
	}
	for _, x := range providers {
		if strings.EqualFold(x, p) {
			return true
		}
	}
	return false
}

// applyBalance pays monthly charges from a balance until it is spent or the
// expiry month passes; it returns what was used.
func applyBalance(s *Schedule, n int, amount decimal.Decimal, expiresMonths float64, kind string) decimal.Decimal {
	last := n
	if expiresMonths > 0 {
		last = int(math.Floor(expiresMonths + 1e-9))
		if last > n {
			last = n
		}
	}
	remaining := amount
	for _, iv := range s.intervals(n, chargeKinds, last+1) {
		if iv.from > last || !remaining.IsPositive() {
			break
		}
		if !iv.charge.IsPositive() {
			continue
		}
		months := iv.to - iv.from + 1
		full := remaining.Div(iv.charge).IntPart()
		if full > int64(months) {
			full = int64(months)
		}
		if full > 0 {
			s.Add(kind, iv.from, iv.from+int(full)-1, iv.charge.Neg())
			remaining = remaining.Sub(iv.charge.Mul(decimal.NewFromInt(full)))
		}
		if int(full) < months && remaining.IsPositive() {
			s.Add(kind, iv.from+int(full), iv.from+int(full), remaining.Neg())
			remaining = decimal.Zero
		}
	}
	return amount.Sub(remaining)
}

// applyPromotions applies the enabled promotions to an option's schedule.
// usage are the option's usage flows; onDemand is its hourly price when the
// option is on-demand (student prices replace it), else invalid.
func (p *pricer) applyPromotions(opt *Option, onDemand decimal.NullDecimal) {
	for _, pr := range p.u.Promotions {
		if !eligible(pr.Providers, opt.Offering.Provider) {
			continue
		}
		switch pr.Kind {
		case PromoFirstMonth:
			m1 := decimal.Zero
			for _, f := range opt.Schedule {
				if f.Kind == FlowUsage && f.From <= 1 && 1 <= f.To {
					m1 = m1.Add(f.PerMonth)
				}
			}
			off := m1.Mul(pr.Percent)
			opt.Schedule.Add(FlowPromotion, 1, 1, off.Neg())
			if off.IsPositive() {
				opt.Explanation = append(opt.Explanation, fmt.Sprintf("first-month discount %s%% takes %s off month 1's usage", pr.Percent.Mul(decimal.NewFromInt(100)).String(), p.money(off)))
			}
		case PromoStudent:
			if !onDemand.Valid || (pr.GPU != "" && !strings.EqualFold(pr.GPU, opt.Offering.GPU.Family) && !strings.EqualFold(pr.GPU, opt.Offering.GPU.Name)) {
				continue
			}
			sp, err := p.e.FX.Convert(pr.PricePerHour, pr.Currency, p.e.Currency)
			if err != nil || !sp.LessThan(onDemand.Decimal) {
				continue
			}
			saving := onDemand.Decimal.Sub(sp)
			var hours float64
			for _, seg := range p.u.HoursByMonth() {
				for m := seg.From; m <= seg.To; m++ {
					if pr.Months > 0 && float64(m) > math.Ceil(pr.Months-1e-9) {
						break
					}
					capped := math.Min(seg.Hours, pr.DailyHours*seg.Calendar*catalog.HoursPerMonth/24)
					if capped <= 0 {
						continue
					}
					hours += capped
					opt.Schedule.Add(FlowPromotion, m, m, saving.Mul(decimal.NewFromFloat(capped)).Mul(decimal.NewFromInt(int64(p.u.Instances))).Neg())
				}
			}
			if hours > 0 {
				opt.Explanation = append(opt.Explanation, fmt.Sprintf("student price %s/h for up to %g h a day covers %s of the hours (saves %s)",
					p.money(sp), pr.DailyHours, FormatHours(hours), p.money(saving.Mul(decimal.NewFromFloat(hours*float64(p.u.Instances))))))
			}
		}
	}
}

// applyCredits pays monthly charges from credits and vouchers of the option's provider.
func (p *pricer) applyCredits(opt *Option) {
	n := p.u.Months()
	type balance struct {
		name    string
		amount  decimal.Decimal
		expires float64
		cur     string
		kind    string // FlowCredit, or FlowPromotion for a voucher
	}
	var bs []balance
	for _, c := range p.u.Credits {
		if eligible(c.Providers, opt.Offering.Provider) {
			if a, err := p.e.FX.Convert(c.Amount, c.Currency, p.e.Currency); err == nil {
				bs = append(bs, balance{c.Name, a, c.ExpiresMonths, string(c.Currency), FlowCredit})
			}
		}
	}
	for _, pr := range p.u.Promotions {
		if pr.Kind == PromoVoucher && eligible(pr.Providers, opt.Offering.Provider) {
			if a, err := p.e.FX.Convert(pr.Amount, pr.Currency, p.e.Currency); err == nil {
				bs = append(bs, balance{"voucher", a, 0, string(pr.Currency), FlowPromotion})
			}
		}
	}
	for _, b := range bs {
		used := applyBalance(&opt.Schedule, n, b.amount, b.expires, b.kind)
		lost := b.amount.Sub(used)
		exp := "no expiry"
		if b.expires > 0 {
			exp = "expires after " + FormatMonths(b.expires)
		}
		line := fmt.Sprintf("%s of %s (%s) pays %s of monthly charges", b.name, p.money(b.amount), exp, p.money(used))
		if lost.IsPositive() {
			line += fmt.Sprintf("; %s goes unused", p.money(lost))
		}
		opt.Explanation = append(opt.Explanation, line+"; credits never pay upfront fees")
	}
}
