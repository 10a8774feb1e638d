package usercatalog

import (
	"fmt"
	"slices"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Unlisted is a price that was in use before a refresh and that the
// refresh, a listing of its regions (Meta.Lists), no longer lists: the set
// carries the offering with that price unknown, and this, the last price
// seen, for the note the commands show.
type Unlisted struct {
	InstanceType string `json:"instance_type"`
	Region       string `json:"region"`
	Zone         string `json:"zone,omitempty"`
	Kind         string `json:"kind"` // on-demand or spot
	// The last price seen: its value, currency, source and date.
	Price    string `json:"last_price"`
	Currency string `json:"currency"`
	Source   string `json:"last_source"`
	AsOf     string `json:"last_as_of"`
}

type unlistedKey struct{ typ, region, zone, kind string }

func (u Unlisted) key() unlistedKey { return unlistedKey{u.InstanceType, u.Region, u.Zone, u.Kind} }

// Note is the line an offering's unknown price carries: "not listed by your
// catalog refresh of 2026-12-01 (alibaba cn-hangzhou); last priced 7.5 CNY/h
// as of 2026-11-30 (fake-alibaba-api@2026-11-30)".
func (u Unlisted) Note(set *Set) string {
	return fmt.Sprintf("not listed by your catalog refresh of %s (%s); last priced %s %s/h as of %s (%s)",
		set.Meta.FetchedAt.UTC().Format("2006-01-02"), set.Describe(), u.Price, u.Currency, u.AsOf, u.Source)
}

// MarkUnlisted decides, for a set about to be written, which prices in use
// before it the set no longer lists, and records them in the set so that
// no command serves them as current. before is the catalog the commands use
// now (the embedded one with the current sets, cur, applied).
//
// Only a listing speaks for the types it leaves out (Meta.Lists: a whole
// offer file, a fetch of a region's whole list), and only in the regions
// and kinds it covers (the partial refresh policy's coverage: a region
// where it has at least one on-demand, or spot, price): a refresh of one
// region says nothing of another, a file of spot bands nothing of
// on-demand prices. There, an offering of the provider that before prices
// in a covered kind and that the set does not list gets rows in the set
// (one per row of before, zones kept) with its prices unknown, and an
// Unlisted entry per row and kind with the price last seen: before's, or,
// where before already has it unknown because an earlier refresh did not
// list it either, that refresh's entry, so the date it was last seen
// priced stays the one it was. Kinds the set does not cover keep their
// prices, as for every listed offering.
func MarkUnlisted(set *Set, before *catalog.Catalog, cur []*Set) {
	if !set.Meta.Lists {
		return
	}
	provider := set.Meta.Provider
	cov := coverage(set.Snapshot)
	listed := map[rowKey]bool{}
	for i := range set.Snapshot.Offerings {
		o := &set.Snapshot.Offerings[i]
		listed[rowKey{o.Provider, o.InstanceType, o.Region}] = true
	}
	carried := map[unlistedKey]Unlisted{}
	for _, s := range cur { // oldest first: the newest entry wins
		if s.Meta.Provider != provider {
			continue
		}
		for _, u := range s.Meta.Unlisted {
			carried[u.key()] = u
		}
	}
	setSources := map[string]bool{}
	for _, s := range set.Meta.Sources {
		setSources[s.ID] = true
	}
	userSources := map[string]catalog.Source{} // the sources the current sets brought
	for _, s := range cur {
		for _, src := range s.Meta.Sources {
			userSources[src.ID] = src
		}
	}
	tombs := map[rowKey]bool{}
	for i := range before.Offerings {
		o := &before.Offerings[i]
		k := rowKey{o.Provider, o.InstanceType, o.Region}
		if o.Provider != provider || o.GPU == nil || listed[k] {
			continue
		}
		var entries []Unlisted
		for _, kind := range []string{kindOnDemand, kindSpot} {
			if !cov.has(provider, o.Region, kind) {
				continue
			}
			p := o.OnDemand
			if kind == kindSpot {
				p = o.Spot
			}
			u := Unlisted{InstanceType: o.InstanceType, Region: o.Region, Zone: o.Zone, Kind: kind}
			switch c, ok := carried[u.key()]; {
			case p.Known:
				u.Price, u.Currency, u.Source, u.AsOf = money.Plain(p.Value), string(p.Currency), p.Source, p.AsOf
			case ok:
				u = c
			default:
				continue
			}
			entries = append(entries, u)
		}
		if len(entries) == 0 {
			continue
		}
		set.Meta.Unlisted = append(set.Meta.Unlisted, entries...)
		tombs[k] = true
		row := *o
		row.OnDemand = catalog.Price{Amount: money.Amount{Currency: o.OnDemand.Currency}}
		row.Spot = catalog.Price{Amount: money.Amount{Currency: o.Spot.Currency}}
		row.Steps = nil
		set.Snapshot.Offerings = append(set.Snapshot.Offerings, row)
		for _, id := range []string{row.SpecSource, row.NetworkSource, row.RetiredSource} {
			if src, ok := userSources[id]; ok && !setSources[id] { // a fact an earlier refresh cited
				setSources[id] = true
				set.Meta.Sources = append(set.Meta.Sources, src)
			}
		}
	}
	slices.SortStableFunc(set.Snapshot.Offerings, func(a, b catalog.Offering) int { return catalog.CompareKeys(&a, &b) })
	set.Meta.Counts.Unlisted = len(tombs)
	set.priced = nil // the set lists more rows now
}

// unlistedNotes puts, on each offering row of set's provider/type/region
// keys in offs whose price of a kind is unknown, the note of the set's
// Unlisted entry of that row and kind.
func unlistedNotes(offs []catalog.Offering, set *Set, keys map[rowKey]bool) {
	if len(set.Meta.Unlisted) == 0 {
		return
	}
	notes := map[unlistedKey]string{}
	for _, u := range set.Meta.Unlisted {
		notes[u.key()] = u.Note(set)
	}
	for i := range offs {
		o := &offs[i]
		if !keys[rowKey{o.Provider, o.InstanceType, o.Region}] {
			continue
		}
		if n, ok := notes[unlistedKey{o.InstanceType, o.Region, o.Zone, kindOnDemand}]; ok && !o.OnDemand.Known {
			o.OnDemand.Note = n
		}
		if n, ok := notes[unlistedKey{o.InstanceType, o.Region, o.Zone, kindSpot}]; ok && !o.Spot.Known {
			o.Spot.Note = n
		}
	}
}
