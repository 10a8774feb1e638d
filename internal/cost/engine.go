package cost

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Pricing models of options that are not commitments.
const (
	ModelOnDemand      = "on-demand"
	ModelSpot          = "spot"
	ModelHybridBenefit = "hybrid-benefit" // Azure Hybrid Benefit: Windows at the Linux price with your own licence
)

// Option is one way to buy the capacity, priced over the horizon.
type Option struct {
	Offering *catalog.Offering
	Model    string
	Term     string
	Payment  string
	Class    string

	Known bool // the option itself has a sourced price
	// Unknown says what has no price, making the option unknown; read it
	// with UnknownLines, which adds the line of a scheme sold but unpriced.
	Unknown  []string
	unpriced *catalog.Scheme // a commitment scheme the provider sells with no sourced price
	Excludes []string        // shared parts (egress, storage) without a sourced price, left out of the total
	Feasible bool            // the option can serve the usage (a 7-day job cannot use a 1-year term)
	// QuotedIn is the currency the option's price is sourced in; the
	// totals are converted from it where it is not the engine's ("": no
	// sourced price).
	QuotedIn money.Currency

	Schedule        Schedule
	Total           money.Amount // over the horizon, in Currency
	Upfront         money.Amount // cash needed at the start (month 0)
	NPV             money.Amount
	ListHourly      decimal.NullDecimal // pay-as-you-go: the list price per instance-hour it bills at (spot: the region's cheapest zone)
	PriceZone       string              // spot: the zone of ListHourly, "" where the region has one price
	SpotEstimate    *SpotEstimate       // spot: the simulation behind the price
	EffectiveHourly decimal.NullDecimal // total per instance-hour used
	PerGPUHour      decimal.NullDecimal
	BlockDays       int      // capacity block: the length bought, in days
	Breakeven       *float64 // hours a month above which the commitment beats on-demand
	BreakevenNPV    *float64 // the same, comparing present values at the discount rate
	ImpliedRate     *float64 // yearly interest earned by paying upfront instead of no-upfront
	UnusedTermCost  decimal.NullDecimal
	Currency        money.Currency
	Explanation     []string

	// PriceAge is the age of the oldest price the option bills at, and
	// Stale whether any of them is past the age rule; set by DatePrices.
	PriceAge catalog.Age
	Stale    bool

	ondemandHourly decimal.NullDecimal // the on-demand price it is compared with
	effTerm        decimal.NullDecimal // commitment: effective price per term hour
	commitment     *catalog.Commitment
	spotPrice      catalog.Price // spot: the quote it bills at (source, date)
}

// Engine prices usage on offerings.
type Engine struct {
	Catalog  *catalog.Catalog
	FX       *money.FX
	Currency money.Currency
	Spot     SpotModel
	// SkipSpot leaves the spot option out: advise's first pass, which prices
	// spot only for the candidates that could win.
	SkipSpot bool
}

type pricer struct {
	e      *Engine
	u      *Usage
	rate   float64 // monthly discount rate
	months int
	// usedHours is the instance-hours of the usage over the horizon.
	usedHours float64
}

func (p *pricer) money(d decimal.Decimal) string { return money.Format(d, p.e.Currency) }

func (p *pricer) convert(pr catalog.Price) (decimal.NullDecimal, error) {
	if !pr.Known {
		return decimal.NullDecimal{}, nil
	}
	v, err := p.e.FX.Convert(pr.Value, pr.Currency, p.e.Currency)
	if err != nil {
		return decimal.NullDecimal{}, err
	}
	return decimal.NullDecimal{Decimal: v, Valid: true}, nil
}

// Price prices the usage on one offering under every pricing model, best first.
func (e *Engine) Price(u *Usage, o *catalog.Offering) ([]Option, error) {
	if e.Spot == nil {
		e.Spot = &SimModel{}
	}
	p := &pricer{e: e, u: u, rate: MonthlyRate(u.DiscountRate), months: u.Months(), usedHours: u.TotalHours() * float64(u.Instances)}
	od, err := p.convert(o.OnDemand)
	if err != nil {
		return nil, err
	}
	quote := e.Catalog.SpotQuoteFor(o) // the region's cheapest zone, as offers and spot show it
	spot, err := p.convert(quote.Price)
	if err != nil {
		return nil, err
	}
	extras, extrasKnown, extrasUnknown, extrasNotes, err := p.extras(o)
	if err != nil {
		return nil, err
	}
	// On-demand, hybrid benefit, spot and every scheme the provider sells: sized
	// once, since a catalog-wide query prices hundreds of offerings.
	opts := make([]Option, 0, 3+p.schemeCount(o))
	licensed, licKnown, licNote, byol, byolName := p.license(o, od)
	odOpt := p.payAsYouGo(o, ModelOnDemand, licensed, 1, "on-demand", o.OnDemand)
	if !licKnown {
		odOpt.Known = false
		odOpt.Unknown = append(odOpt.Unknown, licNote)
	} else if licNote != "" {
		odOpt.Explanation = append(odOpt.Explanation, licNote)
	}
	if pr := e.Catalog.Provider(o.Provider); pr != nil && odOpt.Known {
		if pr.Billing != "" {
			odOpt.Explanation = append(odOpt.Explanation, fmt.Sprintf("%s bills on-demand %s (%s)", o.Provider, pr.Billing, pr.BillingSource))
		} else {
			odOpt.Explanation = append(odOpt.Explanation, fmt.Sprintf("%s's billing granularity is not sourced: short or stop-start use may be rounded up", o.Provider))
		}
	}
	odOpt.QuotedIn = o.OnDemand.Currency
	opts = append(opts, odOpt)
	if byol.Valid {
		h := p.payAsYouGo(o, ModelHybridBenefit, byol, 1, byolName+" (your own "+p.u.License+" licence)", o.OnDemand)
		h.QuotedIn = o.OnDemand.Currency
		opts = append(opts, h)
	}
	if spot.Valid && !e.SkipSpot {
		est, err := e.Spot.Estimate(o, SpotInput{Price: quote.Price, Band: e.Catalog.SpotBandChoice(o, u.Spot.Band)}, u)
		if err != nil {
			return nil, err
		}
		label := "spot"
		if est.OnDemandFallback() {
			// The hours are the cost in spot-price hours: spot hours, and the
			// on-demand fallback's hours at their own price.
			label = "spot with on-demand fallback, in spot-price hours (on-demand hours weigh their price),"
		}
		cited := quote.Price
		if quote.Zone != "" {
			cited = catalog.Price{} // the zone's line below cites it
		}
		s := p.payAsYouGo(o, ModelSpot, spot, est.HoursFactor, label, cited)
		s.PriceZone, s.SpotEstimate, s.QuotedIn, s.spotPrice = quote.Zone, &est, quote.Price.Currency, quote.Price
		if quote.Zone != "" {
			where := "the plan runs there"
			if u.Instances > 1 {
				where = fmt.Sprintf("all %d instances run there (a gang's fast network and placement group are within one zone)", u.Instances)
			}
			s.Explanation = append(s.Explanation, fmt.Sprintf("spot price of zone %s, the region's cheapest (%s): %s", quote.Zone, p.cite(quote.Price.Source, quote.Price.AsOf), where))
		}
		s.Explanation = append(s.Explanation, est.Explanation)
		if od.Valid && od.Decimal.IsPositive() {
			s.Explanation = append(s.Explanation, fmt.Sprintf("the spot price is %.0f%% below on-demand; savings can never exceed that", 100*(1-spot.Decimal.Div(od.Decimal).InexactFloat64())))
		}
		opts = append(opts, s)
	}
	priced := map[string]bool{}
	prov := e.Catalog.Provider(o.Provider)
	commits := e.Catalog.CommitmentsFor(o)
	for _, c := range commits {
		price := p.commitment
		if c.Model == catalog.ModelCapacityBlock {
			price = func(o *catalog.Offering, c *catalog.Commitment, od decimal.NullDecimal, _ []*catalog.Commitment) (Option, error) {
				return p.capacityBlock(o, c, od)
			}
		}
		opt, err := price(o, c, od, commits)
		if err != nil {
			return nil, err
		}
		priced[prov.OfferKey(c.Model, c.Term, c.Payment, c.Class)] = true
		opts = append(opts, opt)
	}
	opts = p.appendUnpricedSchemes(opts, o, priced)
	for i := range opts {
		opt := &opts[i]
		opt.Schedule = append(opt.Schedule, extras...)
		if !extrasKnown {
			opt.Excludes = append(opt.Excludes, extrasUnknown...)
		}
		opt.Explanation = append(opt.Explanation, extrasNotes...)
		if n := o.NoRegionNote(); n != "" {
			opt.Explanation = append(opt.Explanation, n)
		}
		if opt.Known && opt.Feasible {
			var odForStudent decimal.NullDecimal
			if opt.Model == ModelOnDemand {
				odForStudent = licensed
			}
			p.applyPromotions(opt, odForStudent)
			p.applyCredits(opt)
		}
		p.finish(opt)
	}
	SortOptions(opts)
	return opts, nil
}

// SortOptions orders options: priced and feasible first, then by total.
func SortOptions(opts []Option) {
	sort.SliceStable(opts, func(i, j int) bool {
		a, b := &opts[i], &opts[j]
		if a.Known != b.Known {
			return a.Known
		}
		if a.Feasible != b.Feasible {
			return a.Feasible
		}
		if a.Known && !a.Total.Value.Equal(b.Total.Value) {
			return a.Total.Value.LessThan(b.Total.Value)
		}
		return false
	})
}

// license returns the hourly on-demand price with the usage's licence, whether
// it is known, a note, and the Azure Hybrid Benefit price where it applies.
// license prices the OS licence: the licensed hourly price, whether it is
// known, a note, and where the provider waives the surcharge for your own
// licence, that price and the programme's name (both from the catalog).
func (p *pricer) license(o *catalog.Offering, od decimal.NullDecimal) (decimal.NullDecimal, bool, string, decimal.NullDecimal, string) {
	if p.u.License == "linux" || !od.Valid {
		return od, true, "", decimal.NullDecimal{}, ""
	}
	l := p.e.Catalog.LicenseFor(o, p.u.License)
	if l == nil {
		return decimal.NullDecimal{}, false, fmt.Sprintf("no sourced %s licence price for %s", p.u.License, o.InstanceType), decimal.NullDecimal{}, ""
	}
	sur, err := p.e.FX.Convert(l.PerHour, l.Currency, p.e.Currency)
	if err != nil {
		return decimal.NullDecimal{}, false, err.Error(), decimal.NullDecimal{}, ""
	}
	win := od.Decimal.Add(sur)
	note := fmt.Sprintf("%s licence adds %s/h (%s, %s)", p.u.License, p.money(sur), l.Notes, l.Source)
	var byol decimal.NullDecimal
	if l.BringYourOwn != "" {
		byol = od // the provider waives the surcharge: the plain price
	}
	return decimal.NullDecimal{Decimal: win, Valid: true}, true, note, byol, l.BringYourOwn
}

// extras prices egress and storage, which every option of the offering shares.
func (p *pricer) extras(o *catalog.Offering) (Schedule, bool, []string, []string, error) {
	var s Schedule
	known := true
	var unknown, notes []string
	table := p.e.Catalog.Egress(o.Provider, o.Region)
	segs := p.calendar()
	var sameZone decimal.NullDecimal
	if table != nil {
		if _, ok := table.Paths[catalog.PathSameZone]; ok {
			sameZone = decimal.NullDecimal{Decimal: decimal.Zero, Valid: true}
		}
	}
	// Each month's traffic of all instances together: the tiers and the free
	// allowance are the account's (EgressMonth).
	type pathBill struct {
		flows    Schedule
		perMonth decimal.Decimal
		freeGB   float64
		why      string // not priced
	}
	bills := map[string]*pathBill{}
	for _, seg := range segs {
		vol := map[string]float64{}
		for path, gb := range p.u.Egress {
			vol[path] = gb * float64(p.u.Instances) * seg.frac
		}
		for _, pc := range EgressMonth(table, vol) {
			b := bills[pc.Path]
			if b == nil {
				b = &pathBill{}
				bills[pc.Path] = b
			}
			if b.why != "" {
				continue
			}
			if !pc.Known {
				b.why = pc.Why
				continue
			}
			c := pc.Cost
			if table.Currency != "" {
				var err error
				if c, err = p.e.FX.Convert(c, table.Currency, p.e.Currency); err != nil {
					return nil, false, nil, nil, err
				}
			}
			b.flows.Add(FlowEgress, seg.from, seg.to, c)
			if seg.frac == 1 || b.perMonth.IsZero() {
				b.perMonth, b.freeGB = c, pc.FreeGB
			}
		}
	}
	for _, path := range catalog.EgressPaths {
		b := bills[path]
		if b == nil {
			continue
		}
		if b.why != "" {
			known = false
			unknown = append(unknown, b.why)
			continue
		}
		s = append(s, b.flows...)
		gb := p.u.Egress[path]
		vol := fmt.Sprintf("%g GB/month", gb)
		if p.u.Instances > 1 {
			vol = fmt.Sprintf("%g GB/month × %d instances = %g GB", gb, p.u.Instances, gb*float64(p.u.Instances))
		}
		line := fmt.Sprintf("egress %s %s: %s/month (%s, %s)", path, vol, p.money(b.perMonth), table.Provider, table.PathSource(path))
		if b.freeGB > 0 {
			line += fmt.Sprintf("; %g %s of it free: %s's %g %s a month, once for the account across its instances and %s", b.freeGB, table.Unit, table.Provider,
				table.Free.Amount, table.Unit, strings.Join(table.Free.Paths, " and "))
		}
		if (path == catalog.PathCrossRegion || path == catalog.PathCrossZone) && sameZone.Valid && b.perMonth.IsPositive() {
			line += fmt.Sprintf("; keeping that traffic in one zone would cost 0 and save %s over %s", p.money(b.flows.Total()), FormatMonths(p.u.HorizonMonths))
		}
		notes = append(notes, line)
	}
	for _, st := range p.u.Storage {
		if !eligible(st.ProviderScope, o.Provider) {
			continue
		}
		price, err := p.e.FX.Convert(st.PricePerGB, st.Currency, p.e.Currency)
		if err != nil {
			return nil, false, nil, nil, err
		}
		per := price.Mul(decimal.NewFromFloat(st.GBMonth))
		for _, seg := range segs {
			s.Add(FlowStorage, seg.from, seg.to, per.Mul(decimal.NewFromFloat(seg.frac)))
		}
		notes = append(notes, fmt.Sprintf("%s storage %g GB-month at %s/GB-month (your price): %s/month", st.Kind, st.GBMonth, p.money(price), p.money(per)))
	}
	return s, known, unknown, notes, nil
}

type calSeg struct {
	from, to int
	frac     float64
}

// calendar splits the horizon into full months and a final partial month.
func (p *pricer) calendar() []calSeg {
	full := int(math.Floor(p.u.HorizonMonths + 1e-9))
	var out []calSeg
	if full > 0 {
		out = append(out, calSeg{1, full, 1})
	}
	if frac := p.u.HorizonMonths - float64(full); frac > 1e-9 {
		out = append(out, calSeg{full + 1, full + 1, frac})
	}
	return out
}

// usageFlows charges hourly price × hours (× factor) month by month, from month `from` on.
func (p *pricer) usageFlows(s *Schedule, price decimal.Decimal, factor float64, from int) float64 {
	var hours float64
	inst := float64(p.u.Instances)
	for _, seg := range p.u.HoursByMonth() {
		a := seg.From
		if a < from {
			a = from
		}
		if a > seg.To {
			continue
		}
		h := seg.Hours * factor * inst
		s.Add(FlowUsage, a, seg.To, price.Mul(decimal.NewFromFloat(h)))
		hours += seg.Hours * float64(seg.To-a+1)
	}
	return hours
}

// payAsYouGo prices pay-as-you-go use at price an hour (in the engine's
// currency), billed hours × factor; its explanation cites from's source and
// date (none for a zero from).
func (p *pricer) payAsYouGo(o *catalog.Offering, model string, price decimal.NullDecimal, factor float64, label string, from catalog.Price) Option {
	opt := Option{Offering: o, Model: model, Feasible: true, Known: price.Valid, Currency: p.e.Currency, ondemandHourly: price, ListHourly: price}
	if !price.Valid {
		opt.Unknown = append(opt.Unknown, fmt.Sprintf("no sourced %s price for %s in %s", label, o.InstanceType, o.Region))
		if model == ModelOnDemand && o.OnDemand.Note != "" { // why: a refresh no longer lists it, say
			opt.Unknown = append(opt.Unknown, o.OnDemand.Note)
		}
		if pr := p.e.Catalog.Provider(o.Provider); pr != nil && pr.PriceNote != "" {
			opt.Unknown = append(opt.Unknown, pr.PriceNote)
		}
		return opt
	}
	if model == ModelOnDemand && len(o.Steps) > 1 && p.u.License == "linux" {
		if err := p.steppedFlows(&opt, o); err == nil {
			return opt
		}
	}
	hours := p.usageFlows(&opt.Schedule, price.Decimal, factor, 1)
	inst := ""
	if p.u.Instances > 1 {
		inst = fmt.Sprintf(" × %d instances", p.u.Instances)
	}
	line := fmt.Sprintf("%s %s/h × %s%s = %s", label, p.money(price.Decimal), FormatHours(hours*factor), inst,
		p.money(price.Decimal.Mul(decimal.NewFromFloat(hours*factor*float64(p.u.Instances)))))
	if from.Source != "" {
		line += " (" + p.cite(from.Source, from.AsOf) + ")"
	}
	opt.Explanation = append(opt.Explanation, line)
	return opt
}

// steppedFlows prices on-demand use by cumulative hours of use, step by step
// (Tencent Cloud's 阶梯 pay-as-you-go prices), month by month.
func (p *pricer) steppedFlows(opt *Option, o *catalog.Offering) error {
	steps := make([]decimal.Decimal, len(o.Steps))
	for i, st := range o.Steps {
		v, err := p.e.FX.Convert(st.Amount, o.OnDemand.Currency, p.e.Currency)
		if err != nil {
			return err
		}
		steps[i] = v
	}
	inst := decimal.NewFromInt(int64(p.u.Instances))
	cum := 0.0
	total := decimal.Zero
	for _, seg := range p.u.HoursByMonth() {
		for m := seg.From; m <= seg.To; m++ {
			c, end := decimal.Zero, cum+seg.Hours
			for i, st := range o.Steps {
				hi := math.Inf(1)
				if i+1 < len(o.Steps) {
					hi = o.Steps[i+1].FromHours
				}
				lo := math.Max(cum, st.FromHours)
				if x := math.Min(end, hi) - lo; x > 0 {
					c = c.Add(steps[i].Mul(decimal.NewFromFloat(x)))
				}
			}
			cum = end
			opt.Schedule.Add(FlowUsage, m, m, c.Mul(inst))
			total = total.Add(c.Mul(inst))
		}
	}
	var parts []string
	for i, st := range o.Steps {
		parts = append(parts, fmt.Sprintf("%s/h from %g h", p.money(steps[i]), st.FromHours))
	}
	opt.Explanation = append(opt.Explanation, fmt.Sprintf("on-demand stepped by hours of use (%s): %s over %s = %s (%s)",
		strings.Join(parts, ", "), FormatHours(cum), map[bool]string{true: fmt.Sprintf("%d instances", p.u.Instances), false: "the horizon"}[p.u.Instances > 1], p.money(total), p.cite(o.OnDemand.Source, o.OnDemand.AsOf)))
	return nil
}

// commitment prices one commitment offer over the horizon.
func (p *pricer) commitment(o *catalog.Offering, c *catalog.Commitment, od decimal.NullDecimal, siblings []*catalog.Commitment) (Option, error) {
	opt := Option{Offering: o, Model: c.Model, Term: c.Term, Payment: c.Payment, Class: c.Class, Known: true, Currency: p.e.Currency, QuotedIn: c.Currency, commitment: c, ondemandHourly: od}
	upfront, err := p.e.FX.Convert(c.Upfront, c.Currency, p.e.Currency)
	if err != nil {
		return opt, err
	}
	recurring, err := p.e.FX.Convert(monthlyRecurring(c), c.Currency, p.e.Currency)
	if err != nil {
		return opt, err
	}
	termM := c.TermMonths()
	inst := decimal.NewFromInt(int64(p.u.Instances))
	// Month m's recurring fee is paid at its start (index m-1) where it is
	// paid ahead (a subscription, AWS RI fees), else at its end (index m).
	ahead := p.e.Catalog.Provider(c.Provider).PaidAhead(c.Model)
	adv := 0
	if ahead {
		adv = 1
	}
	termTotal := upfront.Add(recurring.Mul(decimal.NewFromInt(int64(termM))))
	eff := termTotal.Div(decimal.NewFromInt(int64(termM * catalog.HoursPerMonth)))
	opt.effTerm = decimal.NullDecimal{Decimal: eff, Valid: true}
	name := fmt.Sprintf("%s %s %s", c.Model, c.Term, c.Payment)
	if c.Class != "" {
		name += " " + c.Class
	}
	months := Count(termM, "month", "months")
	fees := fmt.Sprintf("%s upfront + %s a month for %s", p.money(upfront), p.money(recurring), months)
	if ahead && recurring.IsPositive() {
		paid := "each paid at the start of its month"
		if termM == 1 {
			paid = "paid at its start"
		}
		switch {
		case upfront.IsPositive():
			fees = fmt.Sprintf("%s upfront + %s a month for %s, %s", p.money(upfront), p.money(recurring), months, paid)
		case termM == 1:
			fees = fmt.Sprintf("%s a month for 1 month, paid at its start (upfront)", p.money(recurring))
		default:
			fees = fmt.Sprintf("%s a month for %s, %s (the first upfront)", p.money(recurring), months, paid)
		}
	}
	opt.Explanation = append(opt.Explanation, fmt.Sprintf("%s: %s = %s/h over every term hour, used or not (%s)",
		name, fees, p.money(eff), p.cite(c.Source, c.AsOf)))
	if c.Note != "" {
		opt.Explanation = append(opt.Explanation, c.Note)
	}
	if od.Valid && od.Decimal.IsPositive() {
		d := 1 - eff.Div(od.Decimal).InexactFloat64()
		opt.Explanation[0] += fmt.Sprintf("; %.1f%% below on-demand %s/h", 100*d, p.money(od.Decimal))
		if s := o.OnDemand; s.Source != "" && s.Source != c.Source { // one list cited above covers both prices only when it is the same
			opt.Explanation[0] += fmt.Sprintf(" (%s: another price list than this %s's, so the comparison and its break-even mix two lists)", p.cite(s.Source, s.AsOf), c.Model)
		}
		be := catalog.HoursPerMonth * eff.Div(od.Decimal).InexactFloat64()
		a := annuity(p.rate, 1, termM)
		pv := upfront.Add(recurring.Mul(annuity(p.rate, 1-adv, termM-adv)))
		beNPV := pv.Div(od.Decimal.Mul(a)).InexactFloat64()
		opt.Breakeven, opt.BreakevenNPV = &be, &beNPV
	}
	if rate, ok := impliedRate(c, siblings, adv); ok {
		opt.ImpliedRate = &rate
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("paying %s instead of no-upfront earns an implied %.1f%%/yr: worth it if your cost of capital (discount rate %s%%) is lower",
			c.Payment, rate*100, p.u.DiscountRate.Mul(decimal.NewFromInt(100)).String()))
	}
	what := fmt.Sprintf("your %s of use", FormatMonths(p.u.HorizonMonths))
	if p.u.DurationHours > 0 {
		what = fmt.Sprintf("a %s job", FormatHours(p.u.DurationHours))
	}
	k := p.u.Terms(termM)
	if k == 0 {
		opt.Feasible = false
		whole := termTotal.Mul(inst)
		opt.UnusedTermCost = decimal.NullDecimal{Decimal: whole, Valid: true}
		opt.Schedule.addTerm(0, termM, upfront.Mul(inst), recurring.Mul(inst), ahead)
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("%s cannot use a %s term; buying it anyway costs %s for the whole term", what, c.Term, p.money(whole)))
		return opt, nil
	}
	opt.Feasible = true
	for j := 0; j < k; j++ {
		opt.Schedule.addTerm(j*termM, termM, upfront.Mul(inst), recurring.Mul(inst), ahead)
	}
	covered := k * termM
	plan := p.u.HoursPerMonth // hours used in each month of the terms
	switch idle := float64(covered) - p.u.HorizonMonths; {
	case idle < -1e-9:
		if !od.Valid {
			opt.Known = false
			opt.Unknown = append(opt.Unknown, "no on-demand price for the months after the term")
		} else {
			h := p.usageFlows(&opt.Schedule, od.Decimal, 1, covered+1)
			opt.Explanation = append(opt.Explanation, fmt.Sprintf("the %s after %s run on-demand: %s", FormatMonths(-idle), Count(k, "term", "terms"), FormatHours(h)))
		}
	case idle > 1e-9:
		// Shorter than the term but within its last month: the term is
		// bought whole (Usage.Terms), the rest of it idle.
		plan = p.u.TotalHours() / float64(covered)
		opt.Explanation = append(opt.Explanation, fmt.Sprintf("%s takes %s: the %s term is bought whole for %s, the last %s of it (%s) paid for and idle",
			what, FormatMonths(p.u.HorizonMonths), c.Term, p.money(termTotal.Mul(inst).Mul(decimal.NewFromInt(int64(k)))), FormatMonths(idle), FormatHours(idle*catalog.HoursPerMonth)))
	}
	if opt.Breakeven != nil {
		verdict := "so the commitment wins"
		if plan < *opt.Breakeven {
			verdict = "so on-demand is cheaper"
		}
		if *opt.Breakeven > catalog.HoursPerMonth {
			opt.Explanation = append(opt.Explanation, fmt.Sprintf("it never beats on-demand: break-even %.0f h/month is more than a month has", *opt.Breakeven))
		} else {
			opt.Explanation = append(opt.Explanation, fmt.Sprintf("%s %s wins above %.0f h/month (%.0f h at the %s%% discount rate); you plan %.0f, %s",
				c.Term, c.Payment, *opt.Breakeven, *opt.BreakevenNPV, p.u.DiscountRate.Mul(decimal.NewFromInt(100)).String(), plan, verdict))
		}
	}
	return opt, nil
}

// monthlyRecurring is a commitment's recurring charge per month.
func monthlyRecurring(c *catalog.Commitment) decimal.Decimal {
	return c.Hourly.Mul(decimal.NewFromInt(catalog.HoursPerMonth)).Add(c.Monthly)
}

// impliedRate solves U = Σ_{m=1..n} (R_none − R_c)·v^(m−adv) for the yearly
// rate earned by paying c's upfront fee instead of the no-upfront sibling's
// monthly fees (adv = 1 where fees are paid at the start of each month).
func impliedRate(c *catalog.Commitment, siblings []*catalog.Commitment, adv int) (float64, bool) {
	if !c.Upfront.IsPositive() {
		return 0, false
	}
	for _, s := range siblings {
		if s.Model != c.Model || s.Term != c.Term || s.Class != c.Class || s.Payment != catalog.PayNone || s.Currency != c.Currency {
			continue
		}
		diff := monthlyRecurring(s).Sub(monthlyRecurring(c)).InexactFloat64()
		u := c.Upfront.InexactFloat64()
		n := c.TermMonths()
		if diff <= 0 {
			return 0, false
		}
		pv := func(i float64) float64 {
			if i == 0 {
				return diff * float64(n)
			}
			return diff * (1 - math.Pow(1+i, -float64(n))) / i * math.Pow(1+i, float64(adv))
		}
		lo, hi := -0.5, 1.0
		if pv(lo) < u || pv(hi) > u {
			return 0, false
		}
		for k := 0; k < 200; k++ {
			mid := (lo + hi) / 2
			if pv(mid) > u {
				lo = mid
			} else {
				hi = mid
			}
		}
		i := (lo + hi) / 2
		return math.Pow(1+i, 12) - 1, true
	}
	return 0, false
}

// schemeCount is the number of commitment options (scheme × term × payment ×
// class) the offering's provider sells.
func (p *pricer) schemeCount(o *catalog.Offering) int {
	pr := p.e.Catalog.Provider(o.Provider)
	if pr == nil {
		return 0
	}
	n := 0
	for _, s := range pr.Schemes {
		n += len(s.Terms) * len(s.Payments) * max(1, len(s.Classes))
	}
	return n
}

// appendUnpricedSchemes appends the commitment schemes the provider sells
// that have no sourced price here.
func (p *pricer) appendUnpricedSchemes(out []Option, o *catalog.Offering, priced map[string]bool) []Option {
	pr := p.e.Catalog.Provider(o.Provider)
	if pr == nil {
		return out
	}
	for si, s := range pr.Schemes {
		classes := s.Classes
		if len(classes) == 0 {
			classes = []string{""}
		}
		for _, term := range s.Terms {
			for _, pay := range s.Payments {
				for _, cl := range classes {
					// One entry a product: a one-month term paid ahead is the
					// same whether called monthly or all-upfront (OfferKey).
					key := pr.OfferKey(s.Model, term, pay, cl)
					if priced[key] {
						continue
					}
					priced[key] = true
					opt := Option{Offering: o, Model: s.Model, Term: term, Payment: pay, Class: cl, Currency: p.e.Currency,
						Feasible: p.u.Terms(catalog.TermMonths(term)) > 0}
					// Its words are built only when read (UnknownLines): this runs
					// for every scheme of every offering of a catalog-wide query.
					opt.unpriced = &pr.Schemes[si]
					out = append(out, opt)
				}
			}
		}
	}
	return out
}

// UnknownLines says what has no price, making the option unknown.
func (o *Option) UnknownLines() []string {
	if o.unpriced == nil {
		return o.Unknown
	}
	line := o.Offering.Provider + " sells " + o.unpriced.Name + " (" + o.Term + " " + o.Payment + ") but no price is sourced for " +
		o.Offering.InstanceType + "; add it to a price file (commitments:)"
	return append(slices.Clip(o.Unknown), line)
}

// finish computes totals and per-hour figures from the schedule.
func (p *pricer) finish(opt *Option) {
	if !opt.Known {
		opt.Schedule = nil
		return
	}
	c := p.e.Currency
	opt.Total = money.New(opt.Schedule.Total(), c)
	opt.Upfront = money.New(opt.Schedule.AtStart(), c)
	opt.NPV = money.New(opt.Schedule.NPV(p.rate), c)
	used := p.usedHours
	if used > 0 && opt.Feasible {
		opt.EffectiveHourly = decimal.NullDecimal{Decimal: opt.Total.Value.Div(decimal.NewFromFloat(used)), Valid: true}
		if g := opt.Offering.GPUCount; g > 0 {
			opt.PerGPUHour = decimal.NullDecimal{Decimal: opt.EffectiveHourly.Decimal.Div(decimal.NewFromFloat(g)), Valid: true}
		}
	}
}

// OnDemandHourly is the on-demand price (with licence) the option is compared with.
func (o *Option) OnDemandHourly() decimal.NullDecimal { return o.ondemandHourly }

// Commitment is the commitment price a reserved, savings-plan or
// subscription option is priced from (with its source and date); nil for
// pay-as-you-go options.
func (o *Option) Commitment() *catalog.Commitment { return o.commitment }

// EffectiveTermHourly is a commitment's price per term hour, used or not.
func (o *Option) EffectiveTermHourly() decimal.NullDecimal { return o.effTerm }
