package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/yamlfields"
)

type costFlags struct {
	catalogFlags
	selectFlags
	offering      string
	usageFile     string
	duration      string
	hoursPerMonth float64
	horizon       string
	discountRate  string
	instances     int
	egress        []string
	credits       []string
	license       string
	spotBand      string
	checkpoint    string
	restart       string
	cashflow      bool
	chart         string
	explain       bool
	unpriced      bool
	limit         int
}

const costLong = `Price the whole bill of a workload on every matching offering under every
pricing model the provider sells: on-demand, spot (with an interruption
overhead), and commitments (reservations, savings plans, committed-use
discounts, subscriptions) as cash-flow schedules with their real payment
schemes. Adds egress by path and tier, storage, credits and promotions.

For each option: the total over the horizon, upfront cash, the effective price
per hour and per GPU-hour, the net present value at --discount-rate, the
break-even hours a month above which a commitment beats on-demand (h* = 730·E/P,
and its present-value variant), the implied interest rate of paying upfront,
and one-line explanations that carry the numbers. Options that cannot serve the
usage (a 7-day job on a 1-year term) are shown as infeasible with the cost of
buying them anyway. Schemes a provider sells without a sourced price are listed
as unknown (--unpriced shows them in the table).

A usage file (--usage FILE, YAML) holds everything the flags do and more
(storage, promotions); flags override it:

  gpu: A100:4                 # or offering: aws/p4d.24xlarge[/us-east-1]
  instances: 1
  duration: 7d                # a job run back to back; or hours_per_month: 420
  horizon: 3y                 # planning window (default: the job, or 1y)
  discount_rate: 8%           # yearly, for NPV
  currency: USD
  license: linux              # or windows (Azure Hybrid Benefit is priced too)
  egress: {same-zone: 0, cross-zone: 500, cross-region: 2000, internet: 1000, internet-china: 0}   # GB/month
  storage:
    - {kind: object, gb_month: 5000, price_per_gb_month: 0.023, currency: USD, providers: [aws]}
  credits:
    - {name: startup credits, amount: 1000, currency: USD, expires: 6mo, providers: [aws]}
  promotions:
    - {kind: first-month-discount, percent: 90%, providers: [tencent]}
    - {kind: student-price, price_per_hour: 0.5, currency: CNY, daily_hours: 4, providers: [alibaba]}
    - {kind: voucher, amount: 100, currency: USD, providers: [aws]}
  spot: {band: 10-15%, checkpoint: 1h, restart: 10m}`

func newCostCmd(e *env) *cobra.Command {
	var f costFlags
	cmd := &cobra.Command{
		Use:   "cost",
		Short: "Price the whole bill: on-demand, spot, commitments, egress, credits, break-even",
		Long:  costLong,
		Example: `  gpuscout cost --gpu A100:4 --for 7d
  gpuscout cost --offering aws/p4d.24xlarge --hours-per-month 420 --horizon 3y --discount-rate 8%
  gpuscout cost --offering gcp/a2-highgpu-8g/us-central1 --hours-per-month 420 --horizon 3y --chart cost.svg
  gpuscout cost --usage usage.yaml -o markdown
  gpuscout cost --usage usage.yaml --cashflow -o csv
  gpuscout cost breakeven --offering gcp/a2-highgpu-8g --term 1y`,
		Args: noArgs,
	}
	getFormat := outputFlag(cmd)
	f.catalogFlags.register(cmd)
	f.selectFlags.register(cmd)
	f.registerUsage(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&f.cashflow, "cashflow", false, "print each option's month-by-month cash flows instead of the summary")
	fl.StringVar(&f.chart, "chart", "", "write the cumulative cash flow of the best options as an SVG chart to this file")
	fl.BoolVar(&f.explain, "explain", false, "print the explanation of every option, not only the best few")
	fl.BoolVar(&f.unpriced, "unpriced", false, "list schemes without a sourced price in the table too (JSON always has them)")
	fl.IntVar(&f.limit, "limit", 0, "show at most this many priced options (0: all)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		run, opts, err := f.priceAll()
		if err != nil {
			return err
		}
		if f.chart != "" {
			if err := writeCostChart(f.chart, opts, run); err != nil {
				return err
			}
		}
		if f.cashflow {
			return e.write(format, cashflowTable(opts, run), costJSON(opts, run, true))
		}
		return e.write(format, f.costTable(opts, run), costJSON(opts, run, false))
	}
	cmd.AddCommand(newBreakevenCmd(e))
	return cmd
}

func (f *costFlags) registerUsage(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.offering, "offering", "", "one instance type: provider/instance[/region], e.g. aws/p4d.24xlarge")
	fl.StringVar(&f.usageFile, "usage", "", "usage file (YAML); flags override its values")
	fl.StringVar(&f.duration, "for", "", "a job's duration run back to back: 90m, 168h, 7d, 3mo, 1y")
	fl.Float64Var(&f.hoursPerMonth, "hours-per-month", 0, "steady use per instance, hours a month (at most 730)")
	fl.StringVar(&f.horizon, "horizon", "", "planning window: 1y, 3y, 18mo (default: the job's duration, else 1y)")
	fl.StringVar(&f.discountRate, "discount-rate", "", "yearly discount rate for NPV and break-even, e.g. 8% (default 0)")
	fl.IntVar(&f.instances, "instances", 0, "number of instances (default 1)")
	fl.StringArrayVar(&f.egress, "egress", nil, "egress GB a month by path, PATH=GB (same-zone, cross-zone, cross-region, internet, internet-china); repeatable")
	fl.StringArrayVar(&f.credits, "credit", nil, "a credit, AMOUNT CUR[@provider,...][:EXPIRES], e.g. 1000USD@aws:6mo; repeatable")
	fl.StringVar(&f.license, "license", "", "OS licence: linux (default) or windows")
	fl.StringVar(&f.spotBand, "spot-band", "", "spot interruptions a month, e.g. 10-15% (default: the AWS Spot Advisor's, else 5-10%)")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "spot: checkpoint interval (default 1h)")
	fl.StringVar(&f.restart, "restart", "", "spot: restart time after an interruption (default 10m)")
}

// costRun is a prepared pricing run.
type costRun struct {
	l     *loadedCatalog
	usage *cost.Usage
	query catalog.Query
	spec  *cost.Spec
}

func (f *costFlags) prepare() (*costRun, error) {
	run := &costRun{usage: &cost.Usage{}}
	if f.usageFile != "" {
		spec, err := cost.LoadSpec(f.usageFile)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, usagef("--usage %s: no such file", f.usageFile)
			}
			return nil, asUsage(err)
		}
		run.spec = spec
		run.usage = &spec.Usage
		if f.gpu == "" && f.offering == "" {
			f.gpu, f.offering = spec.GPU, spec.Offering
		}
		if f.currency == "USD" && spec.Currency != "" {
			f.currency = string(spec.Currency)
		}
	}
	l, err := f.load()
	if err != nil {
		return nil, err
	}
	run.l = l
	u := run.usage
	if f.duration != "" {
		if u.DurationHours, err = cost.ParseDuration(f.duration); err != nil {
			return nil, usagef("--for: %v", err)
		}
	}
	if f.hoursPerMonth != 0 {
		u.HoursPerMonth = f.hoursPerMonth
	}
	if f.horizon != "" {
		h, err := cost.ParseDuration(f.horizon)
		if err != nil {
			return nil, usagef("--horizon: %v", err)
		}
		u.HorizonMonths = h / cost.HoursPerMonth
	}
	if f.discountRate != "" {
		if u.DiscountRate, err = yamlfields.ParseFraction(f.discountRate); err != nil {
			return nil, usagef("--discount-rate %q: want a yearly rate such as 8%% or 0.08", f.discountRate)
		}
	}
	if f.instances != 0 {
		u.Instances = f.instances
	}
	if f.license != "" {
		u.License = f.license
	}
	for _, s := range f.egress {
		path, gb, ok := strings.Cut(s, "=")
		v, err := strconv.ParseFloat(strings.TrimSpace(gb), 64)
		if !ok || err != nil || !(v >= 0) || math.IsInf(v, 0) || !validPath(path) {
			return nil, usagef("--egress %q: want PATH=GB with PATH one of %s and GB >= 0", s, strings.Join(catalog.EgressPaths, ", "))
		}
		if u.Egress == nil {
			u.Egress = map[string]float64{}
		}
		u.Egress[path] = v
	}
	for _, s := range f.credits {
		c, err := parseCreditFlag(s)
		if err != nil {
			return nil, err
		}
		u.Credits = append(u.Credits, c)
	}
	if f.spotBand != "" {
		u.Spot.Band = f.spotBand
	}
	for flag, dst := range map[string]*float64{"checkpoint": &u.Spot.CheckpointHours, "restart": &u.Spot.RestartHours} {
		v := map[string]string{"checkpoint": f.checkpoint, "restart": f.restart}[flag]
		if v != "" {
			if *dst, err = cost.ParseDuration(v); err != nil {
				return nil, usagef("--%s: %v", flag, err)
			}
		}
	}
	if err := u.Validate(); err != nil {
		return nil, asUsage(err)
	}
	if err := run.checkCurrencies(); err != nil {
		return nil, err
	}
	run.query = catalog.Query{FX: l.fx, Currency: l.currency}
	if err := f.selectFlags.apply(&run.query, l); err != nil {
		return nil, err
	}
	if f.offering != "" {
		parts := strings.Split(f.offering, "/")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
			return nil, usagef("--offering %q: want provider/instance[/region], e.g. aws/p4d.24xlarge", f.offering)
		}
		p := l.cat.Provider(parts[0])
		if p == nil {
			return nil, usagef("--offering %q: unknown provider %q; known: %s", f.offering, parts[0], strings.Join(l.cat.ProviderNames(), ", "))
		}
		run.query.Providers = []string{p.Name}
		run.query.InstanceTypes = []string{parts[1]}
		if len(parts) == 3 {
			rs := l.cat.ResolveRegion(parts[2])
			if len(rs) == 0 {
				return nil, usagef("--offering %q: unknown region %q", f.offering, parts[2])
			}
			run.query.Regions = rs
		}
		if rows, _ := l.cat.Query(catalog.Query{Providers: []string{p.Name}, InstanceTypes: []string{parts[1]}, AllRegions: true}); len(rows) == 0 {
			var types []string
			for i := range l.cat.Offerings {
				if l.cat.Offerings[i].Provider == p.Name {
					types = append(types, l.cat.Offerings[i].InstanceType)
				}
			}
			return nil, usagef("--offering %q: %s has no instance type %q; closest: %s", f.offering, p.Name, parts[1], strings.Join(closest(parts[1], dedupe(types), 5), ", "))
		}
	} else if f.gpu == "" {
		return nil, usagef("say what to price: --gpu NAME[:COUNT] or --offering provider/instance (or gpu:/offering: in --usage)")
	}
	return run, nil
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func validPath(p string) bool {
	for _, x := range catalog.EgressPaths {
		if x == p {
			return true
		}
	}
	return false
}

// parseCreditFlag reads AMOUNT CUR[@providers][:EXPIRES], e.g. "1000USD@aws:6mo".
func parseCreditFlag(s string) (cost.Credit, error) {
	c := cost.Credit{Name: "credit"}
	rest := strings.TrimSpace(s)
	if i := strings.LastIndex(rest, ":"); i >= 0 {
		h, err := cost.ParseDuration(rest[i+1:])
		if err != nil {
			return c, usagef("--credit %q: expiry: %v", s, err)
		}
		c.ExpiresMonths = h / cost.HoursPerMonth
		rest = rest[:i]
	}
	if a, provs, ok := strings.Cut(rest, "@"); ok {
		rest = a
		for _, p := range strings.Split(provs, ",") {
			c.Providers = append(c.Providers, strings.TrimSpace(p))
		}
	}
	i := strings.IndexFunc(rest, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return c, usagef("--credit %q: want AMOUNT CUR[@provider,...][:EXPIRES], e.g. 1000USD@aws:6mo", s)
	}
	amount, err := decimal.NewFromString(rest[:i])
	if err != nil || !amount.IsPositive() {
		return c, usagef("--credit %q: amount %q must be a positive number", s, rest[:i])
	}
	cur, err := money.ParseCurrency(rest[i:])
	if err != nil {
		return c, usagef("--credit %q: %v", s, err)
	}
	c.Amount, c.Currency = amount, cur
	return c, nil
}

// checkCurrencies makes sure every amount in the usage can be converted.
func (run *costRun) checkCurrencies() error {
	check := func(what string, c money.Currency) error {
		if c == "" || run.l.fx.Known(c) {
			return nil
		}
		where := ""
		if run.spec != nil {
			for k, line := range run.spec.CurrencyLines {
				if strings.HasSuffix(k, "@"+string(c)) {
					where = fmt.Sprintf("%s:%d: ", run.spec.Path, line)
				}
			}
		}
		return usagef("%s%s currency %s has no exchange rate (known: %s); add one with --fx %s=USD_PER_UNIT", where, what, c, strings.Join(run.l.fx.Currencies(), ", "), c)
	}
	for _, c := range run.usage.Credits {
		if err := check("credit", c.Currency); err != nil {
			return err
		}
	}
	for _, p := range run.usage.Promotions {
		if err := check("promotion", p.Currency); err != nil {
			return err
		}
	}
	for _, s := range run.usage.Storage {
		if err := check("storage", s.Currency); err != nil {
			return err
		}
	}
	for _, p := range run.usage.Credits {
		for _, name := range p.Providers {
			if run.l.cat.Provider(name) == nil {
				return usagef("credit for unknown provider %q; known: %s", name, strings.Join(run.l.cat.ProviderNames(), ", "))
			}
		}
	}
	return nil
}

// priceAll prepares the run from the flags and prices every selected offering.
func (f *costFlags) priceAll() (*costRun, []cost.Option, error) {
	run, err := f.prepare()
	if err != nil {
		return nil, nil, err
	}
	opts, err := run.price()
	return run, opts, err
}

func (run *costRun) price() ([]cost.Option, error) {
	rows, err := run.l.cat.Query(run.query)
	if err != nil {
		return nil, asUsage(err)
	}
	eng := &cost.Engine{Catalog: run.l.cat, FX: run.l.fx, Currency: run.l.currency}
	var all []cost.Option
	for _, r := range rows {
		opts, err := eng.Price(run.usage, r.Offering)
		if err != nil {
			return nil, err
		}
		all = append(all, opts...)
	}
	cost.SortOptions(all)
	return all, nil
}

func optionLabel(o *cost.Option) string {
	s := o.Offering.Provider + "/" + o.Offering.InstanceType + "/" + o.Offering.Region + " " + o.Model
	for _, x := range []string{o.Term, o.Payment, o.Class} {
		if x != "" {
			s += " " + x
		}
	}
	return s
}

func fmtDec(d decimal.Decimal) string {
	return cost.FormatMoney(d, "")[:len(cost.FormatMoney(d, ""))-1]
}

func fmtNull(d decimal.NullDecimal) string {
	if !d.Valid {
		return "-"
	}
	return fmtMoney(d)
}

func fmtHours(p *float64) string {
	if p == nil {
		return "-"
	}
	if *p > cost.HoursPerMonth {
		return "never"
	}
	return strconv.FormatFloat(math.Round(*p), 'f', 0, 64)
}

func (f *costFlags) costTable(opts []cost.Option, run *costRun) *render.Table {
	cur := string(run.l.currency)
	t := &render.Table{Columns: []render.Column{
		{Header: "#", Right: true}, {Header: "PROVIDER"}, {Header: "INSTANCE"}, {Header: "REGION"}, {Header: "MODEL"}, {Header: "TERM"}, {Header: "PAYMENT"},
		{Header: "TOTAL " + cur, Right: true}, {Header: "UPFRONT", Right: true}, {Header: cur + "/h", Right: true}, {Header: cur + "/GPU-h", Right: true},
		{Header: "NPV", Right: true}, {Header: "BREAK-EVEN h/mo", Right: true}, {Header: "FEASIBLE"},
	}}
	unpriced := map[string]map[string]bool{}
	excluded := false
	rank := 0
	var shown []*cost.Option
	for i := range opts {
		o := &opts[i]
		if !o.Known && !f.unpriced {
			if unpriced[o.Offering.Provider] == nil {
				unpriced[o.Offering.Provider] = map[string]bool{}
			}
			what := o.Model
			if o.Term != "" {
				what += " " + o.Term
			}
			unpriced[o.Offering.Provider][what] = true
			continue
		}
		rank++
		if f.limit > 0 && rank > f.limit {
			continue
		}
		shown = append(shown, o)
		total, up, npv := "unknown", "-", "-"
		if o.Known {
			total, up, npv = fmtDec(o.Total), fmtDec(o.Upfront), fmtDec(o.NPV)
			if len(o.Excludes) > 0 {
				total += " +?"
				excluded = true
			}
		}
		feasible := "yes"
		if !o.Feasible {
			feasible = "no"
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(rank), o.Offering.Provider, o.Offering.InstanceType, o.Offering.Region, o.Model,
			dash(o.Term), dash(strings.TrimSpace(o.Payment + " " + o.Class)), total, up, fmtNull(o.EffectiveHourly), fmtNull(o.PerGPUHour), npv, fmtHours(o.Breakeven), feasible})
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "No priced option. Check the filters, or supply prices with --prices FILE.")
	}
	u := run.usage
	plan := fmt.Sprintf("%g h/month for %s", u.HoursPerMonth, cost.FormatMonths(u.HorizonMonths))
	if u.DurationHours > 0 {
		plan = fmt.Sprintf("a %s job", cost.FormatHours(u.DurationHours))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Usage: %s × %d instance(s); discount rate %s%%/yr; %s licence. Totals include egress, storage, credits and promotions.",
		plan, u.Instances, u.DiscountRate.Mul(decimal.NewFromInt(100)).String(), u.License))
	if excluded {
		t.Notes = append(t.Notes, "+? = the total leaves out parts with no sourced price (listed under the option as 'not priced').")
	}
	n := 3
	if f.explain {
		n = len(shown)
	}
	for i, o := range shown {
		if i >= n {
			break
		}
		t.Notes = append(t.Notes, fmt.Sprintf("#%d %s:", i+1, optionLabel(o)))
		for _, line := range append(o.Explanation, o.Unknown...) {
			t.Notes = append(t.Notes, "    "+line)
		}
		for _, line := range o.Excludes {
			t.Notes = append(t.Notes, "    not priced: "+line)
		}
	}
	if len(unpriced) > 0 {
		provs := make([]string, 0, len(unpriced))
		for p := range unpriced {
			provs = append(provs, p)
		}
		sort.Strings(provs)
		var parts []string
		for _, p := range provs {
			ws := make([]string, 0, len(unpriced[p]))
			for w := range unpriced[p] {
				ws = append(ws, w)
			}
			sort.Strings(ws)
			parts = append(parts, p+": "+strings.Join(ws, ", "))
		}
		t.Notes = append(t.Notes, "Sold but not priced here (no sourced price; add them to a --prices file, or see them with --unpriced / -o json): "+strings.Join(parts, "; "))
	}
	for _, a := range run.l.applied {
		t.Notes = append(t.Notes, "prices from "+a)
	}
	return t
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// costOptionJSON is the JSON contract of `gpuscout cost -o json`.
type costOptionJSON struct {
	Provider               string         `json:"provider"`
	InstanceType           string         `json:"instance_type"`
	Region                 string         `json:"region"`
	GPU                    string         `json:"gpu"`
	GPUCount               float64        `json:"gpu_count"`
	PricingModel           string         `json:"pricing_model"`
	Term                   string         `json:"term"`
	Payment                string         `json:"payment"`
	Class                  string         `json:"class,omitempty"`
	Known                  bool           `json:"known"`
	Feasible               bool           `json:"feasible"`
	Total                  *json.Number   `json:"total"`
	Upfront                *json.Number   `json:"upfront"`
	Currency               string         `json:"currency"`
	EffectiveHourly        *json.Number   `json:"effective_hourly"`
	EffectivePerGPUHour    *json.Number   `json:"effective_per_gpu_hour"`
	NPV                    *json.Number   `json:"npv"`
	BreakevenHoursPerMonth *float64       `json:"breakeven_hours_per_month"`
	BreakevenNPVHours      *float64       `json:"breakeven_npv_hours_per_month"`
	ImpliedAnnualRate      *float64       `json:"implied_annual_rate"`
	UnusedTermCost         *json.Number   `json:"unused_term_cost,omitempty"`
	Explanation            []string       `json:"explanation"`
	Unknown                []string       `json:"unknown,omitempty"`
	Excludes               []string       `json:"excludes,omitempty"`
	Cashflow               []cashflowJSON `json:"cashflow,omitempty"`
}

type cashflowJSON struct {
	Month  int                     `json:"month"`
	ByKind map[string]*json.Number `json:"by_kind"`
	Total  *json.Number            `json:"total"`
}

func num(d decimal.Decimal) *json.Number {
	n := json.Number(d.Round(6).String())
	return &n
}

func round2(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := math.Round(*p*100) / 100
	return &v
}

func costJSON(opts []cost.Option, run *costRun, withCashflow bool) []costOptionJSON {
	out := make([]costOptionJSON, 0, len(opts))
	for i := range opts {
		o := &opts[i]
		j := costOptionJSON{Provider: o.Offering.Provider, InstanceType: o.Offering.InstanceType, Region: o.Offering.Region,
			GPU: o.Offering.GPU.Name, GPUCount: o.Offering.GPUCount, PricingModel: o.Model, Term: o.Term, Payment: o.Payment, Class: o.Class,
			Known: o.Known, Feasible: o.Feasible, Currency: string(run.l.currency), BreakevenHoursPerMonth: round2(o.Breakeven),
			BreakevenNPVHours: round2(o.BreakevenNPV), Explanation: append([]string{}, o.Explanation...), Unknown: o.Unknown, Excludes: o.Excludes}
		if o.ImpliedRate != nil {
			v := math.Round(*o.ImpliedRate*10000) / 10000
			j.ImpliedAnnualRate = &v
		}
		if o.Known {
			j.Total, j.Upfront, j.NPV = num(o.Total), num(o.Upfront), num(o.NPV)
		}
		if o.EffectiveHourly.Valid {
			j.EffectiveHourly = num(o.EffectiveHourly.Decimal)
		}
		if o.PerGPUHour.Valid {
			j.EffectivePerGPUHour = num(o.PerGPUHour.Decimal)
		}
		if o.UnusedTermCost.Valid {
			j.UnusedTermCost = num(o.UnusedTermCost.Decimal)
		}
		if withCashflow && o.Known {
			for _, m := range o.Schedule.Expand(run.usage.Months()) {
				cf := cashflowJSON{Month: m.Index, ByKind: map[string]*json.Number{}, Total: num(m.Total)}
				for k, v := range m.ByKind {
					cf.ByKind[k] = num(v)
				}
				j.Cashflow = append(j.Cashflow, cf)
			}
		}
		out = append(out, j)
	}
	return out
}

func cashflowTable(opts []cost.Option, run *costRun) *render.Table {
	t := &render.Table{Columns: []render.Column{{Header: "OPTION"}, {Header: "MONTH", Right: true}}}
	for _, k := range cost.FlowKinds {
		t.Columns = append(t.Columns, render.Column{Header: strings.ToUpper(k), Right: true})
	}
	t.Columns = append(t.Columns, render.Column{Header: "TOTAL", Right: true}, render.Column{Header: "CUMULATIVE", Right: true})
	for i := range opts {
		o := &opts[i]
		if !o.Known {
			continue
		}
		cum := decimal.Zero
		for _, m := range o.Schedule.Expand(run.usage.Months()) {
			if m.Total.IsZero() && len(m.ByKind) == 0 {
				continue
			}
			cum = cum.Add(m.Total)
			label := optionLabel(o)
			if !o.Feasible {
				label += " (infeasible: the whole term)"
			}
			row := []string{label, strconv.Itoa(m.Index)}
			for _, k := range cost.FlowKinds {
				v, ok := m.ByKind[k]
				if !ok {
					row = append(row, "")
					continue
				}
				row = append(row, v.Round(2).StringFixed(2))
			}
			row = append(row, m.Total.Round(2).StringFixed(2), cum.Round(2).StringFixed(2))
			t.Rows = append(t.Rows, row)
		}
	}
	t.Notes = []string{fmt.Sprintf("Month 0 is the start (upfront fees, and monthly fees billed in advance); month j is the end of month j. Amounts in %s.", run.l.currency)}
	return t
}

func writeCostChart(path string, opts []cost.Option, run *costRun) error {
	chart := &render.LineChart{Title: "Cumulative cash flow of the best options", XLabel: "month", YLabel: "cumulative cost (" + string(run.l.currency) + ")"}
	for i := range opts {
		o := &opts[i]
		if !o.Known || !o.Feasible {
			continue
		}
		s := render.Series{Name: optionLabel(o) + ": " + cost.FormatMoney(o.Total, run.l.currency)}
		cum := decimal.Zero
		for _, m := range o.Schedule.Expand(run.usage.Months()) {
			cum = cum.Add(m.Total)
			s.Points = append(s.Points, [2]float64{float64(m.Index), cum.InexactFloat64()})
		}
		chart.Series = append(chart.Series, s)
		if len(chart.Series) == 6 {
			break
		}
	}
	return writeChart(path, chart)
}

// writeChart writes an SVG chart to a file (the --chart flag of cost and spot).
func writeChart(path string, chart interface{ Write(io.Writer) error }) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	if err := chart.Write(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

func newBreakevenCmd(e *env) *cobra.Command {
	var cf catalogFlags
	var offering, term, discount string
	cmd := &cobra.Command{
		Use:   "breakeven",
		Short: "Hours a month above which each commitment beats on-demand",
		Long: `For each commitment price of an offering: its effective price per term hour
E (upfront spread over the term plus the recurring fee, used or not), the
on-demand price P, and the break-even usage h* = 730·E/P hours a month; above
it the commitment is cheaper. The present-value variant compares discounted
cash flows at --discount-rate.`,
		Example: "  gpuscout cost breakeven --offering gcp/a2-highgpu-8g --term 1y\n  gpuscout cost breakeven --offering gcp/a3-highgpu-8g/us-central1 --discount-rate 8% -o json",
		Args:    noArgs,
	}
	getFormat := outputFlag(cmd)
	cf.register(cmd)
	cmd.Flags().StringVar(&offering, "offering", "", "provider/instance[/region] (required)")
	cmd.Flags().StringVar(&term, "term", "", "only this term: 1y, 3y, ...")
	cmd.Flags().StringVar(&discount, "discount-rate", "", "yearly discount rate for the present-value variant, e.g. 8%")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		if offering == "" {
			return usagef("--offering is required, e.g. --offering gcp/a2-highgpu-8g")
		}
		f := costFlags{catalogFlags: cf, offering: offering, hoursPerMonth: cost.HoursPerMonth, horizon: "3y", discountRate: discount}
		f.allRegions = true
		if term != "" && catalog.TermMonths(term) == 0 {
			return usagef("--term %q: want 1y, 3y or Nmo", term)
		}
		run, opts, err := f.priceAll()
		if err != nil {
			return err
		}
		type row struct {
			Provider               string       `json:"provider"`
			InstanceType           string       `json:"instance_type"`
			Region                 string       `json:"region"`
			PricingModel           string       `json:"pricing_model"`
			Term                   string       `json:"term"`
			Payment                string       `json:"payment"`
			Class                  string       `json:"class,omitempty"`
			EffectiveHourly        *json.Number `json:"effective_hourly"`
			OnDemandHourly         *json.Number `json:"ondemand_hourly"`
			BreakevenHoursPerMonth *float64     `json:"breakeven_hours_per_month"`
			BreakevenNPVHours      *float64     `json:"breakeven_npv_hours_per_month"`
			ImpliedAnnualRate      *float64     `json:"implied_annual_rate"`
			Currency               string       `json:"currency"`
		}
		var rows []row
		t := &render.Table{Columns: []render.Column{{Header: "PROVIDER"}, {Header: "INSTANCE"}, {Header: "REGION"}, {Header: "MODEL"}, {Header: "TERM"},
			{Header: "PAYMENT"}, {Header: "EFFECTIVE/h", Right: true}, {Header: "ON-DEMAND/h", Right: true}, {Header: "BREAK-EVEN h/mo", Right: true},
			{Header: "NPV BREAK-EVEN", Right: true}, {Header: "IMPLIED RATE", Right: true}}}
		for i := range opts {
			o := &opts[i]
			eff := o.EffectiveTermHourly()
			if !eff.Valid || (term != "" && o.Term != term) {
				continue
			}
			r := row{Provider: o.Offering.Provider, InstanceType: o.Offering.InstanceType, Region: o.Offering.Region, PricingModel: o.Model,
				Term: o.Term, Payment: o.Payment, Class: o.Class, EffectiveHourly: num(eff.Decimal),
				BreakevenHoursPerMonth: round2(o.Breakeven), BreakevenNPVHours: round2(o.BreakevenNPV), Currency: string(run.l.currency)}
			if od := o.OnDemandHourly(); od.Valid {
				r.OnDemandHourly = num(od.Decimal)
			}
			implied := "-"
			if o.ImpliedRate != nil {
				v := math.Round(*o.ImpliedRate*10000) / 10000
				r.ImpliedAnnualRate = &v
				implied = fmt.Sprintf("%.1f%%", *o.ImpliedRate*100)
			}
			rows = append(rows, r)
			t.Rows = append(t.Rows, []string{r.Provider, r.InstanceType, r.Region, r.PricingModel, r.Term, strings.TrimSpace(r.Payment + " " + r.Class),
				fmtMoney(eff), fmtNull(o.OnDemandHourly()), fmtHours(o.Breakeven), fmtHours(o.BreakevenNPV), implied})
		}
		if len(rows) == 0 {
			return usagef("--offering %s has no commitment price in the catalog%s; add one to a --prices file", offering, map[bool]string{true: " for term " + term, false: ""}[term != ""])
		}
		t.Notes = []string{"h* = 730·E/P: above this many hours a month the commitment beats on-demand. NPV break-even discounts both at --discount-rate."}
		return e.write(format, t, rows)
	}
	return cmd
}
