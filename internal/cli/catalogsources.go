package cli

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

func newCatalogSourcesCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "Every source the catalog cites: title, URL or shared/data file, as-of date, licence, what cites it",
		Long: `List every source id in the catalog (prices, commitment prices, spot bands,
instance specs, GPU figures, egress tables, provider facts, licence surcharges)
with its title, where to find it (a URL, or the file under the project's
shared/data the catalog build read), its as-of date and licence, and how many
catalog entries cite it. Sources of prices your catalog refreshes fetched
('gpuscout catalog refresh') are listed too, located by the user catalog
folder that holds them (its meta.json records the feed, the request and the
fetch time); --no-user-catalog lists the embedded catalog's alone.`,
		Example: "  gpuscout catalog sources\n  gpuscout catalog sources -o json",
		Args:    noArgs,
	}
	getFormat := outputFlag(cmd)
	wide := wideFlag(cmd)
	noUser := cmd.Flags().Bool("no-user-catalog", false, "list the embedded catalog's sources only, not those of your catalog refreshes (also: "+usercatalog.EnvIgnore+"=1)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		cat, err := catalog.Default()
		if err != nil {
			return fmt.Errorf("embedded catalog: %w", err)
		}
		l := &loadedCatalog{cat: cat}
		if !*noUser && !usercatalog.Ignored(getenv) {
			if err := l.applyUserCatalog(); err != nil {
				return err
			}
		}
		list := catalogSources(l.cat)
		var notes []string
		if len(l.refreshed) > 0 {
			st, err := userStore()
			if err != nil {
				return err
			}
			n := 0
			for _, a := range l.refreshed {
				dir := filepath.Join(st.Dir, a.Set.Meta.Provider, a.Set.Key, a.Set.Version)
				for _, src := range a.Set.Meta.Sources {
					if list.locate(src.ID, dir) {
						n++
					}
				}
			}
			notes = append(notes, fmt.Sprintf("%d sources from your catalog refreshes, each with the user catalog folder holding its prices (user catalog %s; --no-user-catalog omits them).", n, st.Dir))
		}
		t := list.table()
		t.Notes = append(t.Notes, notes...)
		return e.writeFitted(format, t, list, *wide)
	}
	return cmd
}

// sourceEntry is one source with where to find it and what cites it.
type sourceEntry struct {
	catalog.Source
	Files   []string       `json:"files"`    // shared/data files (the build's feeds and the source's own file)
	CitedBy map[string]int `json:"cited_by"` // kind of catalog entry -> count
	// UserCatalog is the user catalog folder (a refresh's version folder)
	// holding the prices a refreshed source is cited by; "" for the
	// embedded catalog's sources.
	UserCatalog string `json:"user_catalog,omitempty"`
}

// locate records the user catalog folder of a refreshed source; false if
// the list lacks the id.
func (l sourceList) locate(id, dir string) bool {
	for i := range l {
		if l[i].ID == id {
			l[i].UserCatalog = dir
			return true
		}
	}
	return false
}

type sourceList []sourceEntry

// feedFiles maps source ids to the shared/data files the registered feeds
// read their rows from.
func feedFiles() map[string][]string {
	out := map[string][]string{}
	for _, s := range registry.Sources() {
		for _, in := range s.Describe().Reads {
			for _, id := range in.Cites {
				out[id] = append(out[id], in.Path)
			}
		}
	}
	return out
}

// sourceRefs counts, per source id, the catalog entries citing it, by kind.
func sourceRefs(c *catalog.Catalog) map[string]map[string]int {
	refs := map[string]map[string]int{}
	add := func(id, kind string) {
		if id == "" {
			return
		}
		if refs[id] == nil {
			refs[id] = map[string]int{}
		}
		refs[id][kind]++
	}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		add(o.OnDemand.Source, "prices")
		add(o.Spot.Source, "spot prices")
		add(o.SpecSource, "specs")
	}
	for _, x := range c.Commitments {
		add(x.Source, "commitments")
	}
	for _, b := range c.SpotBands {
		add(b.Source, "spot bands")
	}
	for _, g := range c.GPUs {
		for _, id := range g.SourceIDs() {
			add(id, "GPU entries")
		}
	}
	for _, t := range c.EgressTables {
		add(t.Source, "egress tables")
		if t.Free != nil {
			add(t.Free.Source, "egress tables")
		}
	}
	for _, p := range c.Providers {
		add(p.BillingSource, "provider facts")
		if len(p.Schemes) > 0 {
			add(p.SchemesSource, "provider facts")
		}
		if p.Ecosystem != nil {
			add(p.Ecosystem.Source, "provider facts")
		}
	}
	for _, l := range c.Licenses {
		add(l.Source, "licence surcharges")
	}
	return refs
}

func catalogSources(c *catalog.Catalog) sourceList {
	files, refs := feedFiles(), sourceRefs(c)
	out := sourceList{}
	for _, s := range c.Sources {
		e := sourceEntry{Source: s, Files: []string{}, CitedBy: refs[s.ID]}
		if e.CitedBy == nil {
			e.CitedBy = map[string]int{}
		}
		e.Files = append(e.Files, files[s.ID]...)
		if s.File != "" && !slices.Contains(e.Files, s.File) {
			e.Files = append(e.Files, s.File)
		}
		out = append(out, e)
	}
	return out
}

// where says where to find a source: its URL, else its shared/data files
// (-o json gives both).
func (e *sourceEntry) where() string {
	if e.URL != "" {
		return e.URL
	}
	if e.UserCatalog != "" {
		return e.UserCatalog
	}
	var parts []string
	for _, f := range e.Files {
		parts = append(parts, "shared/data/"+f)
	}
	if len(parts) == 0 {
		return render.Unknown // no URL or file locates it
	}
	return strings.Join(parts, " ")
}

func (e *sourceEntry) citedBy() string {
	if len(e.CitedBy) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(e.CitedBy)) {
		parts = append(parts, strconv.Itoa(e.CitedBy[k])+" "+k)
	}
	return strings.Join(parts, ", ")
}

func (l sourceList) table() *render.Table {
	t := &render.Table{Columns: []render.Column{{Header: "SOURCE"}, {Header: "AS OF"}, {Header: "LICENSE", Prose: true, Drop: 3},
		{Header: "CITED BY", Prose: true, Drop: 4}, {Header: "WHERE", Prose: true, Under: true, Drop: 1}, {Header: "TITLE", Prose: true, Drop: 2}}}
	for i := range l {
		e := &l[i]
		asOf, lic := e.AsOf, e.License
		if asOf == "" {
			asOf = render.Unknown
		}
		if lic == "" {
			lic = render.Unknown // no licence stated by what we read
		}
		t.Rows = append(t.Rows, []string{e.ID, asOf, lic, e.citedBy(), e.where(), e.Title})
	}
	t.Legend = true
	return t
}
