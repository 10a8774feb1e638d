package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/catalog/build"
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/pricefile"
	"github.com/gpuscout/gpuscout/internal/render"
)

func newCatalogCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Inspect, validate and rebuild the price catalog",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCatalogInfoCmd(e), newCatalogSourcesCmd(e), newCatalogValidateCmd(e), newCatalogBuildCmd(e), newCatalogRefreshCmd(e), newCatalogDiffCmd(e))
	return cmd
}

func newCatalogInfoCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "info",
		Short: "Providers, row counts, sources and as-of dates of the catalog, and the types the build left out",
		Args:  noArgs,
	}
	getFormat := outputFlag(cmd)
	wide := wideFlag(cmd)
	var cf catalogFlags
	cf.register(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		l, err := cf.load()
		if err != nil {
			return err
		}
		info := catalogInfo(l, e.now())
		return e.writeFitted(format, info.table(), info, *wide)
	}
	return cmd
}

type providerInfo struct {
	Name         string   `json:"name"`
	DisplayName  string   `json:"display_name"`
	Currency     string   `json:"currency"`
	Billing      string   `json:"billing"`
	Offerings    int      `json:"offerings"`
	Priced       int      `json:"priced"`
	Spot         int      `json:"spot"`
	Commitments  int      `json:"commitment_prices"`
	Regions      []string `json:"regions"`
	ChinaRegions []string `json:"china_regions"`
	PriceNote    string   `json:"price_note,omitempty"`
}

type sourceInfo struct {
	catalog.Source
	PriceRows int `json:"price_rows"`
}

type infoJSON struct {
	GPUs      int            `json:"gpus"`
	Offerings int            `json:"offerings"`
	Providers []providerInfo `json:"providers"`
	Sources   []sourceInfo   `json:"sources"`
	FX        string         `json:"fx"`
	Applied   []string       `json:"applied_price_files,omitempty"`
	// LeftOut are instance types a price feed lists that the catalog build left out, and why.
	LeftOut []catalog.LeftOutType `json:"left_out"`
	// Coverage says, in sentences computed from the catalog, what it prices
	// and what it leaves unknown; Warnings what a user should act on.
	Coverage []string `json:"coverage"`
	Warnings []string `json:"warnings"`
	// Refreshed are the user catalog's file sets in use ('catalog refresh').
	Refreshed []refreshInfo `json:"refreshed,omitempty"`
}

// fxStaleDays is the age of the built-in exchange rate above which catalog
// info warns: prices converted with it may be off by the rate's drift since.
const fxStaleDays = 90

func catalogInfo(l *loadedCatalog, now time.Time) *infoJSON {
	c := l.cat
	info := &infoJSON{GPUs: len(c.GPUs), Offerings: len(c.Offerings), FX: l.fx.Describe(money.USD, money.CNY), Applied: l.applied,
		LeftOut: append([]catalog.LeftOutType{}, c.LeftOut...)}
	rows := map[string]int{}
	for _, p := range c.Providers {
		pi := providerInfo{Name: p.Name, DisplayName: p.DisplayName, Currency: p.Currency, Billing: p.Billing, PriceNote: p.PriceNote, Regions: []string{}, ChinaRegions: []string{}}
		regions, china := map[string]bool{}, map[string]bool{}
		for i := range c.Offerings {
			o := &c.Offerings[i]
			if o.Provider != p.Name {
				continue
			}
			pi.Offerings++
			if o.OnDemand.Known {
				pi.Priced++
			}
			if o.Spot.Known {
				pi.Spot++
			}
			regions[o.Region] = true
			if o.China {
				china[o.Region] = true
			}
		}
		for _, x := range c.Commitments {
			if x.Provider == p.Name {
				pi.Commitments++
			}
		}
		pi.Regions, pi.ChinaRegions = keys(regions), keys(china)
		info.Providers = append(info.Providers, pi)
	}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		seen := map[string]bool{}
		for _, s := range []string{o.OnDemand.Source, o.Spot.Source} {
			if s != "" && !seen[s] {
				rows[s]++
				seen[s] = true
			}
		}
	}
	for _, x := range c.Commitments {
		rows[x.Source]++
	}
	for _, b := range c.SpotBands {
		rows[b.Source]++
	}
	for _, s := range c.Sources {
		info.Sources = append(info.Sources, sourceInfo{Source: s, PriceRows: rows[s.ID]})
	}
	info.Coverage, info.Warnings = coverage(c, info.Providers, l, now)
	info.Refreshed = refreshInfos(l, now)
	spotRows := map[string]int{} // the spot prices each source gives
	for i := range c.Offerings {
		if sp := c.Offerings[i].Spot; sp.Known {
			spotRows[sp.Source]++
		}
	}
	for _, src := range info.Sources {
		if src.PriceRows == 0 {
			continue
		}
		date := catalog.ReadDate(src.AsOf)
		if a := catalog.PriceAge(catalog.ListPrice, date, now); a.Stale {
			info.Warnings = append(info.Warnings, staleSourceWarning(src.PriceRows, "prices or spot bands", src.ID, a))
		} else if a := catalog.PriceAge(catalog.SpotPrice, date, now); a.Stale && spotRows[src.ID] > 0 {
			info.Warnings = append(info.Warnings, staleSourceWarning(spotRows[src.ID], "spot prices", src.ID, a))
		}
	}
	return info
}

// staleSourceWarning is catalog info's warning for n prices of a source
// past the age rule (catalog.PriceAge): its date and age, or for a source
// dated only by year or month, how old its prices may be at most.
func staleSourceWarning(n int, what, id string, a catalog.Age) string {
	dated := fmt.Sprintf("dated %s (%s)", a.Date, a.Ago())
	if a.Date.Partial() {
		unit := "year"
		if a.Date.Precision == catalog.MonthOnly {
			unit = "month"
		}
		dated = fmt.Sprintf("dated only by %s (%s): up to %d days old, so possibly older than %s;", unit, a.Date.ISO(), a.Days, a.Kind.Limit())
	} else if a.Kind == catalog.SpotPrice {
		dated += fmt.Sprintf(", older than %s (spot prices move far faster than list prices):", a.Kind.Limit())
	} else {
		dated += ":"
	}
	return fmt.Sprintf("%d %s come from %s, %s check them against the provider's console.", n, what, id, dated)
}

// coverage describes what the catalog prices, from the catalog itself.
func coverage(c *catalog.Catalog, provs []providerInfo, l *loadedCatalog, now time.Time) (cov, warn []string) {
	var none, partial, spot, commit, noCommit, blocks []string
	for _, p := range provs {
		switch {
		case p.Offerings > 0 && p.Priced == 0:
			none = append(none, p.Name)
		case p.Priced < p.Offerings:
			partial = append(partial, fmt.Sprintf("%s %d of %d", p.Name, p.Priced, p.Offerings))
		}
		if p.Spot > 0 {
			spot = append(spot, fmt.Sprintf("%s (%d)", p.Name, p.Spot))
		}
		types, blockTypes, models := map[string]bool{}, map[string]bool{}, map[string]bool{}
		schemePrices, blockPrices := 0, 0
		for _, x := range c.Commitments {
			switch {
			case x.Provider != p.Name:
			case x.IsScheme():
				types[x.InstanceType] = true
				models[x.Model] = true
				schemePrices++
			default:
				blockTypes[x.InstanceType] = true
				blockPrices++
			}
		}
		if blockPrices > 0 {
			blocks = append(blocks, fmt.Sprintf("%s (%d prices for %s)", p.Name, blockPrices, strings.Join(keys(blockTypes), ", ")))
		}
		if pr := c.Provider(p.Name); pr != nil && len(pr.Schemes) > 0 {
			if len(types) > 0 {
				commit = append(commit, fmt.Sprintf("%s (%d prices for %s)", p.Name, schemePrices, strings.Join(keys(types), ", ")))
			}
			var unpriced []string // the schemes it sells that no price covers
			for _, s := range pr.Schemes {
				if !models[s.Model] {
					unpriced = append(unpriced, s.Name)
				}
			}
			if len(unpriced) > 0 {
				noCommit = append(noCommit, p.Name+" ("+strings.Join(unpriced, ", ")+")")
			}
		}
	}
	if len(none) > 0 {
		cov = append(cov, "No on-demand price sourced (every price unknown): "+strings.Join(none, ", ")+"; give yours with --prices FILE (examples/prices-china.yaml).")
	}
	if len(partial) > 0 {
		cov = append(cov, "Partly priced (offerings with an on-demand price): "+strings.Join(partial, ", ")+".")
	}
	cov = append(cov, "Spot prices: "+orNone(spot)+"; interruption bands: AWS Spot Advisor for "+strconv.Itoa(len(c.SpotBands))+" AWS types, elsewhere "+catalog.DefaultSpotBand+" a month, marked as an assumption ("+catalog.DefaultSpotBandBasis+").")
	cov = append(cov, "Commitment prices: "+orNone(commit)+"; sold but not priced (cost lists them as unknown): "+orNone(noCommit)+".")
	if len(blocks) > 0 {
		cov = append(cov, "Capacity Block prices (GPUs reserved for a job's days, paid up front): "+strings.Join(blocks, ", ")+".")
	}
	retired := 0
	for i := range c.Offerings {
		if c.Offerings[i].Retired != "" {
			retired++
		}
	}
	if retired > 0 {
		cov = append(cov, fmt.Sprintf("Retired sizes kept for reference and left out of offers, cost and advise: %d (offers --include-retired).", retired))
	}
	if fixed, err := time.Parse("2006-01-02", money.DefaultAsOf); err == nil && len(l.fxOverrides) == 0 {
		if days := int(now.Sub(fixed).Hours() / 24); days > fxStaleDays {
			warn = append(warn, fmt.Sprintf("The built-in exchange rate is from %s, %d days ago: prices converted between USD, CNY and EUR use it. Pass today's with --fx CNY=USD_PER_CNY.", money.DefaultAsOf, days))
		}
	}
	return cov, warn
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func keys(m map[string]bool) []string {
	delete(m, "")
	return slices.Sorted(maps.Keys(m))
}

func (info *infoJSON) table() *render.Table {
	t := &render.Table{Columns: []render.Column{
		{Header: "PROVIDER"}, {Header: "CURRENCY", Short: "CUR", Drop: 1}, {Header: "OFFERINGS", Right: true, Short: "OFFERS"}, {Header: "PRICED", Right: true},
		{Header: "SPOT", Right: true}, {Header: "COMMIT", Right: true}, {Header: "REGIONS", Right: true, Drop: 2}, {Header: "CHINA REGIONS", Short: "CHINA", Drop: 3},
		{Header: "BILLING", Prose: true, Drop: 4},
	}}
	for _, p := range info.Providers {
		billing := p.Billing
		if billing == "" {
			billing = render.Unknown
		}
		china := strings.Join(p.ChinaRegions, "; ")
		if china == "" {
			china = "-"
		}
		t.Rows = append(t.Rows, []string{p.Name, p.Currency, strconv.Itoa(p.Offerings), strconv.Itoa(p.Priced), strconv.Itoa(p.Spot),
			strconv.Itoa(p.Commitments), strconv.Itoa(len(p.Regions)), china, billing})
	}
	t.Notes = append(t.Notes, "", fmt.Sprintf("%d GPUs in the spec table, %d offerings. Exchange rate: %s.", info.GPUs, info.Offerings, info.FX))
	for _, w := range info.Warnings {
		t.Notes = append(t.Notes, "WARNING: "+w)
	}
	t.Notes = append(t.Notes, "", "Coverage:")
	for _, c := range info.Coverage {
		t.Notes = append(t.Notes, "  "+c)
	}
	t.Notes = append(t.Notes, "", "Sources (rows of prices, commitment prices and spot bands; as of):")
	for _, s := range info.Sources {
		asOf := catalog.ReadDate(s.AsOf).String() // "2021 (day unknown)" for a page dated only by year
		if asOf == "" {
			asOf = render.Unknown
		}
		line := fmt.Sprintf("  %-30s %4d  %-10s  %s", s.ID, s.PriceRows, asOf, s.Title)
		if s.URL != "" {
			line += " <" + s.URL + ">"
		}
		t.Notes = append(t.Notes, line)
	}
	if len(info.LeftOut) > 0 {
		t.Notes = append(t.Notes, "", "Left out by the catalog build (listed by a price feed, not in the catalog):")
		for _, l := range info.LeftOut {
			t.Notes = append(t.Notes, fmt.Sprintf("  %s %s (%s; %s): %s", l.Provider, l.InstanceType, strings.Join(l.Regions, "; "), l.Source, l.Reason))
		}
	}
	for _, a := range info.Applied {
		t.Notes = append(t.Notes, "prices from "+a)
	}
	t.Notes = append(t.Notes, refreshLines(info.Refreshed)...)
	t.Legend = true
	return t
}

const priceFileHelp = `Check a user price file and show what it would change.

A price file is YAML. Entries override catalog prices (a price from your
console or contract), discount them, or add offerings the catalog lacks:

  currency: USD            # default currency of entries (default: the provider's)
  as_of: 2026-11-01        # default date of entries
  note: 2026 EDP contract  # default note
  fx:                      # exchange rates, USD per unit (like --fx CNY=0.138)
    CNY: 0.138
  prices:
    - provider: aws                      # override one instance type
      instance_type: p4d.24xlarge
      region: us-east-1                  # optional: all regions when omitted
      price: 15.37                       # on-demand per hour
      spot_price: 7.10                   # optional
    - provider: gcp                      # a discount off every catalog price of a provider
      discount: 20%
    - provider: alibaba                  # price an offering the catalog lists as unknown
      instance_type: ecs.gn7i-c8g1.2xlarge
      region: 华东1
      price: 9.80
      currency: CNY
    - provider: tencent                  # add an offering the catalog lacks
      instance_type: GN7.5XLARGE80
      region: ap-shanghai
      gpu: T4
      gpu_count: 1
      vcpus: 20
      memory_gib: 80
      price: 8.5
      currency: CNY
  commitments:                           # commitment quotes (gpuscout cost prices them)
    - provider: alibaba                  # 包年包月: a year paid in full upfront
      instance_type: ecs.gn7i-c8g1.2xlarge
      region: cn-hangzhou
      model: subscription                # reserved, savings-plan, commitment, subscription
      term: 1y                           # 1y, 3y, 1mo, ...
      payment: all-upfront               # no-upfront, partial-upfront, all-upfront, monthly
      upfront: 52000                     # and/or hourly: (per term hour), monthly: (per month)
      currency: CNY

Errors name the file, line, field and value; the exit code is then 2.`

func newCatalogValidateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "validate FILE",
		Short:   "Check a user price file (YAML) against the catalog",
		Long:    priceFileHelp,
		Example: "  gpuscout catalog validate examples/prices-china.yaml\n  gpuscout offers --prices examples/prices-china.yaml --gpu A10",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("catalog validate takes one price file, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			pf, err := pricefile.Load(args[0])
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return usagef("%s: no such file", args[0])
				}
				return asUsage(err)
			}
			cat, err := catalog.Default()
			if err != nil {
				return err
			}
			sum, err := pricefile.Apply(cat, money.DefaultFX().Clone(), pf)
			if err != nil {
				return asUsage(err)
			}
			_, err = fmt.Fprintf(e.stdout, "%s: ok, %d entries, which change %d catalog prices (overridden), %d discounted, %d offerings added, %d commitment prices, %d spot bands, %d exchange rates\n",
				args[0], len(pf.Entries)+len(pf.Commitments), sum.Overridden, sum.Discounted, sum.Added, sum.Committed, sum.SpotBands, len(pf.FX))
			return err
		},
	}
}

func newCatalogBuildCmd(e *env) *cobra.Command {
	var in build.Inputs
	var out string
	var check bool
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Regenerate the embedded catalog snapshot from shared/data and data/curated",
		Long: `Regenerate the embedded snapshot (internal/catalog/data/offerings.csv,
commitments.csv, spot_bands.csv, left_out.csv, and catalog.bin: the whole
catalog, these and the curated YAML tables, parsed and stored in the binary
form gpuscout decodes at start-up) from the registered price feeds
(internal/feeds/registry: SkyPilot catalog CSVs, the AWS on-demand table, AWS
Price List files, the GCP price excerpt, AWS Spot Advisor data, all in
shared/data) and gpuscout's curated instance files (data/curated). Rows a feed
or the build leaves out are reported on stderr with the reason; the instance
types left out are kept in left_out.csv ('gpuscout catalog info' lists them).
Run it from the repository root; 'go generate ./internal/catalog' runs the
same. With --check it only reports whether the embedded snapshot is up to date
(exit 1 if not).`,
		Example: "  gpuscout catalog build --shared ../shared/data --curated data/curated --out internal/catalog/data",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			specs, err := catalog.ParseSpecs(catalog.Embedded())
			if err != nil {
				return err
			}
			if _, err := os.Stat(in.Shared); err != nil {
				return usagef("--shared %s: %v (the folder holding skypilot-catalog/, aws-ondemand/, price-feeds/)", in.Shared, err)
			}
			snap, rep, err := build.Build(specs, in)
			if err != nil {
				// A feed's file or a curated file is refused (named, with its
				// line and value): bad input, and nothing is written.
				return usagef("%v; the catalog in %s is unchanged", err, out)
			}
			files, err := snap.EncodeEmbedded() // the CSV files and catalog.bin, decoded at start-up
			if err != nil {
				return err
			}
			writeLeftOut(e, rep.LeftOut)
			for _, s := range rep.Unpriced {
				fmt.Fprintln(e.stderr, "unpriced:", s)
			}
			for _, s := range rep.Checks {
				fmt.Fprintln(e.stderr, "cross-check:", s)
			}
			ids := slices.Sorted(maps.Keys(rep.Rows))
			for _, id := range ids {
				name := id
				if name == "" {
					name = "(price unknown)"
				}
				fmt.Fprintf(e.stderr, "%5d offerings priced by %s\n", rep.Rows[id], name)
			}
			summary := fmt.Sprintf("%d offerings, %d commitment prices, %d spot bands", len(snap.Offerings), len(snap.Commitments), len(snap.SpotBands))
			if check {
				if stale := catalog.Stale(files); len(stale) > 0 {
					return fmt.Errorf("the embedded snapshot is out of date (%s): run 'go generate ./internal/catalog'", strings.Join(stale, ", "))
				}
				fmt.Fprintf(e.stdout, "embedded snapshot is up to date (%s)\n", summary)
				return nil
			}
			if err := catalog.WriteDir(out, files); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s: %s\n", out, summary)
			return nil
		},
	}
	cmd.Flags().StringVar(&in.Shared, "shared", "../shared/data", "folder of the source price data")
	cmd.Flags().StringVar(&in.Curated, "curated", "data/curated", "folder of gpuscout's curated instance files")
	cmd.Flags().StringVar(&out, "out", "internal/catalog/data", "folder to write the snapshot files into")
	cmd.Flags().BoolVar(&check, "check", false, "only check that the embedded snapshot equals a fresh build")
	return cmd
}

// writeLeftOut prints the rows the build left out: each one where a reason
// covers a few rows, else the reason once with a count and an example.
func writeLeftOut(e *env, ls []feeds.LeftOut) {
	byReason := map[string][]feeds.LeftOut{}
	var order []string
	for _, l := range ls {
		if byReason[l.Reason] == nil {
			order = append(order, l.Reason)
		}
		byReason[l.Reason] = append(byReason[l.Reason], l)
	}
	for _, r := range order {
		rows := byReason[r]
		if len(rows) > 3 {
			fmt.Fprintf(e.stderr, "left out: %d rows: %s (e.g. %s %s)\n", len(rows), r, rows[0].Origin, rows[0].What)
			continue
		}
		for _, l := range rows {
			fmt.Fprintln(e.stderr, "left out:", l)
		}
	}
}
