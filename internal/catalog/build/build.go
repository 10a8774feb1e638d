// Package build generates the catalog's offerings snapshot from the price
// feeds in shared/data and gpuscout's curated instance files. It is what
// `gpuscout catalog build` (and `go generate ./internal/catalog`) runs; the
// result is written to internal/catalog/data/offerings.csv and embedded.
//
// The build walks the feed registry (internal/feeds/registry), converts each
// feed's records into catalog types, joins price rows with the curated specs
// and resolves provider and GPU names against the catalog's own data.
package build

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Inputs names the folders the build reads.
type Inputs struct {
	Shared  string // shared/data
	Curated string // data/curated
}

// Report says what the build read and what it left out, and why.
type Report struct {
	Rows     map[string]int  // offerings per on-demand source id ("" = no price)
	LeftOut  []feeds.LeftOut // rows the feeds or the build did not turn into catalog records
	Unpriced []string        // offerings kept with an unknown on-demand price
	Checks   []string        // cross-checks between feeds that agreed
}

// Build reads every registered feed and returns the snapshot, sorted, with a report.
func Build(specs *catalog.Catalog, in Inputs) (*catalog.Snapshot, *Report, error) {
	return BuildFrom(specs, registry.Sources(), feeds.Inputs{Shared: os.DirFS(in.Shared), Curated: os.DirFS(in.Curated)})
}

type specKey struct{ provider, typ string }

type builder struct {
	specs    *catalog.Catalog
	curated  map[specKey]*feeds.Spec
	accels   map[specKey]string // provider, feed key -> GPU
	offs     []catalog.Offering
	commits  []catalog.Commitment
	bands    []catalog.SpotBand
	licenses []catalog.LicenseSurcharge
	seen     map[string]bool
	byRegion map[string][]int // provider/type/region -> indexes in offs (inRegion)
	leftOut  map[specKey]*catalog.LeftOutType
	rep      Report
}

// BuildFrom builds from the given feeds, in order. Curated specs and
// accelerator names of every feed are read before any offering is converted.
func BuildFrom(specs *catalog.Catalog, srcs []feeds.Source, in feeds.Inputs) (*catalog.Snapshot, *Report, error) {
	b := &builder{specs: specs, curated: map[specKey]*feeds.Spec{}, accels: map[specKey]string{}, seen: map[string]bool{}, byRegion: map[string][]int{}, leftOut: map[specKey]*catalog.LeftOutType{}, rep: Report{Rows: map[string]int{}}}
	results := make([]*feeds.Result, len(srcs))
	for i, s := range srcs {
		res, err := s.Read(in)
		if err != nil {
			return nil, nil, fmt.Errorf("feed %s: %w", s.ID(), err)
		}
		results[i] = res
		if err := b.addSpecs(res); err != nil {
			return nil, nil, fmt.Errorf("feed %s: %w", s.ID(), err)
		}
	}
	for i, res := range results {
		b.rep.LeftOut = append(b.rep.LeftOut, res.LeftOut...)
		naming := srcs[i].Describe().Provider
		for _, o := range res.Offerings {
			if err := b.addOffering(naming, o); err != nil {
				return nil, nil, fmt.Errorf("feed %s: %s: %w", srcs[i].ID(), o.Origin, err)
			}
		}
	}
	// Commitments and bands attach to offerings, so they come after all of them.
	for i, res := range results {
		for _, c := range res.Commitments {
			if err := b.addCommitment(c); err != nil {
				return nil, nil, fmt.Errorf("feed %s: %s: %w", srcs[i].ID(), c.Origin, err)
			}
		}
		for _, sb := range res.SpotBands {
			if err := b.addBand(sb); err != nil {
				return nil, nil, fmt.Errorf("feed %s: %s: %w", srcs[i].ID(), sb.Origin, err)
			}
		}
		for _, l := range res.Licenses {
			if err := b.addLicense(l); err != nil {
				return nil, nil, fmt.Errorf("feed %s: %s: %w", srcs[i].ID(), l.Origin, err)
			}
		}
	}
	sort.SliceStable(b.offs, func(i, j int) bool { return catalog.CompareKeys(&b.offs[i], &b.offs[j]) < 0 })
	snap := &catalog.Snapshot{Offerings: b.offs, Commitments: b.commits, SpotBands: b.bands, Licenses: b.licenses}
	for _, l := range b.leftOut {
		snap.LeftOut = append(snap.LeftOut, *l)
	}
	sort.Slice(snap.LeftOut, func(i, j int) bool {
		a, c := snap.LeftOut[i], snap.LeftOut[j]
		if a.Provider != c.Provider {
			return a.Provider < c.Provider
		}
		return a.InstanceType < c.InstanceType
	})
	return snap, &b.rep, nil
}

// provider resolves a feed's provider or cloud name against providers.yaml (names and aliases).
func (b *builder) provider(name string) (*catalog.Provider, error) {
	p := b.specs.Provider(name)
	if p == nil {
		return nil, fmt.Errorf("provider %q is not in providers.yaml (add it, or an alias)", name)
	}
	return p, nil
}

// source checks that a cited source id is in sources.yaml and, where both
// give one, that the feed's as-of date is the catalog's.
func (b *builder) source(id, asOf string) error {
	s := b.specs.Source(id)
	if s == nil {
		return fmt.Errorf("source %q is not in sources.yaml", id)
	}
	if s.AsOf != "" && asOf != "" && s.AsOf != asOf && !strings.HasPrefix(asOf, s.AsOf) {
		return fmt.Errorf("source %q: the feed dates it %s, sources.yaml %s", id, asOf, s.AsOf)
	}
	return nil
}

func (b *builder) addSpecs(res *feeds.Result) error {
	for i := range res.Specs {
		sp := &res.Specs[i]
		p, err := b.provider(sp.Provider)
		if err != nil {
			return fmt.Errorf("%s: %w", sp.Origin, err)
		}
		if sp.SpecSource != "" && b.specs.Source(sp.SpecSource) == nil {
			return fmt.Errorf("%s: spec_source %q is not in sources.yaml", sp.Origin, sp.SpecSource)
		}
		if b.specs.GPU(sp.GPU) == nil {
			return fmt.Errorf("%s: gpu %q is not a canonical name in gpus.yaml", sp.Origin, sp.GPU)
		}
		if sp.Interconnect != "" && !slices.Contains(catalog.Interconnects, sp.Interconnect) {
			return fmt.Errorf("%s: interconnect %q; allowed: %s", sp.Origin, sp.Interconnect, strings.Join(catalog.Interconnects, ", "))
		}
		if sp.NetworkKind != "" && (!slices.Contains(catalog.NetworkKinds, sp.NetworkKind) || sp.NetworkKind == catalog.NetworkUnknown) {
			return fmt.Errorf("%s: network_kind %q; allowed: %s", sp.Origin, sp.NetworkKind, strings.Join(catalog.NetworkKinds[:len(catalog.NetworkKinds)-1], ", "))
		}
		if (sp.NetworkKind != "") != (sp.NetworkSource != "") {
			return fmt.Errorf("%s: network_kind and network_source go together (kind %q, source %q)", sp.Origin, sp.NetworkKind, sp.NetworkSource)
		}
		// A sourced kind may come without its bandwidth (the provider names
		// the fabric but gives no figure): the Gbps stay unknown, and the
		// network is not taken for a fast one (catalog.Offering.FastNetwork).
		if sp.NetworkGbps < 0 {
			return fmt.Errorf("%s: network_gbps %g is negative", sp.Origin, sp.NetworkGbps)
		}
		if sp.NetworkSource != "" && b.specs.Source(sp.NetworkSource) == nil {
			return fmt.Errorf("%s: network_source %q is not in sources.yaml", sp.Origin, sp.NetworkSource)
		}
		b.curated[specKey{p.Name, sp.InstanceType}] = sp
	}
	for _, a := range res.Accelerators {
		p, err := b.provider(a.Provider)
		if err != nil {
			return fmt.Errorf("%s: %w", a.Origin, err)
		}
		if b.specs.GPU(a.GPU) == nil {
			return fmt.Errorf("%s: accelerator %q maps to %q, not a canonical name in gpus.yaml", a.Origin, a.Key, a.GPU)
		}
		b.accels[specKey{p.Name, a.Key}] = a.GPU
	}
	return nil
}

// addOffering converts a feed offering: provider and GPU resolved, specs
// joined with the curated file where the feed gives none, prices cited.
func (b *builder) addOffering(naming feeds.Naming, fo feeds.Offering) error {
	p, err := b.provider(fo.Provider)
	if naming == feeds.SkyPilotClouds {
		if p = b.specs.ProviderForSkyPilot(fo.Provider); p == nil {
			err = fmt.Errorf("SkyPilot cloud %q is no provider's skypilot_cloud, name or alias in providers.yaml", fo.Provider)
		} else {
			err = nil
		}
	}
	if err != nil {
		return err
	}
	o := catalog.Offering{
		Provider: p.Name, InstanceType: fo.InstanceType, Region: fo.Region, Zone: fo.Zone,
	}
	setMachine(&o, fo.Machine)
	spec := b.curated[specKey{p.Name, fo.InstanceType}]
	switch {
	case fo.GPU != "": // a curated row: its own spec
		if o.GPU = b.specs.GPU(fo.GPU); o.GPU == nil {
			return fmt.Errorf("gpu %q is not a canonical name in gpus.yaml", fo.GPU)
		}
		o.GPUMemoryGiB = fo.GPUMemoryMiB / 1024
	case fo.Accelerator != "": // the feed gives the machine; the curated spec (if any) names the GPU and its links
		memGiB := fo.GPUMemoryMiB / 1024
		if spec != nil {
			o.GPU = b.specs.GPU(spec.GPU)
			o.Interconnect, o.NetworkGbps, o.NetworkKind, o.NetworkSource = spec.Interconnect, spec.NetworkGbps, spec.NetworkKind, spec.NetworkSource
		} else if gpu, ok := b.accels[specKey{p.Name, fo.Accelerator}]; ok {
			o.GPU = b.specs.GPU(gpu)
		} else if o.GPU, err = b.specs.ResolveFeedGPU(fo.Accelerator, memGiB, fo.InstanceType); err != nil {
			return err
		}
		o.GPUMemoryGiB = roundTenth(memGiB)
	default: // a price row only: the curated spec gives the machine
		// A region-wide price after per-zone rows is checked against them,
		// not added; a zone's own price is a row of its own (zones of a
		// region may be priced apart: Tencent's are), unless the zone is
		// priced already.
		prior := b.inRegion(p.Name, fo.InstanceType, fo.Region)
		if fo.Zone != "" {
			prior = slices.DeleteFunc(prior, func(o *catalog.Offering) bool { return o.Zone != fo.Zone })
		}
		if len(prior) > 0 {
			return b.crossCheck(fo, prior)
		}
		if spec == nil {
			b.leaveType(p.Name, fo, "no curated spec (GPUs, vCPUs, memory) for the type in data/curated")
			return nil
		}
		o.GPU = b.specs.GPU(spec.GPU)
		setMachine(&o, spec.Machine)
		o.GPUMemoryGiB = spec.GPUMemoryGiB
	}
	if spec != nil && o.Retired == "" {
		o.Retired, o.RetiredSource = spec.Retired, spec.RetiredSource // a feed's price row of a size the curated data marks retired
	}
	if o.OnDemand, err = b.price(fo.OnDemand, p); err != nil {
		return fmt.Errorf("on-demand: %w", err)
	}
	if fo.Spot.Known {
		if o.Spot, err = b.price(fo.Spot, p); err != nil {
			return fmt.Errorf("spot: %w", err)
		}
	}
	if !o.OnDemand.Known {
		b.rep.Unpriced = append(b.rep.Unpriced, fmt.Sprintf("%s %s %s: no on-demand price in the source (kept, price unknown)", fo.Origin, fo.InstanceType, fo.Region))
	}
	if b.seen[o.Key()] {
		return fmt.Errorf("offering %s appears twice in the inputs", o.Key())
	}
	b.seen[o.Key()] = true
	if o.Interconnect == "" {
		o.Interconnect = linkFor(o.GPU, o.GPUCount)
	}
	if o.GPUMemoryGiB == 0 && o.GPU.MemoryGiB.Known {
		o.GPUMemoryGiB = o.GPU.MemoryGiB.Value
	}
	o.China = china(p, o.Region, fo.Country)
	if naming == feeds.SkyPilotClouds { // SkyPilot's own names, for exports SkyPilot can launch
		o.SkyPilotAccelerator, o.SkyPilotRegion = fo.Accelerator, fo.Region
		if fo.SourceRegion != "" {
			o.SkyPilotRegion = fo.SourceRegion
		}
	}
	rk := o.Provider + "/" + o.InstanceType + "/" + o.Region
	b.byRegion[rk] = append(b.byRegion[rk], len(b.offs))
	b.offs = append(b.offs, o)
	b.rep.Rows[o.OnDemand.Source]++
	return nil
}

// price converts a feed price: a known one cites a listed source; an unknown
// one is in the provider's currency where the feed names none.
func (b *builder) price(fp feeds.Price, p *catalog.Provider) (catalog.Price, error) {
	cur := fp.Currency
	if cur == "" {
		cur = p.Currency
	}
	c, err := money.ParseCurrency(cur)
	if err != nil {
		return catalog.Price{}, err
	}
	if !fp.Known {
		return catalog.Price{Amount: money.New(decimal.Zero, c)}, nil
	}
	if err := b.source(fp.Source, fp.AsOf); err != nil {
		return catalog.Price{}, err
	}
	return catalog.Price{Known: true, Amount: money.New(fp.Amount, c), Source: fp.Source, AsOf: fp.AsOf}, nil
}

// leaveType reports a feed row left out and keeps its type for the snapshot's left_out.csv.
func (b *builder) leaveType(provider string, fo feeds.Offering, reason string) {
	b.rep.LeftOut = append(b.rep.LeftOut, feeds.LeftOut{Origin: fo.Origin, What: provider + " " + fo.InstanceType + " " + fo.Region, Reason: reason})
	k := specKey{provider, fo.InstanceType}
	l := b.leftOut[k]
	if l == nil {
		l = &catalog.LeftOutType{Provider: provider, InstanceType: fo.InstanceType, Source: fo.OnDemand.Source, Reason: reason}
		b.leftOut[k] = l
	}
	if !slices.Contains(l.Regions, fo.Region) {
		l.Regions = append(l.Regions, fo.Region)
		sort.Strings(l.Regions)
	}
}

// crossCheck compares a region-wide price with the per-zone rows an earlier
// feed gave for the same type and region: they must agree.
func (b *builder) crossCheck(fo feeds.Offering, prior []*catalog.Offering) error {
	for _, o := range prior {
		if o.OnDemand.Known && fo.OnDemand.Known && !o.OnDemand.Value.Equal(fo.OnDemand.Amount) {
			return fmt.Errorf("%s %s on-demand %s disagrees with %s's %s", fo.InstanceType, fo.Region, fo.OnDemand.Amount, o.OnDemand.Source, o.OnDemand.Amount)
		}
	}
	b.rep.Checks = append(b.rep.Checks, fmt.Sprintf("%s %s %s: %s %s equals %s", prior[0].Provider, fo.InstanceType, fo.Region, fo.OnDemand.Source, fo.OnDemand.Amount, prior[0].OnDemand.Source))
	return nil
}

// linkFor derives the GPU interconnect where no source states it: none for
// one GPU or a slice; the board's link for eight SXM GPUs (HGX baseboards);
// PCIe for PCIe cards; otherwise unknown.
func linkFor(g *catalog.GPU, count float64) string {
	switch {
	case count <= 1:
		return catalog.LinkNone
	case count == 8 && g.BoardLink != "":
		return g.BoardLink
	case strings.EqualFold(g.FormFactor, "PCIe"):
		return catalog.LinkPCIe
	}
	return catalog.LinkUnknown
}

// china reports a mainland-China region: from providers.yaml, else from the
// country code the feed read with the region (Vast's "State, CC, Continent").
func china(p *catalog.Provider, region, country string) bool {
	if r := p.RegionInfo(region); r != nil {
		return r.China
	}
	return country == "CN"
}

func roundTenth(x float64) float64 {
	return float64(int64(x*10+0.5)) / 10
}

// inRegion returns the offerings of provider/type in region already added
// (an index: a refresh of every AWS region attaches tens of thousands of
// commitment prices).
func (b *builder) inRegion(provider, typ, region string) []*catalog.Offering {
	var out []*catalog.Offering
	for _, i := range b.byRegion[provider+"/"+typ+"/"+region] {
		out = append(out, &b.offs[i])
	}
	return out
}

// addCommitment keeps a commitment price of an offering the catalog lists.
func (b *builder) addCommitment(fc feeds.Commitment) error {
	p, err := b.provider(fc.Provider)
	if err != nil {
		return err
	}
	if len(b.inRegion(p.Name, fc.InstanceType, fc.Region)) == 0 {
		b.rep.LeftOut = append(b.rep.LeftOut, feeds.LeftOut{Origin: fc.Origin, What: fmt.Sprintf("%s %s %s %s %s", fc.InstanceType, fc.Region, fc.Model, fc.Term, fc.Payment),
			Reason: "commitment price of an offering the catalog does not list"})
		return nil
	}
	if err := b.source(fc.Source, fc.AsOf); err != nil {
		return err
	}
	cur, err := money.ParseCurrency(fc.Currency)
	if err != nil {
		return err
	}
	b.commits = append(b.commits, catalog.Commitment{Provider: p.Name, InstanceType: fc.InstanceType, Region: fc.Region,
		Model: fc.Model, Term: fc.Term, Payment: fc.Payment, Class: fc.Class, Upfront: fc.Upfront, Hourly: fc.Hourly, Monthly: fc.Monthly,
		Currency: cur, Source: fc.Source, AsOf: fc.AsOf, Note: fc.Note})
	return nil
}

// addBand keeps the spot band of an instance type the catalog lists in that region.
func (b *builder) addBand(sb feeds.SpotBand) error {
	p, err := b.provider(sb.Provider)
	if err != nil {
		return err
	}
	if len(b.inRegion(p.Name, sb.InstanceType, sb.Region)) == 0 {
		b.rep.LeftOut = append(b.rep.LeftOut, feeds.LeftOut{Origin: sb.Origin, What: sb.InstanceType + " " + sb.Region,
			Reason: "spot band of an instance type the catalog does not list in that region"})
		return nil
	}
	if err := b.source(sb.Source, sb.AsOf); err != nil {
		return err
	}
	b.bands = append(b.bands, catalog.SpotBand{Provider: p.Name, InstanceType: sb.InstanceType, Region: sb.Region, Label: sb.Label,
		Low: sb.Low, High: sb.High, SavingsPct: sb.SavingsPct, Source: sb.Source, AsOf: sb.AsOf})
	return nil
}

// addLicense keeps the OS licence surcharge of an instance type the catalog
// lists in that region.
func (b *builder) addLicense(fl feeds.License) error {
	p, err := b.provider(fl.Provider)
	if err != nil {
		return err
	}
	what := fl.InstanceType + " " + fl.Region + " " + fl.License
	if len(b.inRegion(p.Name, fl.InstanceType, fl.Region)) == 0 {
		b.rep.LeftOut = append(b.rep.LeftOut, feeds.LeftOut{Origin: fl.Origin, What: what,
			Reason: "licence price of an instance type the catalog does not list in that region"})
		return nil
	}
	if !fl.PerHour.IsPositive() || fl.License == "" {
		b.rep.LeftOut = append(b.rep.LeftOut, feeds.LeftOut{Origin: fl.Origin, What: what, Reason: "licence price not positive or licence unnamed"})
		return nil
	}
	if err := b.source(fl.Source, fl.AsOf); err != nil {
		return err
	}
	cur, err := money.ParseCurrency(fl.Currency)
	if err != nil {
		return err
	}
	b.licenses = append(b.licenses, catalog.LicenseSurcharge{Provider: p.Name, InstanceType: fl.InstanceType, Region: fl.Region,
		License: fl.License, PerHour: fl.PerHour, Currency: cur, Source: fl.Source, AsOf: fl.AsOf, BringYourOwn: fl.BringYourOwn,
		Notes: "the " + fl.License + " price less the Linux price, from the feed"})
	return nil
}

// setMachine copies what a feed states of the machine onto an offering (the
// GPU, a canonical name, is resolved by the caller).
func setMachine(o *catalog.Offering, m feeds.Machine) {
	o.GPUCount, o.VCPUs, o.MemoryGiB, o.LocalDiskGB = m.GPUCount, m.VCPUs, m.MemoryGiB, m.LocalDiskGB
	o.Interconnect, o.NetworkGbps, o.NetworkKind, o.NetworkSource = m.Interconnect, m.NetworkGbps, m.NetworkKind, m.NetworkSource
	o.Arch, o.SpecSource, o.Retired, o.RetiredSource = m.Arch, m.SpecSource, m.Retired, m.RetiredSource
}
