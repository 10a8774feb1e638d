// Package usercatalog is the user-level catalog `gpuscout catalog refresh`
// writes: prices fetched from the providers' own APIs (or parsed from their
// downloaded files) with the user's credentials, kept under the user's config
// folder (os.UserConfigDir()/gpuscout/catalog, or GPUSCOUT_CATALOG_DIR), one
// file set per provider and region set in the embedded snapshot's own format
// (offerings.csv, commitments.csv, spot_bands.csv, left_out.csv), the OS
// licence surcharges the feed priced (licenses.csv; absent in sets written
// before it existed) and a
// meta.json saying where the records came from (importer, request
// parameters, fetch time, gpuscout version, counts, rows left out).
//
// Writes are atomic: a refresh writes a new version folder under a temporary
// name, renames it into place, then points the set's CURRENT file at it (also
// written to a temporary file and renamed), so a refresh that fails half-way
// leaves the previous version in use. Earlier versions are kept (at most
// Store.Keep per set) for `catalog diff --since`.
//
// Overlay applies the current sets to a catalog: refreshed offerings replace
// the catalog's offerings of the same provider, instance type and region; new
// ones are added; every other offering stays. It is the one place that
// decides what a refresh changes in the catalog commands use.
//
// # Partial refresh policy
//
// A feed speaks only for the price kinds it has, in the regions it has them.
// The kinds are: on-demand prices, spot prices, spot bands, commitment
// prices of each model (reserved, savings-plan, cud, subscription, ...
// apart) and licence surcharges of each licence (windows). A set covers a
// kind in a provider's region when it has at least one record of that kind
// there: an offering with a known price of it, a commitment of that model, a
// band, a surcharge of that licence. (Coverage is per region: a multi-region
// refresh whose feed has spot prices in one region and none in another
// leaves the other region's spot prices as they were.) A set lists a
// provider/type/region when it has any record of it (Set.Prices). Then, for
// each provider/type/region the set lists:
//
//   - a kind the set covers in the region is the feed's alone: its price
//     there (or none) replaces the catalog's; a listed offering the feed left
//     without a price of a covered kind has none (the price is gone, "no
//     longer priced" in catalog diff);
//   - a kind the set does not cover in the region keeps the catalog's price,
//     with the catalog's own source and date: a GCP SKU file without
//     Preemptible SKUs leaves the spot prices as they were, so an offering
//     shows its refreshed on-demand price and its older spot price, each
//     dated. For offering prices the kept price is the replaced row's of the
//     same zone, else the region's row without a zone, else (a zone the
//     catalog did not have) the price all the replaced rows agree on; a
//     refreshed offering the catalog did not have keeps nothing.
//
// Zones are matched by name as the rows give them; AWS rows carry zone ids
// (use1-az1), which the AWS importer maps its spot prices' zone names to.
// A refreshed region row (no zone) whose catalog rows are per zone becomes
// one row per zone, each with the refreshed prices of the covered kinds and
// its zone's own price of the others, where the set keeps a kind or has zone
// rows of its own there (AWS: a region-wide on-demand price beside per-zone
// spot prices); the set's zone rows take a price they lack from its region
// row. A zone the catalog lists that the set's zone rows do not is thus kept,
// with the set's region-wide prices.
//
// A provider/type/region the set does not list keeps all its prices: a
// refresh of some regions or types says nothing about the others. The one
// exception is a listing (a whole offer file, a fetch of a region's whole
// list: Meta.Lists): there, an offering priced before in a region and kind
// the set covers that the set no longer lists is no longer sold, and
// MarkUnlisted, when the set is made, gives the set that offering with the
// price unknown and a note of the last price seen ("not listed by your
// catalog refresh of DATE; last priced P as of DATE"), so that no command
// keeps serving the old price as current. A refresh of one region (or a
// feed with no price of a kind) never unlists another region's (or kind's)
// prices.
package usercatalog

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds"
)

// EnvDir names the environment variable that overrides the folder.
const EnvDir = "GPUSCOUT_CATALOG_DIR"

// EnvIgnore, when set to a non-empty value other than 0 or false, makes the
// commands ignore the user catalog (like --no-user-catalog).
const EnvIgnore = "GPUSCOUT_NO_USER_CATALOG"

// Dir returns the user catalog folder: $GPUSCOUT_CATALOG_DIR, else
// os.UserConfigDir()/gpuscout/catalog.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv(EnvDir); d != "" {
		return d, nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config folder (%v); set %s", err, EnvDir)
	}
	return filepath.Join(base, "gpuscout", "catalog"), nil
}

// Ignored reports whether EnvIgnore asks to ignore the user catalog.
func Ignored(getenv func(string) string) bool {
	v := strings.ToLower(strings.TrimSpace(getenv(EnvIgnore)))
	return v != "" && v != "0" && v != "false" && v != "no"
}

// Meta is a file set's meta.json: where its records came from. It never
// holds a credential.
type Meta struct {
	Provider string `json:"provider"`
	// Importer names what produced the records: "fetch" (the provider's
	// API) or "file" (a downloaded response read offline).
	Mode      string    `json:"mode"`
	Regions   []string  `json:"regions,omitempty"` // regions asked for (none: all the provider's GPU regions)
	Format    string    `json:"format,omitempty"`  // the offline format (--format)
	File      string    `json:"file,omitempty"`    // the file's base name (--from-file)
	FetchedAt time.Time `json:"fetched_at"`
	Version   string    `json:"gpuscout_version"`
	// Covers lists the regions the records price.
	Covers []string `json:"covers"`
	Counts Counts   `json:"counts"`
	// LeftOut counts the rows left out (by the importer or the build), by
	// reason; LeftOutRows keeps the first MaxLeftOutRows of them.
	LeftOut     map[string]int  `json:"left_out_by_reason,omitempty"`
	LeftOutRows []feeds.LeftOut `json:"left_out_rows,omitempty"`
	// Sources are the source entries the records cite, added to the
	// catalog's sources when the set is applied.
	Sources []catalog.Source `json:"sources"`
	// Lists says the records list every type the provider sells in the
	// regions they price (feeds.Result.Lists); Unlisted are the prices in
	// use before the refresh that it no longer lists (MarkUnlisted).
	Lists    bool       `json:"lists,omitempty"`
	Unlisted []Unlisted `json:"unlisted,omitempty"`
}

// Counts are the records of a set.
type Counts struct {
	Offerings   int `json:"offerings"`
	Commitments int `json:"commitments"`
	SpotBands   int `json:"spot_bands"`
	Licenses    int `json:"licenses,omitempty"`
	LeftOut     int `json:"left_out"`
	// Unlisted counts the provider/type/region offerings priced before the
	// refresh that it no longer lists (their prices now unknown); they are
	// not among Offerings.
	Unlisted int `json:"unlisted,omitempty"`
}

// MaxLeftOutRows bounds the left-out rows a meta.json keeps verbatim.
const MaxLeftOutRows = 200

// Set is one provider and region set's records: a version of it.
type Set struct {
	Meta     Meta
	Snapshot *catalog.Snapshot
	// Key names the set's folder ("us-east-1+eu-west-1", "all");
	// Version the version folder (the fetch time, 20261130T120000Z).
	Key, Version string

	priced map[rowKey]bool // see Prices
}

// Key returns the set key of a provider's region set: the regions sorted
// and joined with "+", "all" for none; characters other than letters,
// digits, '.', '_', '+' and '-' (or a leading '.') become '_'. A long set is shortened with a hash
// of its full name so two sets never share a folder.
func Key(regions []string) string {
	if len(regions) == 0 {
		return "all"
	}
	rs := append([]string(nil), regions...)
	sort.Strings(rs)
	k := unsafeChars().ReplaceAllString(strings.Join(rs, "+"), "_")
	if strings.HasPrefix(k, ".") { // never a hidden folder, "." or ".."
		k = "_" + k[1:]
	}
	if len(k) > 80 {
		k = fmt.Sprintf("%s-and-%d-more-%08x", k[:40], len(rs)-1, fnv32(strings.Join(rs, "+")))
	}
	return k
}

var unsafeChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._+-]`) })

func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// Age says how old the set's prices are at now, in whole days.
func (s *Set) Age(now time.Time) int {
	d := now.Sub(s.Meta.FetchedAt)
	if d < 0 {
		return 0
	}
	return int(d.Hours() / 24)
}

// Describe is the set in a phrase: "aws us-east-1, eu-west-1".
func (s *Set) Describe() string {
	regions := s.Meta.Covers
	if len(regions) == 0 {
		regions = s.Meta.Regions
	}
	if len(regions) == 0 {
		return s.Meta.Provider
	}
	if len(regions) > 4 {
		return fmt.Sprintf("%s %s and %d more regions", s.Meta.Provider, strings.Join(regions[:3], ", "), len(regions)-3)
	}
	return s.Meta.Provider + " " + strings.Join(regions, ", ")
}
