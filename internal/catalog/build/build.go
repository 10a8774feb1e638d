// Package build generates the catalog's offerings snapshot from the price
// feeds in shared/data and gpuscout's curated instance files. It is what
// `gpuscout catalog build` (and `go generate ./internal/catalog`) runs; the
// result is written to internal/catalog/data/offerings.csv and embedded.
package build

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds/awsondemand"
	"github.com/gpuscout/gpuscout/internal/feeds/awsspotadvisor"
	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/feeds/gcpprices"
	"github.com/gpuscout/gpuscout/internal/feeds/skypilot"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Inputs names the folders the build reads.
type Inputs struct {
	Shared  string // shared/data
	Curated string // data/curated
}

// Report says what the build read and what it left out, and why.
type Report struct {
	Rows    map[string]int // offerings per source id ("" = no price)
	Skipped []string       // "file:line type: reason"
	Checks  []string       // cross-checks between feeds that agreed
}

// skypilotFiles lists the SkyPilot files read, with their provider and source id.
var skypilotFiles = []struct{ path, provider, source string }{
	{"skypilot-catalog/aws/vms.p4d-p5-excerpt.csv", "aws", "skypilot-v9@2c3d7ea7"},
	{"skypilot-catalog/lambda/vms.csv", "lambda", "skypilot-v9@2c3d7ea7"},
	{"skypilot-catalog/fluidstack/vms.csv", "fluidstack", "skypilot-v9@2c3d7ea7"},
	{"skypilot-catalog/seeweb/vms.csv", "seeweb", "skypilot-v9@2c3d7ea7"},
	{"skypilot-catalog/nebius/vms.csv", "nebius", "skypilot-v9@d9bf3aa4"},
	{"skypilot-catalog/vast/vms.csv", "vast", "skypilot-v9@a5be5386"},
}

const (
	awsOnDemandFile = "aws-ondemand/aws-gpu-accelerated-ondemand.csv"
	gcpPricesFile   = "price-feeds/gcp-cyclenerd-pricing-gpu-excerpt.json"
)

// awsOnDemandSources maps the Karpenter table's regions to their source ids.
var awsOnDemandSources = map[string]string{"us-east-1": "karpenter-aws@2026-07-20", "cn-north-1": "karpenter-aws-cn@2024-11-06"}

type builder struct {
	specs   *catalog.Catalog
	curated map[string]*curated.File
	offs    []catalog.Offering
	commits []catalog.Commitment
	bands   []catalog.SpotBand
	seen    map[string]bool
	rep     Report
}

const spotAdvisorFile = "price-feeds/aws-spot-advisor-excerpt.json"

// Build reads every input and returns the snapshot, sorted, with a report.
func Build(specs *catalog.Catalog, in Inputs) (*catalog.Snapshot, *Report, error) {
	b := &builder{specs: specs, curated: map[string]*curated.File{}, seen: map[string]bool{}, rep: Report{Rows: map[string]int{}}}
	if err := b.readCurated(in.Curated); err != nil {
		return nil, nil, err
	}
	for _, f := range skypilotFiles {
		if err := b.addSkyPilot(filepath.Join(in.Shared, f.path), f.provider, f.source); err != nil {
			return nil, nil, err
		}
	}
	if err := b.addAWSOnDemand(filepath.Join(in.Shared, awsOnDemandFile)); err != nil {
		return nil, nil, err
	}
	if err := b.addGCP(filepath.Join(in.Shared, gcpPricesFile)); err != nil {
		return nil, nil, err
	}
	if err := b.addSpotAdvisor(filepath.Join(in.Shared, spotAdvisorFile)); err != nil {
		return nil, nil, err
	}
	for _, p := range []string{"azure", "alibaba", "tencent"} {
		if err := b.addCuratedOffers(p); err != nil {
			return nil, nil, err
		}
	}
	sort.SliceStable(b.offs, func(i, j int) bool { return catalog.CompareKeys(&b.offs[i], &b.offs[j]) < 0 })
	return &catalog.Snapshot{Offerings: b.offs, Commitments: b.commits, SpotBands: b.bands}, &b.rep, nil
}

func (b *builder) readCurated(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("no curated files in %s", dir)
	}
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			return err
		}
		f, err := curated.Parse(fh)
		fh.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if b.specs.Provider(f.Provider) == nil {
			return fmt.Errorf("%s: provider %q is not in providers.yaml", p, f.Provider)
		}
		if f.SpecSource != "" && b.specs.Source(f.SpecSource) == nil {
			return fmt.Errorf("%s: spec_source %q is not in sources.yaml", p, f.SpecSource)
		}
		for _, in := range f.Instances {
			if b.specs.GPU(in.GPU) == nil {
				return fmt.Errorf("%s:%d: gpu %q is not a canonical name in gpus.yaml", p, in.Line, in.GPU)
			}
			if in.Interconnect != "" && !contains(catalog.Interconnects, in.Interconnect) {
				return fmt.Errorf("%s:%d: interconnect %q; allowed: %s", p, in.Line, in.Interconnect, strings.Join(catalog.Interconnects, ", "))
			}
			for _, o := range in.Offers {
				if o.Source != "" && b.specs.Source(o.Source) == nil {
					return fmt.Errorf("%s:%d: source %q is not in sources.yaml", p, in.Line, o.Source)
				}
			}
		}
		b.curated[f.Provider] = f
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// add appends an offering; a second offering with the same key is an error in the inputs.
func (b *builder) add(o catalog.Offering) error {
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
	o.China = b.isChina(o.Provider, o.Region)
	b.offs = append(b.offs, o)
	b.rep.Rows[o.OnDemand.Source]++
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

// isChina reports a mainland-China region: from providers.yaml, or for Vast's
// "State, CC, Continent" regions, the country code CN.
func (b *builder) isChina(provider, region string) bool {
	if p := b.specs.Provider(provider); p != nil {
		if r := p.RegionInfo(region); r != nil {
			return r.China
		}
	}
	parts := strings.Split(region, ",")
	return len(parts) == 3 && strings.TrimSpace(parts[1]) == "CN"
}

func (b *builder) sourceAsOf(id string) string {
	if s := b.specs.Source(id); s != nil {
		return s.AsOf
	}
	return ""
}

func (b *builder) addSkyPilot(path, provider, source string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	recs, err := skypilot.Parse(fh)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	asOf := b.sourceAsOf(source)
	cur := b.curated[provider]
	for _, r := range recs {
		if r.AcceleratorName == "" {
			continue // CPU-only rows
		}
		o := catalog.Offering{
			Provider: provider, InstanceType: r.InstanceType, Region: r.Region, Zone: r.Zone,
			GPUCount: r.AcceleratorCount, VCPUs: r.VCPUs, MemoryGiB: r.MemoryGiB, LocalDiskGB: r.LocalDiskGB,
			Arch: r.Arch, SpecSource: source,
		}
		memGiB := r.PerGPUMemoryMiB(provider) / 1024
		if in := cur.Instance(r.InstanceType); in != nil {
			o.GPU = b.specs.GPU(in.GPU)
			o.Interconnect, o.NetworkGbps = in.Interconnect, in.NetworkGbps
		} else if o.GPU, err = b.specs.ResolveFeedGPU(r.AcceleratorName, memGiB, r.InstanceType); err != nil {
			return fmt.Errorf("%s:%d: %w", path, r.Line, err)
		}
		o.GPUMemoryGiB = roundTenth(memGiB)
		if r.Price.Known {
			o.OnDemand = catalog.Price{Known: true, Amount: r.Price.Amount, Currency: money.USD, Source: source, AsOf: asOf}
		} else {
			o.OnDemand = catalog.Price{Currency: money.USD}
			b.rep.Skipped = append(b.rep.Skipped, fmt.Sprintf("%s:%d %s %s: no on-demand price in the source (kept, price unknown)", path, r.Line, r.InstanceType, r.Region))
		}
		if r.SpotPrice.Known {
			o.Spot = catalog.Price{Known: true, Amount: r.SpotPrice.Amount, Currency: money.USD, Source: source, AsOf: asOf}
		}
		if err := b.add(o); err != nil {
			return fmt.Errorf("%s:%d: %w", path, r.Line, err)
		}
	}
	return nil
}

func roundTenth(x float64) float64 {
	return float64(int64(x*10+0.5)) / 10
}

// hasRegion reports whether offerings of provider/type in region were already added (from a per-zone feed).
func (b *builder) hasRegion(provider, typ, region string) []*catalog.Offering {
	var out []*catalog.Offering
	for i := range b.offs {
		o := &b.offs[i]
		if o.Provider == provider && o.InstanceType == typ && o.Region == region {
			out = append(out, o)
		}
	}
	return out
}

func (b *builder) addAWSOnDemand(path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	recs, err := awsondemand.Parse(fh)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	cur := b.curated["aws"]
	for _, r := range recs {
		source, ok := awsOnDemandSources[r.Region]
		if !ok {
			return fmt.Errorf("%s:%d: region %s has no source id", path, r.Line, r.Region)
		}
		if prior := b.hasRegion("aws", r.InstanceType, r.Region); len(prior) > 0 {
			// The per-zone SkyPilot rows already carry this price; check that the feeds agree.
			for _, o := range prior {
				if o.OnDemand.Known && !o.OnDemand.Amount.Equal(r.Price) {
					return fmt.Errorf("%s:%d: %s %s on-demand %s disagrees with %s's %s", path, r.Line, r.InstanceType, r.Region, r.Price, o.OnDemand.Source, o.OnDemand.Amount)
				}
			}
			b.rep.Checks = append(b.rep.Checks, fmt.Sprintf("aws %s %s: %s %s equals %s", r.InstanceType, r.Region, source, r.Price, prior[0].OnDemand.Source))
			continue
		}
		in := cur.Instance(r.InstanceType)
		if in == nil {
			b.rep.Skipped = append(b.rep.Skipped, fmt.Sprintf("%s:%d %s %s: no curated spec in aws.yaml (left out)", path, r.Line, r.InstanceType, r.Region))
			continue
		}
		cc, err := money.ParseCurrency(r.Currency)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, r.Line, err)
		}
		o := b.fromCurated("aws", cur, in, r.Region)
		o.OnDemand = catalog.Price{Known: true, Amount: r.Price, Currency: cc, Source: source, AsOf: r.GeneratedAt.Format("2006-01-02")}
		if err := b.add(o); err != nil {
			return fmt.Errorf("%s:%d: %w", path, r.Line, err)
		}
	}
	return nil
}

func (b *builder) fromCurated(provider string, f *curated.File, in *curated.Instance, region string) catalog.Offering {
	arch := in.Arch
	if arch == "" {
		arch = "x86_64"
	}
	return catalog.Offering{
		Provider: provider, InstanceType: in.Type, Region: region, GPU: b.specs.GPU(in.GPU),
		GPUCount: in.GPUCount, GPUMemoryGiB: in.GPUMemoryGiB, VCPUs: in.VCPUs, MemoryGiB: in.MemoryGiB,
		LocalDiskGB: in.LocalDiskGB, Interconnect: in.Interconnect, NetworkGbps: in.NetworkGbps, Arch: arch,
		SpecSource: f.SpecSource, Retired: in.Retired, RetiredSource: in.RetiredSource,
	}
}

func (b *builder) addGCP(path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	ex, err := gcpprices.Parse(fh)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	cur := b.curated["gcp"]
	if cur == nil {
		return fmt.Errorf("gcp.yaml is missing from the curated files")
	}
	const source = "cyclenerd-gcp@2026-07-30"
	asOf := b.sourceAsOf(source)
	for _, m := range ex.Machines {
		name, ok := cur.Accelerators[m.GPUName]
		if !ok || b.specs.GPU(name) == nil {
			return fmt.Errorf("%s: %s: accelerator %q has no GPU in gcp.yaml accelerators", path, m.Type, m.GPUName)
		}
		for _, rp := range m.Regions {
			o := catalog.Offering{
				Provider: "gcp", InstanceType: m.Type, Region: rp.Region, GPU: b.specs.GPU(name),
				GPUCount: m.GPUCount, VCPUs: m.VCPUs, MemoryGiB: m.RAMGiB, LocalDiskGB: m.LocalSSD, Arch: "x86_64",
				SpecSource: source,
			}
			o.OnDemand = catalog.Price{Currency: money.USD}
			if rp.Hour.Valid {
				o.OnDemand = catalog.Price{Known: true, Amount: rp.Hour.Decimal, Currency: money.USD, Source: source, AsOf: asOf}
			}
			if rp.Spot.Valid {
				o.Spot = catalog.Price{Known: true, Amount: rp.Spot.Decimal, Currency: money.USD, Source: source, AsOf: asOf}
			}
			if err := b.add(o); err != nil {
				return err
			}
			// Resource-based committed-use discounts, quoted per month of 730 hours and billed monthly.
			for term, monthly := range map[string]decimal.NullDecimal{"1y": rp.Month1y, "3y": rp.Month3y} {
				if monthly.Valid {
					b.commits = append(b.commits, catalog.Commitment{Provider: "gcp", InstanceType: m.Type, Region: rp.Region,
						Model: catalog.ModelCommitment, Term: term, Payment: catalog.PayMonthly, Monthly: monthly.Decimal,
						Currency: money.USD, Source: source, AsOf: asOf})
				}
			}
		}
	}
	return nil
}

// addSpotAdvisor keeps the Linux interruption bands of instance types the catalog lists in that region.
func (b *builder) addSpotAdvisor(path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	d, err := awsspotadvisor.Parse(fh)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	const source = "aws-spot-advisor@2025-06-28"
	for _, e := range d.Entries {
		if e.OS != "Linux" || len(b.hasRegion("aws", e.InstanceType, e.Region)) == 0 {
			continue
		}
		b.bands = append(b.bands, catalog.SpotBand{Provider: "aws", InstanceType: e.InstanceType, Region: e.Region, Label: e.Range.Label,
			Low: e.Low, High: e.High, SavingsPct: float64(e.SavingsPct), Source: source, AsOf: b.sourceAsOf(source)})
	}
	return nil
}

func (b *builder) addCuratedOffers(provider string) error {
	f := b.curated[provider]
	if f == nil {
		return fmt.Errorf("%s.yaml is missing from the curated files", provider)
	}
	for i := range f.Instances {
		in := &f.Instances[i]
		if len(in.Offers) == 0 {
			return fmt.Errorf("%s.yaml:%d: %s has no offers", provider, in.Line, in.Type)
		}
		for _, of := range in.Offers {
			o := b.fromCurated(provider, f, in, of.Region)
			cur := money.Currency(of.Currency)
			if cur == "" {
				cur = money.Currency(b.specs.Provider(provider).Currency)
			}
			o.OnDemand = catalog.Price{Currency: cur}
			if of.Price.Valid {
				o.OnDemand = catalog.Price{Known: true, Amount: of.Price.Decimal, Currency: cur, Source: of.Source, AsOf: of.AsOf}
			}
			if of.SpotPrice.Valid {
				o.Spot = catalog.Price{Known: true, Amount: of.SpotPrice.Decimal, Currency: cur, Source: of.Source, AsOf: of.AsOf}
			}
			if err := b.add(o); err != nil {
				return fmt.Errorf("%s.yaml:%d: %w", provider, in.Line, err)
			}
		}
	}
	return nil
}
