package cli

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/form"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
)

// selectFlags choose offerings: cost's selection inputs, the same as
// advise's and offers' (form.Selection).
type selectFlags struct{ form.Selection }

func (f *selectFlags) register(cmd *cobra.Command) { f.Register(cmd.Flags()) }

// apply sets the selection on q.
func (f *selectFlags) apply(q *catalog.Query, l *loadedCatalog) error {
	return asInputUsage(f.Apply(q, l.cat))
}

// resolveRegionFlag reads one --region value (form.ResolveRegions).
var resolveRegionFlag = form.ResolveRegions

type offersFlags struct {
	catalogFlags
	// form is the query's inputs, the same as GET /api/v1/offerings'.
	form *form.Offers
}

func newOffersCmd(e *env) *cobra.Command {
	var f offersFlags
	cmd := &cobra.Command{
		Use:   "offers",
		Short: "List GPU offerings with prices, cheapest first",
		Long: `List GPU offerings (instance type × region) with their on-demand and spot
prices, each with its source and as-of date. By default each instance type is
shown once, in its cheapest region; --all-regions shows every region and zone.

PRICED is the on-demand price's as-of date, marked † when it is older than a
year ("2021 (day unknown)" where the price page gives only the year, counted
from its first day); a note says when spot prices shown are older than 30
days. -o csv writes the dates and whether each is stale in columns of their
own; -o json has price_as_of, price_stale, spot_as_of and spot_stale.

Prices the catalog has no source for are shown as "?" (Alibaba Cloud and
Tencent Cloud publish no GPU list price we could source): supply your own with
--prices FILE.`,
		Example: `  gpuscout offers --gpu A100:8
  gpuscout offers --gpu H100 --spot --provider aws,gcp --sort gpu-hour -o csv
  gpuscout offers --min-gpu-memory 80GB --max-price 30 --currency CNY
  gpuscout offers --china --gpu A10 --prices examples/prices-china.yaml`,
		Args: noArgs,
	}
	getFormat := outputFlag(cmd)
	wide := wideFlag(cmd)
	f.catalogFlags.register(cmd)
	f.form = form.NewOffers()
	cmd.Flags().AddFlagSet(f.form.Flags())
	_ = cmd.RegisterFlagCompletionFunc("sort", cobra.FixedCompletions(catalog.SortKeys, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("interconnect", cobra.FixedCompletions(catalog.Interconnects, cobra.ShellCompDirectiveNoFileComp))
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		l, err := f.load()
		if err != nil {
			return err
		}
		q, err := f.query(l)
		if err != nil {
			return err
		}
		rows, err := l.cat.Query(q)
		if err != nil {
			return asUsage(err)
		}
		now := clock()
		return e.writeFitted(format, offersTable(l, q, rows, now, format == render.FormatCSV), l.cat.RowsJSON(rows, q.Currency, now), *wide)
	}
	return cmd
}

func (f *offersFlags) query(l *loadedCatalog) (catalog.Query, error) {
	q, err := f.form.Query(l.cat, l.fx, l.currency)
	return q, asInputUsage(err)
}

// fmtMoney writes a price cell: every digit money.Plain keeps, at least 2
// decimals. CSV writes the cell as it is; the text and Markdown tables
// round it to render.MaxDecimals for display (and say so).
func fmtMoney(d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	s := money.Plain(d.Decimal)
	i := strings.IndexByte(s, '.')
	if i < 0 {
		return s + ".00"
	}
	if n := len(s) - i - 1; n < 2 {
		s += strings.Repeat("0", 2-n)
	}
	return s
}

func fmtNum(f float64) string {
	if f == 0 {
		return render.Unknown // a size no source gives
	}
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func fmtCount(f float64) string {
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}

// offersTable is offers' listing of rows, their prices dated at now. The
// PRICED column (the on-demand price's date, † when stale) is the last but
// one a narrow terminal drops; csv writes the on-demand and spot prices'
// dates and staleness as columns of their own instead.
func offersTable(l *loadedCatalog, q catalog.Query, rows []catalog.Row, now time.Time, csv bool) *render.Table {
	cur := string(q.Currency)
	t := &render.Table{Columns: []render.Column{
		{Header: "PROVIDER"}, {Header: "INSTANCE"}, {Header: "GPU", Drop: 1}, {Header: "QTY", Right: true},
		{Header: "GPU GiB", Right: true, Short: "GiB", Drop: 5}, {Header: "vCPU", Right: true, Drop: 7}, {Header: "MEM GiB", Right: true, Drop: 8},
		{Header: "LINK", Drop: 6}, {Header: "REGION", Drop: 3}, {Header: cur + "/h", Right: true}, {Header: "SPOT " + cur + "/h", Right: true, Short: "SPOT/h"},
		{Header: map[bool]string{true: "SPOT ", false: ""}[q.Spot] + cur + "/GPU-h", Right: true, Short: "/GPU-h", Drop: 4},
	}, Currency: cur}
	extra := ""
	switch q.Sort {
	case catalog.SortGPUMemory:
		extra = cur + "/GiB-h"
	case catalog.SortBF16:
		extra = cur + "/BF16-PFLOP-h"
	}
	if extra != "" {
		t.Columns = append(t.Columns, render.Column{Header: extra, Right: true, Short: strings.TrimPrefix(extra, cur)})
	}
	if csv {
		t.Columns = append(t.Columns, render.Column{Header: "PRICED"}, render.Column{Header: "STALE"}, render.Column{Header: "SPOT PRICED"}, render.Column{Header: "SPOT STALE"})
	} else {
		t.Columns = append(t.Columns, render.Column{Header: "PRICED", Drop: 2})
	}
	var dates priceDates
	unknown := map[string]int{}
	var priceNotes []string // unknown prices that carry their own reason
	converted := map[money.Currency]bool{}
	retired := map[string]bool{}
	for _, r := range rows {
		o := r.Offering
		region := o.Region
		if region == "" {
			region = "-"
		}
		if r.Zone != "" {
			region += "/" + r.Zone
		}
		price, spot := fmtMoney(r.Price), fmtMoney(r.Spot)
		switch {
		case !r.Price.Valid && o.OnDemand.Note != "": // a price a refresh no longer lists, say
			price = render.Unknown
			priceNotes = append(priceNotes, fmt.Sprintf("? price of %s in %s: %s.", o.InstanceType, o.Region, o.OnDemand.Note))
		case !r.Price.Valid:
			price = render.Unknown
			unknown[o.Provider]++
		}
		if spot == "" {
			spot = render.Unknown
			if p := l.cat.Provider(o.Provider); p != nil && p.SkyPilot != nil && p.SkyPilot.NoSpot {
				spot = render.NotApplied // the provider sells no spot capacity
			}
		}
		if r.Converted {
			converted[o.OnDemand.Currency] = true
			if r.Price.Valid {
				price += "*"
			}
			if r.Spot.Valid {
				spot += "*"
			}
		}
		perGPU := fmtMoney(r.PerGPU)
		if perGPU == "" {
			perGPU = render.Unknown
		}
		link := o.Interconnect
		if link == "" || link == "unknown" {
			link = render.Unknown
		}
		typ := o.InstanceType
		if o.Retired != "" {
			typ += " (retired " + o.Retired + ")"
			retired[o.RetiredSource] = true
		}
		row := []string{o.Provider, typ, o.GPU.Name, fmtCount(o.GPUCount), fmtNum(o.GPUMemoryGiB),
			fmtNum(o.VCPUs), fmtNum(o.MemoryGiB), link, region, price, spot, perGPU}
		if extra != "" {
			v := render.Unknown
			if !math.IsNaN(r.SortValue) {
				v = fmtMoney(decimal.NullDecimal{Decimal: decimal.NewFromFloat(r.SortValue), Valid: true})
			}
			row = append(row, v)
		}
		od := dates.add(l.cat, catalog.ListPrice, o.OnDemand, now)
		var sp *catalog.Age
		if r.Spot.Valid {
			sp = dates.add(l.cat, catalog.SpotPrice, r.SpotCite, now)
		}
		if csv {
			row = append(row, csvDate(od), csvStale(od), csvDate(sp), csvStale(sp))
		} else {
			row = append(row, pricedCell(od))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(rows) == 0 {
		t.Notes = append(t.Notes, "No offering matches. Widen the filters, or list GPUs with 'gpuscout gpus'.")
		if len(q.Regions) > 0 {
			wide := q // the region alone
			wide.GPUs, wide.GPUCount, wide.MinGPUMemoryGiB, wide.MaxPrice, wide.Spot, wide.Interconnects = nil, 0, 0, decimal.NullDecimal{}, false, nil
			if r, err := l.cat.Query(wide); err == nil && len(r) == 0 {
				t.Notes = append(t.Notes, fmt.Sprintf("The region (%s) is known, but the catalog lists no GPU offering there; add yours with --prices FILE.", strings.Join(q.Regions, ", ")))
			}
		}
	}
	// Sizes the provider retired are hidden unless asked for: say how many.
	if !q.IncludeRetired {
		all := q
		all.IncludeRetired = true
		if r, err := l.cat.Query(all); err == nil {
			retired := 0
			for _, x := range r {
				if x.Offering.Retired != "" {
					retired++
				}
			}
			if retired > 0 {
				t.Notes = append(t.Notes, fmt.Sprintf("%d retired size(s) also match; list them with --include-retired.", retired))
			}
		}
	}
	convList := make([]string, 0, len(converted))
	for c := range converted {
		convList = append(convList, string(c))
	}
	sort.Strings(convList)
	for _, cs := range convList {
		c := money.Currency(cs)
		other := c
		if c == money.USD {
			other = q.Currency
		}
		t.Notes = append(t.Notes, fmt.Sprintf("* converted from %s: %s; override with --fx %s=USD_PER_UNIT", c, l.fx.Describe(c, q.Currency), other))
	}
	t.Notes = append(t.Notes, dates.notes("on-demand price's as-of date", "rows")...)
	if len(unknown) > 0 {
		var parts []string
		for _, p := range l.cat.ProviderNames() {
			if n := unknown[p]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", p, n))
			}
		}
		t.Notes = append(t.Notes, fmt.Sprintf("? price: no public list price could be sourced (%s). Supply yours with --prices FILE; 'gpuscout catalog validate --help' shows the format.", strings.Join(parts, ", ")))
	}
	t.Notes = append(t.Notes, slices.Compact(priceNotes)...)
	for _, id := range slices.Sorted(maps.Keys(retired)) {
		t.Notes = append(t.Notes, fmt.Sprintf("(retired DATE): the provider retired the size on that date (%s); shown because of --include-retired, never used by cost or advise.", sourceRef(l, id)))
	}
	if !q.AllRegions && len(rows) > 0 {
		t.Notes = append(t.Notes, "Each instance type in its cheapest region; --all-regions shows all. Sources and dates: -o json, or 'gpuscout catalog info'.")
	}
	for _, a := range l.applied {
		t.Notes = append(t.Notes, "prices from "+a)
	}
	offs := make([]*catalog.Offering, len(rows))
	for i := range rows {
		offs[i] = rows[i].Offering
	}
	t.Notes = append(t.Notes, l.refreshNotes(offs, clock())...)
	t.Legend = true
	return t
}

// sourceRef names a source by id and, where known, its URL.
func sourceRef(l *loadedCatalog, id string) string {
	if s := l.cat.Source(id); s != nil && s.URL != "" {
		return id + " <" + s.URL + ">"
	}
	return id
}
