package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/form"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/report"
)

type costFlags struct {
	catalogFlags
	selectFlags
	offering  string
	usageFile string
	// usage holds the usage flags' parsed values; which of them the user set
	// is asked of cobra (Flags().Changed), never guessed from the value.
	usage        cost.Usage
	horizonHours float64
	cashflow     bool
	chart        string
	explain      bool
	unpriced     bool
	limit        int
}

// usageFlagFields maps each usage flag to the usage field it sets.
var usageFlagFields = map[string]cost.Field{
	"for": cost.FieldDuration, "hours-per-month": cost.FieldHoursPerMonth, "horizon": cost.FieldHorizon,
	"discount-rate": cost.FieldDiscountRate, "instances": cost.FieldInstances, "license": cost.FieldLicense,
	"egress": cost.FieldEgress, "credit": cost.FieldCredits, "spot-band": cost.FieldSpotBand,
	"checkpoint": cost.FieldCheckpoint, "restart": cost.FieldRestart, "spot-outage": cost.FieldOutage,
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
  credits:                    # the article's example, not a current offer: give your own (expires: 6mo if it does)
    - {name: AWS Activate, amount: 1000, currency: USD, providers: [aws]}
  promotions:                 # the article's examples, not current offers (check the terms that apply to you):
    - {kind: first-month-discount, percent: 90%, providers: [alibaba]}   # Alibaba: GN7 first month at 10% of the price
    - {kind: student-price, price_per_hour: 0.5, currency: CNY, daily_hours: 4, providers: [tencent]}   # Tencent student price, 4 h a day
    - {kind: voucher, amount: 300, currency: USD, providers: [alibaba]}   # Alibaba: voucher after enterprise verification
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
	wide := wideFlag(cmd)
	f.catalogFlags.register(cmd)
	f.selectFlags.register(cmd)
	f.registerUsage(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&f.cashflow, "cashflow", false, "print each option's month-by-month cash flows instead of the summary")
	fl.Var(&outPathValue{p: &f.chart, exts: []string{".svg"}}, "chart", "write the cost of each pricing model against hours per month (break-even points and your load marked) as SVG to this file (.svg); where payment schemes differ, also NAME-cashflow.svg beside it: the cumulative cash flow")
	fl.BoolVar(&f.explain, "explain", false, "print the explanation of every option, not only the best few")
	fl.BoolVar(&f.unpriced, "unpriced", false, "list schemes without a sourced price in the table too (JSON always has them)")
	fl.IntVar(&f.limit, "limit", 0, "show at most this many priced options (0: all)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		run, opts, err := f.priceAll(cmd.Flags().Changed)
		if err != nil {
			return err
		}
		if f.chart != "" {
			if err := writeCostChart(f.chart, opts, run); err != nil {
				return err
			}
		}
		if f.cashflow {
			return e.writeFitted(format, cashflowTable(opts, run), costJSON(opts, run, true), *wide)
		}
		return e.writeFitted(format, f.costTable(opts, run, format == render.FormatCSV), costJSON(opts, run, false), *wide)
	}
	cmd.AddCommand(newBreakevenCmd(e))
	return cmd
}

func (f *costFlags) registerUsage(cmd *cobra.Command) {
	fl := cmd.Flags()
	u := &f.usage
	fl.StringVar(&f.offering, "offering", "", "one instance type: provider/instance[/region], e.g. aws/p4d.24xlarge")
	fl.StringVar(&f.usageFile, "usage", "", "usage file (YAML); a flag you set wins over the file")
	fl.Var(newHours(&u.DurationHours, false, cost.MaxDurationHours), "for", "a job's duration run back to back: 90m, 168h, 7d, 3mo, 1y")
	fl.Var(form.Float(&u.HoursPerMonth, 0, catalog.HoursPerMonth, true, " hours"), "hours-per-month", "steady use per instance, hours a month: 1 minute (0.0167) to 730")
	fl.Var(newHours(&f.horizonHours, false, cost.MaxHorizonMonths*catalog.HoursPerMonth), "horizon", "planning window: 1y, 3y, 18mo, at most 10y (default: the job's duration, else 1y)")
	fl.Var(form.Fraction(&u.DiscountRate, decimal.Zero, decimal.NewFromInt(1)), "discount-rate", "yearly discount rate for NPV and break-even: 8% or 0.08, 0% to 100% (default 0)")
	fl.Var(form.Int(&u.Instances, 1, cost.MaxInstances), "instances", "number of instances, 1 to 100000 (default 1)")
	fl.Var(form.Egress(&u.Egress), "egress", "egress GB a month by path, PATH=GB (same-zone, cross-zone, cross-region, internet, internet-china); repeatable")
	fl.Var(form.Credits(&u.Credits), "credit", "a credit, AMOUNT CUR[@provider,...][:EXPIRES], e.g. 1000USD@aws:6mo; repeatable; replaces the usage file's credits")
	fl.StringVar(&u.License, "license", "", "OS licence: linux (default) or windows")
	fl.Var(form.Band(&u.Spot.Band), "spot-band", "spot interruptions a month, e.g. 10-15% (default: the AWS Spot Advisor's, else >20%, an assumption: the band of most GPU types in the Advisor's data)")
	fl.Var(newHours(&u.Spot.CheckpointHours, false, cost.MaxDurationHours), "checkpoint", "spot: checkpoint interval (default 1h)")
	fl.Var(newHours(&u.Spot.RestartHours, true, cost.MaxDurationHours), "restart", "spot: restart time after an interruption, 0 or more (default 10m)")
	fl.Var(newHours(&u.Spot.OutageHours, true, cost.MaxSpotOutageHours), "spot-outage", "spot: mean time capacity stays short after an interruption, 0 to 30d, e.g. 2h (default 0: back at once; an assumption)")
}

// costUsage turns the usage flags, and the usage file when there is one, into
// the usage to price: the file's values, then every flag the user set (a set
// flag wins, whatever its value), then the defaults, then validation. It is
// pure: changed says which flags the user set.
func costUsage(flags cost.Usage, horizonHours float64, spec *cost.Spec, changed func(string) bool) (cost.Usage, error) {
	if changed("for") && changed("hours-per-month") {
		return cost.Usage{}, usagef("--for and --hours-per-month describe different loads (a job run back to back, or a steady monthly use); give one")
	}
	flags.HorizonMonths = horizonHours / catalog.HoursPerMonth
	var base cost.Usage
	if spec != nil {
		base = spec.Usage
	}
	var set []cost.Field
	for _, name := range slices.Sorted(maps.Keys(usageFlagFields)) {
		if changed(name) {
			set = append(set, usageFlagFields[name])
		}
	}
	u, err := base.Merge(flags, set...).Resolved()
	if err != nil {
		return cost.Usage{}, asUsage(err)
	}
	return u, nil
}

// costRun is a prepared pricing run: the request and what it was read from.
type costRun struct {
	l    *loadedCatalog
	req  cost.Request
	spec *cost.Spec
}

// usage is the request's usage.
func (run *costRun) usage() *cost.Usage { return &run.req.Usage }

func (f *costFlags) prepare(changed func(string) bool) (*costRun, error) {
	run := &costRun{}
	if f.usageFile != "" {
		spec, err := cost.LoadSpec(f.usageFile)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, usagef("--usage %s: no such file", f.usageFile)
			}
			return nil, asUsage(err)
		}
		run.spec = spec
		if !changed("gpu") && !changed("offering") {
			f.GPU, f.offering = spec.GPU, spec.Offering
		}
		if !changed("currency") && spec.Currency != "" {
			f.currency = string(spec.Currency)
		}
	}
	u, err := costUsage(f.usage, f.horizonHours, run.spec, changed)
	if err != nil {
		return nil, err
	}
	l, err := f.load()
	if err != nil {
		return nil, err
	}
	run.l = l
	run.req = cost.Request{Usage: u, Currency: l.currency}
	if err := run.validate(); err != nil {
		return nil, err
	}
	if err := f.ApplyPriced(&run.req.Query, l.cat, f.offering); err != nil {
		return nil, asInputUsage(err)
	}
	return run, nil
}

// validate is the request's validation (cost.Request.Validate, as the API
// validates) in the CLI's words: it names the usage file's line of a
// currency it cannot convert.
func (run *costRun) validate() error {
	err := run.req.Validate(run.l.cat, run.l.fx)
	var ce *cost.CurrencyError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		where := ""
		if run.spec != nil {
			for k, line := range run.spec.CurrencyLines {
				if strings.HasSuffix(k, "@"+string(ce.Currency)) {
					where = fmt.Sprintf("%s:%d: ", run.spec.Path, line)
				}
			}
		}
		return usagef("%s%v; add one with --fx %s=USD_PER_UNIT", where, err, ce.Currency)
	}
	return usagef("--credits: %v", err)
}

// priceAll prepares the run from the flags and prices every selected offering.
func (f *costFlags) priceAll(changed func(string) bool) (*costRun, []cost.Option, error) {
	run, err := f.prepare(changed)
	if err != nil {
		return nil, nil, err
	}
	opts, err := run.price()
	return run, opts, err
}

func (run *costRun) price() ([]cost.Option, error) {
	opts, err := run.req.Quote(run.l.cat, run.l.fx)
	if sel := (*cost.SelectionError)(nil); errors.As(err, &sel) {
		return nil, asUsage(sel.Err) // the selection's errors are the user's
	}
	cost.DatePrices(run.l.cat, opts, clock())
	return opts, err
}

func optionLabel(o *cost.Option) string {
	s := o.Offering.Provider + "/" + o.Offering.InstanceType + "/" + dash(o.Offering.Region) + " " + o.Model
	for _, x := range []string{o.Term, o.Payment, o.Class} {
		if x != "" {
			s += " " + x
		}
	}
	return s
}

// fmtDec writes an amount cell of a column with Places 2: every digit
// money.Plain keeps, for CSV; the text table shows cents.
func fmtDec(d decimal.Decimal) string { return money.Plain(d) }

func fmtNull(d decimal.NullDecimal) string {
	if !d.Valid {
		return render.Unknown
	}
	return fmtMoney(d)
}

func fmtHours(p *float64) string {
	if p == nil {
		return "-"
	}
	if *p > catalog.HoursPerMonth {
		return "never"
	}
	return strconv.FormatFloat(math.Round(*p), 'f', 0, 64)
}

// costTable is cost's listing. PRICED is the date of the oldest price an
// option bills at, † where one is past the age rule (cost.DatePrices);
// csv writes the date and a STALE column instead.
func (f *costFlags) costTable(opts []cost.Option, run *costRun, csv bool) *render.Table {
	cur := string(run.l.currency)
	t := &render.Table{Columns: []render.Column{
		{Header: "#", Right: true}, {Header: "PROVIDER"}, {Header: "INSTANCE"}, {Header: "REGION", Drop: 3}, {Header: "MODEL"}, {Header: "TERM"},
		{Header: "PAYMENT", Drop: 1}, {Header: "TOTAL " + cur, Right: true, Places: 2}, {Header: "UPFRONT", Right: true, Drop: 6, Places: 2},
		{Header: "EFF " + cur + "/h", Right: true, Short: "EFF/h", Drop: 4}, {Header: "EFF " + cur + "/GPU-h", Right: true, Short: "EFF/GPU-h", Drop: 8},
		{Header: "NPV", Right: true, Drop: 9, Places: 2}, {Header: "BREAK-EVEN h/mo", Right: true, Short: "B/E h/mo", Drop: 7}, {Header: "PRICED", Drop: 5}, {Header: "FEASIBLE", Short: "OK", Drop: 2},
	}}
	if csv {
		t.Columns = slices.Insert(t.Columns, len(t.Columns)-1, render.Column{Header: "STALE"})
	}
	var stale []string // the ranks of the options shown with a stale price
	partial := false
	unpriced := map[string]map[string]bool{}
	// A model and term priced with one payment but not another name the
	// payment that is not ("subscription 1mo all-upfront" beside a priced
	// 1mo monthly), so the list never seems to contradict the table.
	pricedTerm := map[string]bool{}
	for i := range opts {
		if o := &opts[i]; o.Known && o.Term != "" {
			pricedTerm[o.Offering.Provider+"/"+o.Model+"/"+o.Term] = true
		}
	}
	excluded := false
	converted := map[money.Currency]bool{} // the currencies totals were converted from
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
				if pricedTerm[o.Offering.Provider+"/"+o.Model+"/"+o.Term] {
					what += " " + o.Payment
				}
			}
			unpriced[o.Offering.Provider][what] = true
			continue
		}
		rank++
		if f.limit > 0 && rank > f.limit {
			continue
		}
		shown = append(shown, o)
		total, up, npv := render.Unknown, render.Unknown, render.Unknown
		if o.Known {
			total, up, npv = fmtDec(o.Total.Value), fmtDec(o.Upfront.Value), fmtDec(o.NPV.Value)
			if o.Converted() {
				total += "*"
				converted[o.QuotedIn] = true
			}
			if len(o.Excludes) > 0 {
				total += " +?"
				excluded = true
			}
		}
		feasible := "yes"
		if !o.Feasible {
			feasible = "no"
		}
		priced := []string{render.NotApplied} // an unpriced scheme: no date applies
		switch {
		case csv && o.Known:
			priced = []string{o.PriceAge.Date.ISO(), strconv.FormatBool(o.Stale)}
		case csv:
			priced = []string{"", ""}
		case o.Known:
			priced = []string{datedCell(o.PriceAge.Date, o.Stale)}
		}
		if o.Stale {
			stale = append(stale, "#"+strconv.Itoa(rank))
		}
		partial = partial || o.PriceAge.Date.Partial()
		row := []string{strconv.Itoa(rank), o.Offering.Provider, o.Offering.InstanceType, dash(o.Offering.Region), o.Model,
			dash(o.Term), dash(strings.TrimSpace(o.Payment + " " + o.Class)), total, up, fmtNull(o.EffectiveHourly), fmtNull(o.PerGPUHour), npv, fmtHours(o.Breakeven)}
		t.Rows = append(t.Rows, append(append(row, priced...), feasible))
	}
	t.Currency = cur
	for _, c := range slices.Sorted(maps.Keys(converted)) {
		t.Notes = append(t.Notes, fmt.Sprintf("* converted from %s: %s; override with --fx %s=USD_PER_UNIT", c, run.l.fx.Describe(c, run.l.currency), map[bool]money.Currency{true: run.l.currency, false: c}[c == money.USD]))
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "No priced option. Check the filters, or supply prices with --prices FILE.")
	}
	if len(stale) > 0 {
		// The ranks keep the note whole where the table had to leave PRICED out.
		t.Notes = append(t.Notes, fmt.Sprintf("PRICED: the date of the oldest price an option bills at; %s = one of its prices is older than %s, or its spot price older than %s (%s): the option's explanation says which (--explain explains every option); check those prices against the provider's console, or run catalog refresh.",
			report.StaleMark, catalog.ListPrice.Limit(), catalog.SpotPrice.Limit(), strings.Join(stale, ", ")))
	}
	if partial {
		t.Notes = append(t.Notes, partialDateNote)
	}
	u := run.usage()
	plan := fmt.Sprintf("%g h/month for %s", u.HoursPerMonth, cost.FormatMonths(u.HorizonMonths))
	if u.DurationHours > 0 {
		plan = fmt.Sprintf("a %s job", cost.FormatHours(u.DurationHours))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Usage: %s × %s; discount rate %s%%/yr; %s licence. %s",
		plan, cost.Count(u.Instances, "instance", "instances"), u.DiscountRate.Mul(decimal.NewFromInt(100)).String(), u.License, u.TotalsNote()))
	t.Notes = append(t.Notes, "EFF /h and /GPU-h = the total over the hours used; the list price each option bills at is list_hourly in -o json.")
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
		for _, line := range append(slices.Clip(o.Explanation), o.UnknownLines()...) {
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
	offs := make([]*catalog.Offering, len(shown))
	for i, o := range shown {
		offs[i] = o.Offering
	}
	t.Notes = append(t.Notes, run.l.refreshNotes(offs, clock())...)
	t.Legend = true
	return t
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cost -o json's contract lives in the cost package (the server answers
// the same JSON).
type costOptionJSON = cost.OptionJSON

func costJSON(opts []cost.Option, run *costRun, withCashflow bool) []costOptionJSON {
	return cost.OptionsJSON(opts, run.l.currency, run.usage(), withCashflow)
}

func cashflowTable(opts []cost.Option, run *costRun) *render.Table {
	t := &render.Table{Columns: []render.Column{{Header: "OPTION"}, {Header: "MONTH", Right: true}}}
	for _, k := range cost.FlowKinds {
		t.Columns = append(t.Columns, render.Column{Header: strings.ToUpper(k), Right: true, Places: 2})
	}
	t.Columns = append(t.Columns, render.Column{Header: "TOTAL", Right: true, Places: 2}, render.Column{Header: "CUMULATIVE", Right: true, Places: 2})
	for i := range opts {
		o := &opts[i]
		if !o.Known {
			continue
		}
		cum := decimal.Zero
		for _, m := range o.Schedule.Expand(run.usage().Months()) {
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
				row = append(row, fmtDec(v))
			}
			row = append(row, fmtDec(m.Total), fmtDec(cum))
			t.Rows = append(t.Rows, row)
		}
	}
	t.Currency = string(run.l.currency)
	t.Notes = []string{fmt.Sprintf("Month 0 is the start (upfront fees, and monthly fees billed in advance); month j is the end of month j. Amounts in %s.", run.l.currency)}
	return t
}

// writeCostChart writes the --chart charts: at path, the cost of each
// pricing model of the best offering against hours used per month; beside
// it (NAME-cashflow.svg), where the payment schemes of the options differ,
// their cumulative cash flow over the horizon.
func writeCostChart(path string, opts []cost.Option, run *costRun) error {
	chart := costHoursChart(opts, run)
	if chart == nil {
		return usagef("--chart: no priced, feasible option to plot")
	}
	out := outputFiles{flag: "--chart"}
	defer out.discard()
	if err := out.add(path, chart.Write); err != nil {
		return err
	}
	if flow := cashflowChart(opts, run); flow != nil {
		if err := out.add(cashflowChartPath(path), flow.Write); err != nil {
			return err
		}
	}
	return out.commit()
}

// cashflowChartPath is where the second chart of --chart goes: cost.svg →
// cost-cashflow.svg.
func cashflowChartPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + "-cashflow.svg"
}

// costLine is one pricing model of an offering as a line against hours used
// per month h: cost = Fixed + PerHour·h over the horizon.
type costLine struct {
	opt            *cost.Option
	name           string
	fixed, perHour float64
}

// costLines picks the best priced, feasible option's offering and returns its
// pricing models as lines, compute only: on-demand and spot rise with the
// hours (spot at its simulated hours factor), each commitment (the cheapest
// per model and term) is flat at its effective price per term hour × 730 h.
func costLines(opts []cost.Option, run *costRun) []costLine {
	var best *catalog.Offering
	for i := range opts {
		if opts[i].Known && opts[i].Feasible {
			best = opts[i].Offering
			break
		}
	}
	if best == nil {
		return nil
	}
	scale := run.usage().HorizonMonths * float64(max(1, run.usage().Instances))
	var lines []costLine
	seen := map[string]bool{}
	for i := range opts {
		o := &opts[i]
		if o.Offering != best || !o.Known || !o.Feasible {
			continue
		}
		switch o.Model {
		case cost.ModelOnDemand, cost.ModelSpot:
			if !o.ListHourly.Valid || seen[o.Model] {
				continue
			}
			seen[o.Model] = true
			h := o.ListHourly.Decimal.InexactFloat64()
			if o.SpotEstimate != nil {
				h *= o.SpotEstimate.HoursFactor
			}
			lines = append(lines, costLine{opt: o, name: o.Model, perHour: h * scale})
		default:
			eff := o.EffectiveTermHourly()
			key := o.Model + " " + o.Term
			if !eff.Valid || seen[key] || len(lines) >= 6 {
				continue // opts come cheapest first: the first of a model and term is its best
			}
			seen[key] = true
			name := strings.TrimSpace(o.Term + " " + o.Model + " " + o.Payment + " " + o.Class)
			lines = append(lines, costLine{opt: o, name: name, fixed: eff.Decimal.InexactFloat64() * catalog.HoursPerMonth * scale})
		}
	}
	return lines
}

// costLoad is the user's load in hours per instance per month (a job's
// hours spread over the horizon), at most 730.
func costLoad(u *cost.Usage) float64 {
	if u.HorizonMonths <= 0 {
		return 0
	}
	return math.Min(catalog.HoursPerMonth, u.TotalHours()/u.HorizonMonths)
}

// costHoursChart is the first chart of --chart: which pricing model is
// cheapest at which load, the user's load and the break-even points marked.
func costHoursChart(opts []cost.Option, run *costRun) *render.LineChart {
	lines := costLines(opts, run)
	if len(lines) == 0 {
		return nil
	}
	cur := string(run.l.currency)
	o0 := lines[0].opt.Offering
	months := run.usage().HorizonMonths
	chart := &render.LineChart{
		Title:  fmt.Sprintf("Which pricing model of %s/%s is cheapest at your hours per month?", o0.Provider, o0.InstanceType),
		XLabel: "hours used per month, per instance",
		YLabel: fmt.Sprintf("cost over %s, %s (%s)", cost.FormatMonths(months), cost.Count(max(1, run.usage().Instances), "instance", "instances"), cur),
	}
	for _, l := range lines {
		chart.Series = append(chart.Series, render.Series{Name: l.name, Points: [][2]float64{{0, l.fixed}, {catalog.HoursPerMonth, l.fixed + l.perHour*catalog.HoursPerMonth}}})
	}
	load := costLoad(run.usage())
	chart.Marks = []render.XMark{{X: load, Label: fmt.Sprintf("your load: %s h/month", render.FormatTick(math.Round(load)))}}
	for _, l := range lines {
		if b := l.opt.Breakeven; b != nil && *b > 0 && *b <= catalog.HoursPerMonth {
			chart.Callouts = append(chart.Callouts, render.Callout{X: *b, Y: l.fixed,
				Label: fmt.Sprintf("%s %s wins above %.0f h/month", l.opt.Term, l.opt.Model, *b)})
		}
	}
	chart.Caption = "Compute only (egress, storage and credits add the same to every model)."
	for _, l := range lines {
		if l.opt.SpotEstimate != nil {
			chart.Caption += " Spot at its simulated overhead for your load."
		}
	}
	chart.Caption += " " + costSources(lines, run.l.cat)
	return chart
}

// costSources cites the prices behind the lines: the offering's on-demand
// and spot prices and the catalog commitments of the lines' model and term.
func costSources(lines []costLine, cat *catalog.Catalog) string {
	o := lines[0].opt.Offering
	var parts []string
	add := func(what, source, asOf string) {
		p := fmt.Sprintf("%s %s (%s)", what, source, asOf)
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	if o.OnDemand.Known {
		add("on-demand", o.OnDemand.Source, o.OnDemand.AsOf)
	}
	if o.Spot.Known {
		add("spot", o.Spot.Source, o.Spot.AsOf)
	}
	for _, l := range lines {
		if !l.opt.EffectiveTermHourly().Valid || cat == nil {
			continue
		}
		for _, c := range cat.CommitmentsFor(o) {
			if c.Model == l.opt.Model && c.Term == l.opt.Term && c.Payment == l.opt.Payment && c.Class == l.opt.Class {
				add(l.opt.Term+" "+l.opt.Model, c.Source, c.AsOf)
			}
		}
	}
	if len(parts) == 0 {
		return "Prices: the catalog's."
	}
	return "Prices: " + strings.Join(parts, "; ") + "."
}

// cashflowChart is the second chart of --chart: the cumulative cash flow of
// the lines' options month by month, drawn only where their payment
// schemes differ (pay as you go, monthly, upfront).
func cashflowChart(opts []cost.Option, run *costRun) *render.LineChart {
	lines := costLines(opts, run)
	schemes := map[string]bool{}
	for _, l := range lines {
		s := "pay as you go"
		if l.opt.Payment != "" {
			s = l.opt.Payment
		}
		schemes[s] = true
	}
	if len(schemes) < 2 {
		return nil
	}
	var flows []render.CashflowLine
	for _, l := range lines {
		flows = append(flows, render.CashflowLine{Name: optionLabel(l.opt) + ": " + money.Format(l.opt.Total.Value, run.l.currency), Flows: l.opt.Schedule})
	}
	return render.CashflowChart("How much cash does each option need, month by month?", string(run.l.currency), run.usage().Months(), flows,
		run.usage().TotalsNote()+" "+costSources(lines, run.l.cat))
}

// writeChart writes an SVG chart to a file (the --chart flag of cost and spot).
func writeChart(path string, chart interface{ Write(io.Writer) error }) error {
	return writeOutputFile("--chart", path, chart.Write)
}

func newBreakevenCmd(e *env) *cobra.Command {
	var cf catalogFlags
	var offering, term string
	var discount decimal.Decimal
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
	wide := wideFlag(cmd)
	cf.register(cmd)
	cmd.Flags().StringVar(&offering, "offering", "", "provider/instance[/region] (required)")
	cmd.Flags().StringVar(&term, "term", "", "only this term: 1y, 3y, ...")
	cmd.Flags().Var(form.Fraction(&discount, decimal.Zero, decimal.NewFromInt(1)), "discount-rate", "yearly discount rate for the present-value variant: 8% or 0.08 (default 0)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		if offering == "" {
			return usagef("--offering is required, e.g. --offering gcp/a2-highgpu-8g")
		}
		// Full use of one instance over three years: the break-even hours do
		// not depend on the load, only the NPV variant on the rate.
		f := costFlags{catalogFlags: cf, offering: offering, horizonHours: 3 * 8760}
		f.usage.HoursPerMonth, f.usage.DiscountRate = catalog.HoursPerMonth, discount
		f.AllRegions = true
		if term != "" && catalog.TermMonths(term) == 0 {
			return usagef("--term %q: want 1y, 3y or Nmo", term)
		}
		run, opts, err := f.priceAll(func(name string) bool {
			return name == "hours-per-month" || name == "horizon" || name == "discount-rate"
		})
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
		t := &render.Table{Columns: []render.Column{{Header: "PROVIDER", Drop: 2}, {Header: "INSTANCE"}, {Header: "REGION", Drop: 3}, {Header: "MODEL"}, {Header: "TERM"},
			{Header: "PAYMENT", Drop: 1}, {Header: "EFFECTIVE/h", Right: true, Short: "EFF/h"}, {Header: "ON-DEMAND/h", Right: true, Short: "OD/h"},
			{Header: "BREAK-EVEN h/mo", Right: true, Short: "h*/mo"}, {Header: "NPV BREAK-EVEN", Right: true, Short: "NPV h*", Drop: 4},
			{Header: "IMPLIED RATE", Right: true, Short: "RATE", Drop: 5}}}
		for i := range opts {
			o := &opts[i]
			eff := o.EffectiveTermHourly()
			if !eff.Valid || (term != "" && o.Term != term) {
				continue
			}
			r := row{Provider: o.Offering.Provider, InstanceType: o.Offering.InstanceType, Region: o.Offering.Region, PricingModel: o.Model,
				Term: o.Term, Payment: o.Payment, Class: o.Class, EffectiveHourly: money.Number(eff.Decimal),
				BreakevenHoursPerMonth: cost.RoundedHours(o.Breakeven), BreakevenNPVHours: cost.RoundedHours(o.BreakevenNPV), Currency: string(run.l.currency)}
			if od := o.OnDemandHourly(); od.Valid {
				r.OnDemandHourly = money.Number(od.Decimal)
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
		t.Currency = string(run.l.currency)
		t.Notes = []string{"h* = 730·E/P: above this many hours a month the commitment beats on-demand. NPV break-even discounts both at --discount-rate."}
		t.Legend = true
		return e.writeFitted(format, t, rows, *wide)
	}
	return cmd
}
