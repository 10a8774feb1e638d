package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/httpclient"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

// importers lists the registered price importers; tests add a fake one.
var importers = registry.Importers

type refreshFlags struct {
	provider string
	regions  []string
	dryRun   bool
	fromFile string
	format   string
	endpoint string
	verbose  bool
	asOf     string // --as-of: the date of --from-file's prices
}

const refreshLong = `Fetch today's prices from a provider's own price API (with your credentials)
or read a downloaded price file, and keep them in your user catalog, which
offers, cost, spot and advise then use over the embedded snapshot (they say
so under their tables; 'gpuscout offers --no-user-catalog' ignores it). The
clouds gpuscout prices from SkyPilot's catalog (Lambda, Nebius, Vast,
Fluidstack, Seeweb) are refreshed from SkyPilot's hosted catalog (format
skypilot-csv; a downloaded vms.csv needs --provider, as the file does not
say whose it is).

The user catalog lives in your config folder (~/.config/gpuscout/catalog on
Linux, ~/Library/Application Support/gpuscout/catalog on macOS,
%AppData%\gpuscout\catalog on Windows; ` + usercatalog.EnvDir + ` overrides it):
one file set per provider and region set, in the embedded snapshot's format,
with a meta.json naming the feed, the request, the fetch time and what was
left out. A downloaded file's prices are dated by the date the file itself
carries (an AWS offer file's publicationDate, a spot price's timestamp, a
GCP SKU's effectiveTime), never by the day it was read; a format that
carries none (Azure, Alibaba DescribePrice, Tencent, SkyPilot, Spot
Advisor) needs --as-of, the day you downloaded it. Credentials are read
from the environment or the provider's usual config file; they are never
logged or written. A refresh that fails leaves the previous prices in use.
A fetch (or a whole offer file) that no longer lists a type priced before in
a region it lists leaves that price unknown, noted with the last price seen;
other regions keep theirs. Earlier versions are kept for
'gpuscout catalog diff --since 30d'.`

func newCatalogRefreshCmd(e *env) *cobra.Command {
	var f refreshFlags
	cmd := &cobra.Command{
		Use:   "refresh",
		Short: "Fetch a provider's prices from its API (or a downloaded file) into your user catalog",
		Long:  refreshLong,
		Example: `  gpuscout catalog refresh --provider aws --region us-east-1,eu-west-1
  ALIBABA_CLOUD_ACCESS_KEY_ID=... gpuscout catalog refresh --provider alibaba --region cn-hangzhou
  gpuscout catalog refresh --provider lambda
  gpuscout catalog refresh --from-file offer.json --format aws-offer --dry-run
  gpuscout catalog refresh --from-file vms.csv --format skypilot-csv --provider lambda --as-of 2026-11-28`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, e) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.provider, "provider", "", "the provider whose price API to fetch (with --from-file: optional, checked against the format)")
	fl.StringSliceVar(&f.regions, "region", nil, "regions to fetch, comma-separated (default: all the provider's GPU regions); with --from-file at most one, for files that do not name theirs")
	fl.BoolVar(&f.dryRun, "dry-run", false, "show what would change, write nothing")
	fl.StringVar(&f.fromFile, "from-file", "", "read a downloaded price file or API response instead of fetching (needs --format)")
	fl.StringVar(&f.format, "format", "", "the format of --from-file (see --help for the list)")
	fl.StringVar(&f.asOf, "as-of", "", "with --from-file: the day (YYYY-MM-DD) the file's prices were downloaded, for a file that carries no date of its own (and over the one it carries)")
	fl.StringVar(&f.endpoint, "endpoint", "", "replace the provider's API base URL (a private endpoint, or a fake server in tests)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every request (credentials redacted) on stderr")
	cmd.SetHelpFunc(func(c *cobra.Command, a []string) {
		c.Long = refreshLong + "\n\nFormats of --from-file:\n" + formatList()
		c.Parent().HelpFunc()(c, a)
	})
	return cmd
}

// formatList is every registered format, one a line, with the provider
// reading it (or those, for a format several read alike).
func formatList() string {
	var b strings.Builder
	for _, name := range formatNames() {
		provs, title := formatReaders(name)
		fmt.Fprintf(&b, "  %-22s %s: %s\n", name, strings.Join(provs, ", "), title)
	}
	if b.Len() == 0 {
		return "  (no price importer is registered in this build)\n"
	}
	return b.String()
}

// formatNames is the registered formats, each once, in registry order.
func formatNames() []string {
	var out []string
	for _, im := range importers() {
		for _, f := range im.Formats() {
			if !slices.Contains(out, f.Name) {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// formatReaders returns the providers whose importers read the format, and
// its title.
func formatReaders(name string) (providers []string, title string) {
	for _, im := range importers() {
		for _, f := range im.Formats() {
			if f.Name == name {
				providers = append(providers, im.Provider())
				if title == "" {
					title = f.Title
				}
			}
		}
	}
	return providers, title
}

func providerNames() []string {
	var out []string
	for _, im := range importers() {
		out = append(out, im.Provider())
	}
	return out
}

func importerOf(provider string) feeds.Importer {
	for _, im := range importers() {
		if im.Provider() == provider {
			return im
		}
	}
	return nil
}

var regionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`) })

// maxRefreshRegions bounds --region.
const maxRefreshRegions = 64

func (f *refreshFlags) run(cmd *cobra.Command, e *env) error {
	base, err := catalog.Default()
	if err != nil {
		return err
	}
	var im feeds.Importer
	provider := ""
	if f.provider != "" {
		p, err := base.LookupProvider(f.provider)
		if err != nil {
			return usagef("--provider %v", err)
		}
		provider = p.Name
	}
	regions, err := f.resolveRegions(base, provider)
	if err != nil {
		return err
	}
	now := e.now().UTC()
	if f.asOf != "" && f.fromFile == "" {
		return usagef("--as-of %s dates the prices of a --from-file; a fetch is dated by the day it runs", f.asOf)
	}
	meta := usercatalog.Meta{Regions: regions, FetchedAt: now, Version: Version}
	var res *feeds.Result
	dated := "" // how a file's prices are dated
	if f.fromFile != "" || f.format != "" {
		if im, err = f.importerForFormat(provider); err != nil {
			return err
		}
		if len(regions) > 1 {
			return usagef("--region with --from-file: at most one region (the one the file is for), got %d", len(regions))
		}
		meta.Mode, meta.Format, meta.File = usercatalog.ModeFile, f.format, filepath.Base(f.fromFile)
		im = withCatalogSpecs(base, im)
		if res, dated, err = f.parseFile(im, regions, now); err != nil {
			return err
		}
	} else {
		if provider == "" {
			return usagef("catalog refresh needs --provider (one of %s) or --from-file FILE --format F", orNone(providerNames()))
		}
		if im = importerOf(provider); im == nil {
			return usagef("--provider %s: no price importer for it in this build (importers: %s); --prices FILE gives your own prices", provider, orNone(providerNames()))
		}
		meta.Mode = usercatalog.ModeFetch
		im = withCatalogSpecs(base, im)
		if res, err = f.fetch(cmd, e, im, regions, now); err != nil {
			return err
		}
	}
	meta.Provider = im.Provider()
	set, _, err := usercatalog.Build(base, res, meta)
	if err != nil {
		return fmt.Errorf("the refreshed records do not fit the catalog (nothing written): %w", err)
	}
	if meta.Mode == usercatalog.ModeFile && len(regions) == 0 {
		set.Key = f.format + "." + usercatalog.Key(set.Meta.Covers)
	}
	st, err := userStore()
	if err != nil {
		return err
	}
	cur, err := st.Current(base, "")
	if err != nil {
		return fmt.Errorf("user catalog %s: %w", st.Dir, err)
	}
	before, _, err := usercatalog.Overlay(base, cur)
	if err != nil {
		return err
	}
	usercatalog.MarkUnlisted(set, before, cur)
	changes, err := refreshChanges(base, cur, before, set)
	if err != nil {
		return err
	}
	writeRefreshSummary(e.stdout, set, changes)
	if dated != "" {
		fmt.Fprintln(e.stdout, dated)
	}
	if f.dryRun {
		_, err := fmt.Fprintln(e.stdout, "Dry run: nothing written.")
		return err
	}
	dir, err := st.Write(set)
	if err != nil {
		return fmt.Errorf("writing the user catalog (the previous prices stay in use): %w", err)
	}
	_, err = fmt.Fprintf(e.stdout, "Wrote %s\n", dir)
	return err
}

func (f *refreshFlags) resolveRegions(base *catalog.Catalog, provider string) ([]string, error) {
	if len(f.regions) > maxRefreshRegions {
		return nil, usagef("--region: %d regions, at most %d", len(f.regions), maxRefreshRegions)
	}
	var out []string
	for _, r := range f.regions {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		name := ""
		if provider != "" {
			for _, c := range base.ResolveRegion(r) {
				if slices.Contains(base.Regions(provider), c) {
					name = c
					break
				}
			}
		}
		if name == "" { // a region the catalog does not list yet: the API decides
			if !regionRE().MatchString(r) {
				return nil, usagef("--region %q: not a region of %s the catalog knows, nor a region id (lower-case letters, digits and -)", r, orNone([]string{provider}))
			}
			name = r
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

func (f *refreshFlags) importerForFormat(provider string) (feeds.Importer, error) {
	if f.fromFile == "" || f.format == "" {
		return nil, usagef("--from-file and --format go together (formats: %s)", orNone(formatNames()))
	}
	var readers []feeds.Importer
	perProvider := false
	for _, im := range importers() {
		for _, fm := range im.Formats() {
			if fm.Name == f.format {
				readers = append(readers, im)
				perProvider = perProvider || fm.PerProvider
			}
		}
	}
	if len(readers) == 0 {
		return nil, usagef("--format %q is not a known format; allowed: %s", f.format, orNone(formatNames()))
	}
	var names []string
	for _, im := range readers {
		if im.Provider() == provider {
			return im, nil
		}
		names = append(names, im.Provider())
	}
	switch {
	case provider != "" && len(names) == 1:
		return nil, usagef("--format %s is a %s format, not %s's", f.format, names[0], provider)
	case provider != "":
		return nil, usagef("--format %s is read for %s, not %s", f.format, strings.Join(names, ", "), provider)
	case perProvider || len(readers) > 1:
		return nil, usagef("--format %s needs --provider: the file does not say whose it is (one of %s)", f.format, strings.Join(names, ", "))
	}
	return readers[0], nil
}

func (f *refreshFlags) fetch(cmd *cobra.Command, e *env, im feeds.Importer, regions []string, now time.Time) (*feeds.Result, error) {
	o := httpclient.Options{UserAgent: "gpuscout/" + Version + " (+https://github.com/gpuscout/gpuscout)"}
	if f.verbose {
		o.Logf = func(format string, a ...any) { fmt.Fprintf(e.stderr, "refresh: "+format+"\n", a...) }
	}
	client, err := httpclient.New(o)
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	req := feeds.FetchRequest{Regions: regions, HTTP: client, Getenv: getenv, HomeDir: home, Endpoint: f.endpoint,
		Now: func() time.Time { return now }}
	if progressTTY(e.stderr) {
		req.Progress = progressBar(e.stderr, time.Now())
		defer fmt.Fprint(e.stderr, "\r\033[K")
	}
	res, err := im.Fetch(cmd.Context(), req)
	if errors.Is(err, feeds.ErrNoCredentials) {
		help := "see the provider's documentation"
		if ch, ok := im.(feeds.CredentialHelper); ok {
			help = ch.CredentialHelp()
		}
		return nil, usagef("--provider %s: no credentials found; set %s", im.Provider(), help)
	}
	if err != nil {
		return nil, fmt.Errorf("refresh of %s failed, your catalog is unchanged: %w", im.Provider(), err)
	}
	return res, nil
}

// refreshChanges diffs the catalog commands use now (before: base with the
// current sets cur applied) with the one they would use once set is written
// (it replaces the current version of its provider and region set).
func refreshChanges(base *catalog.Catalog, cur []*usercatalog.Set, before *catalog.Catalog, set *usercatalog.Set) ([]usercatalog.Change, error) {
	var next []*usercatalog.Set
	for _, s := range cur {
		if !(s.Meta.Provider == set.Meta.Provider && s.Key == set.Key) {
			next = append(next, s)
		}
	}
	after, _, err := usercatalog.Overlay(base, append(next, set))
	if err != nil {
		return nil, err
	}
	return append(usercatalog.Diff(before.Offerings, after.Offerings, set.Meta.Provider),
		usercatalog.DiffLicenses(before.Licenses, after.Licenses, set.Meta.Provider)...), nil
}

// maxSummaryChanges bounds the changes a refresh lists (catalog diff lists all).
const maxSummaryChanges = 20

func writeRefreshSummary(w io.Writer, set *usercatalog.Set, changes []usercatalog.Change) {
	m := set.Meta
	fmt.Fprintf(w, "%s: %d offerings, %d commitment prices, %d spot bands, %d licence prices imported (regions: %s)\n",
		set.Describe(), m.Counts.Offerings, m.Counts.Commitments, m.Counts.SpotBands, m.Counts.Licenses, orNone(m.Covers))
	if m.Counts.Unlisted > 0 {
		fmt.Fprintf(w, "%d offerings priced before are no longer listed in the regions it lists: their prices are now unknown, each noted with the last price seen.\n", m.Counts.Unlisted)
	}
	if m.Counts.LeftOut > 0 {
		fmt.Fprintf(w, "Left out %d rows:\n", m.Counts.LeftOut)
		reasons := make([]string, 0, len(m.LeftOut))
		for r := range m.LeftOut {
			reasons = append(reasons, r)
		}
		sort.Slice(reasons, func(i, j int) bool {
			if m.LeftOut[reasons[i]] != m.LeftOut[reasons[j]] {
				return m.LeftOut[reasons[i]] > m.LeftOut[reasons[j]]
			}
			return reasons[i] < reasons[j]
		})
		for _, r := range reasons {
			fmt.Fprintf(w, "  %6d  %s\n", m.LeftOut[r], r)
		}
	}
	count := map[string]int{}
	for _, c := range changes {
		count[c.Kind]++
	}
	fmt.Fprintf(w, "Against the prices in use now: %d changed, %d newly priced, %d new offerings, %d no longer listed, %d no longer priced.\n",
		count[usercatalog.Changed], count[usercatalog.Priced], count[usercatalog.New], count[usercatalog.Gone], count[usercatalog.Unknown])
	if len(changes) == 0 {
		return
	}
	t := changeTable(changes[:min(len(changes), maxSummaryChanges)])
	if len(changes) > maxSummaryChanges {
		t.Notes = append(t.Notes, fmt.Sprintf("... and %d more; 'gpuscout catalog diff --provider %s' lists every one once written.", len(changes)-maxSummaryChanges, m.Provider))
	}
	t.Write(w, render.FormatTable, render.Options{})
}

func changeTable(changes []usercatalog.Change) *render.Table {
	t := &render.Table{Columns: []render.Column{
		{Header: "PROVIDER"}, {Header: "INSTANCE"}, {Header: "REGION"}, {Header: "ZONE", Drop: 5}, {Header: "PRICE"}, {Header: "CHANGE", Drop: 3},
		{Header: "OLD /h", Right: true}, {Header: "NEW /h", Right: true}, {Header: "CUR", Drop: 4}, {Header: "CHANGE %", Right: true, Short: "%"},
		{Header: "SOURCE", Drop: 1}, {Header: "DATE", Drop: 2},
	}}
	for _, c := range changes {
		pct := "-"
		if c.Pct.Valid {
			pct = c.Pct.Decimal.StringFixed(1)
			if c.Pct.Decimal.IsPositive() {
				pct = "+" + pct
			}
		}
		cur, src, date := string(c.New.Currency), c.New.Source, c.New.AsOf
		if !c.New.Known {
			cur, src, date = string(c.Old.Currency), c.Old.Source, c.Old.AsOf
		}
		t.Rows = append(t.Rows, []string{c.Provider, c.InstanceType, c.Region, dash(c.Zone), c.Price, c.Kind,
			priceCell(c.Old), priceCell(c.New), cur, pct, src, date})
	}
	return t
}

func priceCell(p catalog.Price) string {
	if !p.Known {
		return render.Unknown
	}
	return money.Plain(p.Value)
}

type diffFlags struct {
	provider string
	since    string
}

type changeJSON struct {
	Provider     string       `json:"provider"`
	InstanceType string       `json:"instance_type"`
	Region       string       `json:"region"`
	Zone         string       `json:"zone"`
	Price        string       `json:"price"`
	Change       string       `json:"change"`
	Old          *json.Number `json:"old"`
	New          *json.Number `json:"new"`
	Currency     string       `json:"currency"`
	ChangePct    *float64     `json:"change_pct"`
	OldSource    string       `json:"old_source"`
	OldAsOf      string       `json:"old_as_of"`
	Source       string       `json:"source"`
	AsOf         string       `json:"as_of"`
}

func newCatalogDiffCmd(e *env) *cobra.Command {
	var f diffFlags
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Price changes your catalog refreshes made, against the embedded snapshot or earlier refreshes",
		Long: `List the prices your catalog refreshes changed: by default against the
embedded snapshot; with --since, against the refreshes kept in your user
catalog's history (the prices as they were that long ago, else the oldest
refresh kept since), so moves over the last 30 days show with --since 30d.`,
		Example: "  gpuscout catalog diff\n  gpuscout catalog diff --provider aws --since 30d -o csv",
		Args:    noArgs,
	}
	getFormat := outputFlag(cmd)
	wide := wideFlag(cmd)
	cmd.Flags().StringVar(&f.provider, "provider", "", "only this provider")
	cmd.Flags().StringVar(&f.since, "since", "", "compare with the refreshes of this long ago (7d, 30d, 3mo) instead of the embedded snapshot")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		base, err := catalog.Default()
		if err != nil {
			return err
		}
		provider := ""
		if f.provider != "" {
			p, err := base.LookupProvider(f.provider)
			if err != nil {
				return usagef("--provider %v", err)
			}
			provider = p.Name
		}
		st, err := userStore()
		if err != nil {
			return err
		}
		var changes []usercatalog.Change
		what := "the embedded snapshot"
		if f.since == "" {
			cur, err := st.Current(base, provider)
			if err != nil {
				return fmt.Errorf("user catalog %s: %w", st.Dir, err)
			}
			over, _, err := usercatalog.Overlay(base, cur)
			if err != nil {
				return err
			}
			changes = append(usercatalog.Diff(base.Offerings, over.Offerings, provider),
				usercatalog.DiffLicenses(base.Licenses, over.Licenses, provider)...)
		} else {
			hours, err := parseHours("since", f.since)
			if err != nil {
				return err
			}
			since := e.now().Add(-time.Duration(hours * float64(time.Hour)))
			what = "your refreshes as of " + since.UTC().Format("2006-01-02")
			if changes, err = historyChanges(st, base, provider, since); err != nil {
				return err
			}
		}
		t := changeTable(changes)
		if len(changes) == 0 {
			t.Notes = append(t.Notes, "No price changed against "+what+". Refresh with 'gpuscout catalog refresh'.")
		} else {
			t.Notes = append(t.Notes, fmt.Sprintf("%d price changes against %s; user catalog %s.", len(changes), what, st.Dir))
		}
		return e.writeFitted(format, t, changesJSON(changes), *wide)
	}
	return cmd
}

// historyChanges diffs, per provider and region set, the current version
// with its baseline version at since.
func historyChanges(st *usercatalog.Store, base *catalog.Catalog, provider string, since time.Time) ([]usercatalog.Change, error) {
	hist, err := st.History(base, provider)
	if err != nil {
		return nil, fmt.Errorf("user catalog %s: %w", st.Dir, err)
	}
	bySet := map[string][]*usercatalog.Set{}
	var order []string
	for _, s := range hist {
		k := s.Meta.Provider + "/" + s.Key
		if bySet[k] == nil {
			order = append(order, k)
		}
		bySet[k] = append(bySet[k], s)
	}
	sort.Strings(order)
	var out []usercatalog.Change
	for _, k := range order {
		vs := bySet[k]
		b := usercatalog.Baseline(vs, since)
		if b == nil {
			continue
		}
		cur := vs[len(vs)-1].Snapshot
		out = append(out, usercatalog.Diff(b.Snapshot.Offerings, cur.Offerings, provider)...)
		out = append(out, usercatalog.DiffLicenses(b.Snapshot.Licenses, cur.Licenses, provider)...)
	}
	return out, nil
}

func changesJSON(changes []usercatalog.Change) []changeJSON {
	out := make([]changeJSON, 0, len(changes))
	num := func(p catalog.Price) *json.Number { // every digit of the price
		if !p.Known {
			return nil
		}
		return money.Number(p.Value)
	}
	for _, c := range changes {
		j := changeJSON{Provider: c.Provider, InstanceType: c.InstanceType, Region: c.Region, Zone: c.Zone, Price: c.Price, Change: c.Kind,
			Old: num(c.Old), New: num(c.New), Currency: string(c.New.Currency), OldSource: c.Old.Source, OldAsOf: c.Old.AsOf, Source: c.New.Source, AsOf: c.New.AsOf}
		if !c.New.Known {
			j.Currency = string(c.Old.Currency)
		}
		if c.Pct.Valid {
			v := c.Pct.Decimal.InexactFloat64()
			j.ChangePct = &v
		}
		out = append(out, j)
	}
	return out
}
