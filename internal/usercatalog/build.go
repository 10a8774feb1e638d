package usercatalog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/catalog/build"
	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Build turns an importer's records into a file set, with the catalog
// builder (catalog/build) the embedded snapshot is made with: price rows are
// joined with the base catalog's specs of the same instance type (its
// GPUs, vCPUs, memory), and commitment prices and spot bands may attach to
// the base catalog's offerings as well as to refreshed ones. Every source id
// the records cite that base does not know becomes a source entry dated by
// the record and noted with the fetch; meta gets the counts, covered regions
// and left-out rows filled in.
func Build(base *catalog.Catalog, res *feeds.Result, meta Meta) (*Set, *build.Report, error) {
	p := base.Provider(meta.Provider)
	if p == nil {
		return nil, nil, fmt.Errorf("provider %q is not in the catalog", meta.Provider)
	}
	meta.Provider = p.Name
	specs := base.Clone()
	meta.Sources = nil
	for _, s := range newSources(base, res, meta) {
		specs.AddSource(s)
		meta.Sources = append(meta.Sources, s)
	}
	refreshed := map[string]bool{}
	for _, o := range res.Offerings {
		q := base.Provider(o.Provider)
		if res.Naming == feeds.SkyPilotClouds {
			q = base.ProviderForSkyPilot(o.Provider)
		}
		if q != nil {
			refreshed[q.Name+"/"+o.InstanceType+"/"+o.Region] = true
		}
	}
	bo := baseOfferings{cat: base, provider: p.Name, skip: refreshed}
	srcs := []feeds.Source{specsOf{base, p.Name}, resultSource{res}, &bo}
	snap, rep, err := build.BuildFrom(specs, srcs, feeds.Inputs{})
	if err != nil {
		return nil, nil, err
	}
	kept := snap.Offerings[:0]
	for _, o := range snap.Offerings {
		if !bo.keys[o.Key()] {
			kept = append(kept, o)
		}
	}
	snap.Offerings = kept
	covers := map[string]bool{}
	for _, o := range snap.Offerings {
		covers[o.Region] = true
	}
	for _, c := range snap.Commitments {
		covers[c.Region] = true
	}
	for _, b := range snap.SpotBands {
		covers[b.Region] = true
	}
	for _, l := range snap.Licenses {
		covers[l.Region] = true
	}
	delete(covers, "")
	meta.Covers = nil
	for r := range covers {
		meta.Covers = append(meta.Covers, r)
	}
	sort.Strings(meta.Covers)
	meta.Counts = Counts{Offerings: len(snap.Offerings), Commitments: len(snap.Commitments), SpotBands: len(snap.SpotBands), Licenses: len(snap.Licenses), LeftOut: len(rep.LeftOut)}
	meta.Lists, meta.Unlisted = res.Lists, nil
	meta.LeftOut = map[string]int{}
	for _, l := range rep.LeftOut {
		meta.LeftOut[l.Reason]++
	}
	meta.LeftOutRows = rep.LeftOut[:min(len(rep.LeftOut), MaxLeftOutRows)]
	return &Set{Meta: meta, Snapshot: snap, Key: Key(meta.Regions)}, rep, nil
}

// newSources lists the sources the records cite that base lacks, in order of
// first citation.
func newSources(base *catalog.Catalog, res *feeds.Result, meta Meta) []catalog.Source {
	var out []catalog.Source
	seen := map[string]bool{}
	cite := func(id, asOf string) {
		if id == "" || seen[id] || base.Source(id) != nil {
			return
		}
		seen[id] = true
		out = append(out, catalog.Source{ID: id, Title: title(meta, res.Naming), AsOf: asOf, Notes: notes(meta)})
	}
	for _, o := range res.Offerings {
		if o.OnDemand.Known {
			cite(o.OnDemand.Source, o.OnDemand.AsOf)
		}
		if o.Spot.Known {
			cite(o.Spot.Source, o.Spot.AsOf)
		}
		cite(o.SpecSource, o.OnDemand.AsOf) // a feed that states the machine (SkyPilot) cites it even where it gives no price
	}
	for _, c := range res.Commitments {
		cite(c.Source, c.AsOf)
	}
	for _, b := range res.SpotBands {
		cite(b.Source, b.AsOf)
	}
	for _, l := range res.Licenses {
		cite(l.Source, l.AsOf)
	}
	return out
}

func title(m Meta, naming feeds.Naming) string {
	if m.Mode == ModeFetch && naming == feeds.SkyPilotClouds {
		return fmt.Sprintf("%s prices fetched from SkyPilot's hosted catalog (skypilot-org/skypilot-catalog) by gpuscout catalog refresh", m.Provider)
	}
	if m.Mode == ModeFile {
		return fmt.Sprintf("%s prices read from %s (%s) by gpuscout catalog refresh", m.Provider, m.File, m.Format)
	}
	return fmt.Sprintf("%s prices fetched from the provider's price API by gpuscout catalog refresh", m.Provider)
}

func notes(m Meta) string {
	var parts []string
	parts = append(parts, "fetched "+m.FetchedAt.UTC().Format("2006-01-02T15:04:05Z"))
	if len(m.Regions) > 0 {
		parts = append(parts, "regions "+strings.Join(m.Regions, ", "))
	}
	if m.Version != "" {
		parts = append(parts, "gpuscout "+m.Version)
	}
	return strings.Join(parts, "; ")
}

// Modes of Meta.Mode.
const (
	ModeFetch = "fetch"
	ModeFile  = "file"
)

// specsOf yields the base catalog's machine specs of a provider's instance
// types, so that price-only records (Alibaba's DescribePrice, say) join them.
type specsOf struct {
	cat      *catalog.Catalog
	provider string
}

func (s specsOf) ID() string { return "user-catalog-specs" }
func (s specsOf) Describe() feeds.Description {
	return feeds.Description{Title: "the catalog's instance specs", Reads: []feeds.Input{{Root: feeds.Curated, Path: "(embedded)"}}, Yields: "specs"}
}
func (s specsOf) Read(feeds.Inputs) (*feeds.Result, error) {
	res := &feeds.Result{}
	seen := map[string]bool{}
	for i := range s.cat.Offerings {
		o := &s.cat.Offerings[i]
		if o.Provider != s.provider || seen[o.InstanceType] || o.GPU == nil {
			continue
		}
		seen[o.InstanceType] = true
		res.Specs = append(res.Specs, feeds.Spec{Origin: "catalog", Provider: o.Provider, InstanceType: o.InstanceType, GPUMemoryGiB: o.GPUMemoryGiB, Machine: machine(o)})
	}
	return res, nil
}

func machine(o *catalog.Offering) feeds.Machine {
	return feeds.Machine{GPU: o.GPU.Name, GPUCount: o.GPUCount, VCPUs: o.VCPUs, MemoryGiB: o.MemoryGiB, LocalDiskGB: o.LocalDiskGB,
		Interconnect: o.Interconnect, NetworkGbps: o.NetworkGbps, NetworkKind: o.NetworkKind, NetworkSource: o.NetworkSource,
		Arch: o.Arch, SpecSource: o.SpecSource, Retired: o.Retired, RetiredSource: o.RetiredSource}
}

// resultSource is an importer's result as a feeds.Source.
type resultSource struct{ res *feeds.Result }

func (r resultSource) ID() string { return "refresh" }
func (r resultSource) Describe() feeds.Description {
	return feeds.Description{Title: "the refreshed records", Reads: []feeds.Input{{Root: feeds.Shared, Path: "(fetched)"}}, Yields: "offerings, commitments, spot bands",
		Provider: r.res.Naming}
}
func (r resultSource) Read(feeds.Inputs) (*feeds.Result, error) {
	// The builder reads Specs and Accelerators too; the result is not changed.
	return r.res, nil
}

// baseOfferings yields the base catalog's offerings of the provider that the
// refresh does not price, so that its commitment prices and spot bands of
// those offerings attach; Build drops them from the set afterwards (keys).
type baseOfferings struct {
	cat      *catalog.Catalog
	provider string
	skip     map[string]bool // provider/type/region the refresh prices
	keys     map[string]bool // offering keys yielded
}

func (b *baseOfferings) ID() string { return "user-catalog-base" }
func (b *baseOfferings) Describe() feeds.Description {
	return feeds.Description{Title: "the catalog's offerings", Reads: []feeds.Input{{Root: feeds.Curated, Path: "(embedded)"}}, Yields: "offerings"}
}
func (b *baseOfferings) Read(feeds.Inputs) (*feeds.Result, error) {
	res := &feeds.Result{}
	b.keys = map[string]bool{}
	for i := range b.cat.Offerings {
		o := &b.cat.Offerings[i]
		if o.Provider != b.provider || o.GPU == nil || b.skip[o.Provider+"/"+o.InstanceType+"/"+o.Region] {
			continue
		}
		b.keys[o.Key()] = true
		res.Offerings = append(res.Offerings, feeds.Offering{Origin: "catalog", Provider: o.Provider, InstanceType: o.InstanceType,
			Region: o.Region, Zone: o.Zone, GPUMemoryMiB: o.GPUMemoryGiB * 1024, Machine: machine(o),
			OnDemand: price(o.OnDemand), Spot: price(o.Spot)})
	}
	return res, nil
}

func price(p catalog.Price) feeds.Price {
	if !p.Known {
		return feeds.Unknown(string(p.Currency))
	}
	return feeds.Known(p.Value, string(p.Currency), p.Source, p.AsOf)
}
