package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

// getenv reads the environment (the user catalog folder, credentials).
var getenv = os.Getenv

// userStore is the user catalog folder 'catalog refresh' writes.
func userStore() (*usercatalog.Store, error) {
	dir, err := usercatalog.Dir(getenv)
	if err != nil {
		return nil, err
	}
	return &usercatalog.Store{Dir: dir}, nil
}

// applyUserCatalog overlays the current file sets of the user catalog on
// l.cat: the one place commands get refreshed prices from.
func (l *loadedCatalog) applyUserCatalog() error {
	st, err := userStore()
	if err != nil {
		return err
	}
	sets, err := st.Current(l.cat, "")
	if err != nil {
		return fmt.Errorf("user catalog %s: %w (ignore it with --no-user-catalog or %s=1; refresh it with 'gpuscout catalog refresh')", st.Dir, err, usercatalog.EnvIgnore)
	}
	if len(sets) == 0 {
		return nil
	}
	cat, applied, err := usercatalog.Overlay(l.cat, sets)
	if err != nil {
		return fmt.Errorf("%w (ignore it with --no-user-catalog or %s=1)", err, usercatalog.EnvIgnore)
	}
	l.cat, l.refreshed = cat, applied
	return nil
}

// refreshNotes are the lines saying which shown prices came from a catalog
// refresh, and how old they are: one per refresh that prices one of offs.
func (l *loadedCatalog) refreshNotes(offs []*catalog.Offering, now time.Time) []string {
	var out []string
	for _, a := range l.refreshed {
		for _, o := range offs {
			if o != nil && a.Set.Prices(o.Provider, o.InstanceType, o.Region) {
				out = append(out, a.Note(now))
				break
			}
		}
	}
	return out
}

// refreshInfo is one refreshed file set in `catalog info`.
type refreshInfo struct {
	Provider    string    `json:"provider"`
	Regions     []string  `json:"regions"`
	Mode        string    `json:"mode"`
	Format      string    `json:"format,omitempty"`
	File        string    `json:"file,omitempty"`
	FetchedAt   time.Time `json:"fetched_at"`
	AgeDays     int       `json:"age_days"`
	Sources     []string  `json:"sources"`
	Offerings   int       `json:"offerings"`
	Replaced    int       `json:"replaced"`
	Added       int       `json:"added"`
	Commitments int       `json:"commitments"`
	SpotBands   int       `json:"spot_bands"`
	Licenses    int       `json:"licenses"`
	LeftOut     int       `json:"left_out"`
	Unlisted    int       `json:"unlisted,omitempty"` // offerings priced before that it no longer lists (now unknown)
	Version     string    `json:"gpuscout_version"`
	Set         string    `json:"set"` // provider/key/version under the user catalog folder
}

func refreshInfos(l *loadedCatalog, now time.Time) []refreshInfo {
	var out []refreshInfo
	for _, a := range l.refreshed {
		m := a.Set.Meta
		ri := refreshInfo{Provider: m.Provider, Regions: m.Covers, Mode: m.Mode, Format: m.Format, File: m.File, FetchedAt: m.FetchedAt.UTC(),
			AgeDays: a.Set.Age(now), Offerings: m.Counts.Offerings, Replaced: a.Replaced, Added: a.Added, Commitments: a.Commitments,
			SpotBands: a.SpotBands, Licenses: a.Licenses, LeftOut: m.Counts.LeftOut, Unlisted: m.Counts.Unlisted, Version: m.Version, Set: m.Provider + "/" + a.Set.Key + "/" + a.Set.Version}
		for _, s := range m.Sources {
			ri.Sources = append(ri.Sources, s.ID)
		}
		out = append(out, ri)
	}
	return out
}

func refreshLines(rs []refreshInfo) []string {
	if len(rs) == 0 {
		return nil
	}
	out := []string{"", "From your catalog refreshes (gpuscout catalog refresh; --no-user-catalog ignores them):"}
	for _, r := range rs {
		how := "fetched from the provider's API"
		if r.Mode == usercatalog.ModeFile {
			how = fmt.Sprintf("read from %s (%s)", r.File, r.Format)
		}
		lic := ""
		if r.Licenses > 0 {
			lic = fmt.Sprintf(", %d licence prices", r.Licenses)
		}
		if r.Unlisted > 0 {
			lic += fmt.Sprintf(", %d no longer listed (prices now unknown)", r.Unlisted)
		}
		out = append(out, fmt.Sprintf("  %s %s: %d offerings (%d replaced, %d added), %d commitment prices, %d spot bands%s, %d rows left out; %s %s (%s); %s",
			r.Provider, orNone(r.Regions), r.Offerings, r.Replaced, r.Added, r.Commitments, r.SpotBands, lic, r.LeftOut,
			how, r.FetchedAt.Format("2006-01-02 15:04 UTC"), ageText(r.AgeDays), r.Set))
	}
	return out
}

func ageText(days int) string {
	switch days {
	case 0:
		return "today"
	case 1:
		return "1 day old"
	}
	return fmt.Sprintf("%d days old", days)
}
