package catalog

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:generate go run ../../cmd/gpuscout catalog build --shared ../../../shared/data --curated ../../data/curated --out data

var (
	//go:embed data/gpus.yaml
	gpusYAML []byte
	//go:embed data/providers.yaml
	providersYAML []byte
	//go:embed data/sources.yaml
	sourcesYAML []byte
	//go:embed data/offerings.csv
	offeringsCSV []byte
	//go:embed data/commitments.csv
	commitmentsCSV []byte
	//go:embed data/spot_bands.csv
	spotBandsCSV []byte
	//go:embed data/left_out.csv
	leftOutCSV []byte
	//go:embed data/egress.yaml
	egressYAML []byte
	//go:embed data/licenses.yaml
	licensesYAML []byte
)

// Files are the inputs of a catalog: the curated spec, provider and source
// tables and the generated offerings snapshot.
type Files struct {
	GPUs, Providers, Sources, Egress, Licenses []byte
	Offerings, Commitments, SpotBands          []byte
	LeftOut                                    []byte // types the build left out (left_out.csv)
}

// Embedded returns the files built into the binary.
func Embedded() Files {
	return Files{GPUs: gpusYAML, Providers: providersYAML, Sources: sourcesYAML, Egress: egressYAML, Licenses: licensesYAML,
		Offerings: offeringsCSV, Commitments: commitmentsCSV, SpotBands: spotBandsCSV, LeftOut: leftOutCSV}
}

var (
	// catalogBin is the catalog in binary form (binary.go), built from the
	// text files above by the generator. A string, so that the decoded
	// strings are substrings of it: no copies.
	//go:embed data/catalog.bin
	catalogBin string

	defaultBase = sync.OnceValues(func() (*binCatalog, error) {
		bf, err := openBinary(catalogBin)
		if err != nil {
			return nil, err
		}
		if err := bf.checkSums(Embedded(), false); err != nil {
			return nil, err
		}
		c := &Catalog{}
		if c.GPUs, c.gpuIndex, err = bf.gpus(); err != nil {
			return nil, err
		}
		if err := bf.specs(c); err != nil {
			return nil, err
		}
		c.indexProviders()
		if err := c.indexSources(); err != nil {
			return nil, fmt.Errorf("catalog.bin: %w", err)
		}
		return &binCatalog{bf: bf, base: c}, nil
	})
)

// binCatalog is the embedded blob opened, with the parts of the catalog
// every Default copy shares (the GPU, provider, egress, licence, spot-band
// and left-out tables and their indexes) decoded once.
type binCatalog struct {
	bf   *binFile
	base *Catalog // never handed out: Default gives copies
}

// Default returns the embedded catalog (decoded from data/catalog.bin, the
// text files' parse), a fresh copy each call, so callers may change their
// copy (apply user prices) freely: its offerings, commitments and sources
// are its own, the GPU and provider entries and the other tables are
// shared (read-only), as Clone's.
func Default() (*Catalog, error) {
	b, err := defaultBase()
	if err != nil {
		return nil, err
	}
	c := b.base
	d := &Catalog{GPUs: c.GPUs, Providers: c.Providers, EgressTables: c.EgressTables, SpotBands: c.SpotBands, Licenses: c.Licenses, LeftOut: c.LeftOut,
		gpuIndex: c.gpuIndex, providerIndex: c.providerIndex}
	d.Sources = slices.Clone(c.Sources)
	// The offerings and commitments are decoded anew rather than copied:
	// as fast as a copy, and the first call copies nothing.
	if err := b.bf.prices(d); err != nil {
		return nil, err
	}
	if err := d.indexSources(); err != nil {
		return nil, fmt.Errorf("catalog.bin: %w", err)
	}
	return d, nil
}

// GPUTable decodes only the embedded GPU table, once: for commands that
// read nothing else (gpus), a fraction of Default's work. It is the full
// catalog's GPU table (sources set, estimates resolved); only gpus.yaml's
// checksum is compared. Its catalog is shared: read it, never change it.
func GPUTable() (*Catalog, error) { return gpuTable() }

var gpuTable = sync.OnceValues(func() (*Catalog, error) {
	bf, err := openBinary(catalogBin)
	if err != nil {
		return nil, err
	}
	if err := bf.checkSums(Files{GPUs: gpusYAML}, true); err != nil {
		return nil, err
	}
	c := &Catalog{}
	if c.GPUs, c.gpuIndex, err = bf.gpus(); err != nil {
		return nil, err
	}
	c.indexProviders()
	return c, c.indexSources()
})

// Clone returns a copy whose offering and source lists can be changed without
// touching the original. GPU and provider entries are shared (read-only).
func (c *Catalog) Clone() *Catalog {
	d := &Catalog{GPUs: c.GPUs, Providers: c.Providers, EgressTables: c.EgressTables, SpotBands: c.SpotBands, Licenses: c.Licenses, LeftOut: c.LeftOut}
	d.Commitments = append([]Commitment(nil), c.Commitments...)
	d.Offerings = append([]Offering(nil), c.Offerings...)
	d.Sources = append([]Source(nil), c.Sources...)
	if err := d.index(); err != nil {
		panic("catalog: re-indexing a valid catalog failed: " + err.Error()) // cannot happen: c was indexed
	}
	return d
}

// ParseSpecs parses only the curated tables (GPUs, providers, sources); the
// catalog builder uses it before any offering exists.
func ParseSpecs(f Files) (*Catalog, error) {
	c := &Catalog{}
	if err := decodeStrict(f.GPUs, &c.GPUs); err != nil {
		return nil, fmt.Errorf("gpus.yaml: %w", err)
	}
	var provs struct {
		Providers []*Provider `yaml:"providers"`
	}
	if err := decodeStrict(f.Providers, &provs); err != nil {
		return nil, fmt.Errorf("providers.yaml: %w", err)
	}
	c.Providers = provs.Providers
	if err := decodeStrict(f.Sources, &c.Sources); err != nil {
		return nil, fmt.Errorf("sources.yaml: %w", err)
	}
	if err := decodeStrict(f.Egress, &c.EgressTables); err != nil {
		return nil, fmt.Errorf("egress.yaml: %w", err)
	}
	if err := decodeStrict(f.Licenses, &c.Licenses); err != nil {
		return nil, fmt.Errorf("licenses.yaml: %w", err)
	}
	if err := c.index(); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, g := range c.GPUs {
		if g.Name == "" || g.Family == "" || g.Vendor == "" {
			return nil, fmt.Errorf("gpus.yaml: entry %q needs name, family and vendor", g.Name)
		}
		if names[g.Name] {
			return nil, fmt.Errorf("gpus.yaml: %s is listed twice", g.Name)
		}
		names[g.Name] = true
		if err := g.setSources(); err != nil {
			return nil, fmt.Errorf("gpus.yaml: %w", err)
		}
		for _, s := range g.SourceIDs() {
			if c.Source(s) == nil {
				return nil, fmt.Errorf("gpus.yaml: %s cites unknown source %q", g.Name, s)
			}
		}
	}
	for _, g := range c.GPUs {
		if err := c.checkEstimate(g); err != nil {
			return nil, err
		}
	}
	for _, p := range c.Providers {
		if p.Marketplace && c.Source(p.MarketplaceSource) == nil {
			return nil, fmt.Errorf("providers.yaml: %s: marketplace needs a marketplace_source in sources.yaml, got %q", p.Name, p.MarketplaceSource)
		}
		for _, r := range p.Risks {
			if c.Source(r.Source) == nil {
				return nil, fmt.Errorf("providers.yaml: %s: risk %q cites unknown source %q", p.Name, r.Text, r.Source)
			}
		}
		if p.BillingSource != "" && c.Source(p.BillingSource) == nil {
			return nil, fmt.Errorf("providers.yaml: %s cites unknown source %q", p.Name, p.BillingSource)
		}
	}
	for _, l := range c.Licenses {
		if c.Source(l.Source) == nil || !l.PerHour.IsPositive() {
			return nil, fmt.Errorf("licenses.yaml: %s %s: unknown source %q or non-positive price", l.Provider, l.InstanceType, l.Source)
		}
	}
	for _, p := range c.Providers {
		if len(p.Schemes) > 0 && c.Source(p.SchemesSource) == nil {
			return nil, fmt.Errorf("providers.yaml: %s schemes cite unknown source %q", p.Name, p.SchemesSource)
		}
		if p.SkyPilot != nil && c.Source(p.SkyPilot.Source) == nil {
			return nil, fmt.Errorf("providers.yaml: %s skypilot cites unknown source %q", p.Name, p.SkyPilot.Source)
		}
		if p.Ecosystem != nil && c.Source(p.Ecosystem.Source) == nil {
			return nil, fmt.Errorf("providers.yaml: %s ecosystem cites unknown source %q", p.Name, p.Ecosystem.Source)
		}
	}
	egressRegions := map[string]bool{}
	for i := range c.EgressTables {
		t := &c.EgressTables[i]
		if err := t.validate(); err != nil {
			return nil, fmt.Errorf("egress.yaml: %w", err)
		}
		if c.Source(t.Source) == nil || c.Provider(t.Provider) == nil {
			return nil, fmt.Errorf("egress.yaml: %s: unknown provider or source %q", t.Provider, t.Source)
		}
		for name, p := range t.Paths {
			if p.Source != "" && c.Source(p.Source) == nil {
				return nil, fmt.Errorf("egress.yaml: %s %s %s cites unknown source %q", t.Provider, t.Group, name, p.Source)
			}
			for _, tier := range p.Tiers {
				if tier.Source != "" && c.Source(tier.Source) == nil {
					return nil, fmt.Errorf("egress.yaml: %s %s %s tier cites unknown source %q", t.Provider, t.Group, name, tier.Source)
				}
			}
		}
		if t.Free != nil && c.Source(t.Free.Source) == nil {
			return nil, fmt.Errorf("egress.yaml: %s %s free allowance cites unknown source %q", t.Provider, t.Group, t.Free.Source)
		}
		for _, r := range t.Regions {
			k := t.Provider + "/" + strings.ToLower(r)
			if egressRegions[k] {
				return nil, fmt.Errorf("egress.yaml: %s region %s is in two tables", t.Provider, r)
			}
			egressRegions[k] = true
		}
	}
	return c, nil
}

// Parse parses a whole catalog and checks that every offering's sources exist.
func Parse(f Files) (*Catalog, error) {
	c, err := ParseSpecs(f)
	if err != nil {
		return nil, err
	}
	c.Offerings, err = c.readOfferingsCSV(bytes.NewReader(f.Offerings), bytes.Count(f.Offerings, []byte{'\n'}))
	if err != nil {
		return nil, err
	}
	if c.Commitments, err = ReadCommitmentsCSV(bytes.NewReader(f.Commitments)); err != nil {
		return nil, err
	}
	if c.SpotBands, err = ReadSpotBandsCSV(bytes.NewReader(f.SpotBands)); err != nil {
		return nil, err
	}
	if c.LeftOut, err = ReadLeftOutCSV(bytes.NewReader(f.LeftOut)); err != nil {
		return nil, err
	}
	for _, x := range c.Commitments {
		if c.Source(x.Source) == nil {
			return nil, fmt.Errorf("commitments: %s %s cites unknown source %q", x.Provider, x.InstanceType, x.Source)
		}
	}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if c.Provider(o.Provider) == nil {
			return nil, fmt.Errorf("offerings: %s: provider %q is not in providers.yaml", o.Key(), o.Provider)
		}
		for _, s := range []string{o.OnDemand.Source, o.Spot.Source, o.SpecSource, o.NetworkSource, o.RetiredSource} {
			if s != "" && c.Source(s) == nil {
				return nil, fmt.Errorf("offerings: %s cites unknown source %q", o.Key(), s)
			}
		}
	}
	return c, nil
}

func decodeStrict(b []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}
