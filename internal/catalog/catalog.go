// Package catalog is gpuscout's knowledge of GPUs, providers and offerings: the
// GPU spec table, providers with their regions and billing, and every offering
// (instance type × region, or zone where spot prices differ) with its on-demand
// and spot price, each price carrying its source and as-of date. The default
// catalog is embedded in the binary twice: as the reviewed text files (YAML
// tables and generated CSV files, which Parse reads) and as their parse in
// a compact binary form (data/catalog.bin, binary.go) that Default and
// GPUTable decode at start-up.
package catalog

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Interconnect values of an offering: how its GPUs talk to each other.
const (
	LinkNVSwitch = "nvswitch"
	LinkNVLink   = "nvlink"
	LinkPCIe     = "pcie"
	LinkNone     = "none"       // one GPU, or a slice of one
	LinkUnknown  = "unknown"    // several GPUs, link not sourced
	LinkNeuron   = "neuronlink" // AWS Inferentia2/Trainium chip-to-chip
)

// Interconnects lists the values --interconnect accepts.
var Interconnects = []string{LinkNVSwitch, LinkNVLink, LinkNeuron, LinkPCIe, LinkNone, LinkUnknown}

// Network kinds of an offering: what carries traffic between its nodes.
const (
	NetEFA         = "efa"             // AWS Elastic Fabric Adapter (OS-bypass RDMA-like transport)
	NetInfiniBand  = "infiniband"      // InfiniBand with GPUDirect RDMA
	NetTCPX        = "gpudirect-tcpx"  // GCP GPUDirect-TCPX (A3 High)
	NetTCPXO       = "gpudirect-tcpxo" // GCP GPUDirect-TCPXO (A3 Mega)
	NetRDMA        = "rdma"            // RoCE/eRDMA
	NetEthernet    = "ethernet"        // plain TCP/IP Ethernet
	NetworkUnknown = "unknown"         // not sourced
)

// NetworkKinds lists the values network_kind accepts.
var NetworkKinds = []string{NetEFA, NetInfiniBand, NetTCPX, NetTCPXO, NetRDMA, NetEthernet, NetworkUnknown}

// FastNetworkGbps is the least inter-node bandwidth a fast network has.
const FastNetworkGbps = 100

// Network returns the offering's network kind, "unknown" where not sourced.
func (o *Offering) Network() string {
	if o.NetworkKind == "" {
		return NetworkUnknown
	}
	return o.NetworkKind
}

// FastNetwork says whether the offering's nodes are joined by a known GPU
// fabric (EFA, InfiniBand, GPUDirect-TCPX/TCPXO or RDMA) of at least
// FastNetworkGbps. A fabric whose bandwidth nobody sources (NetworkGbps 0)
// is not known to be fast.
func (o *Offering) FastNetwork() bool {
	switch o.NetworkKind {
	case NetEFA, NetInfiniBand, NetTCPX, NetTCPXO, NetRDMA:
		return o.NetworkGbps >= FastNetworkGbps
	}
	return false
}

// Source is one cited origin of prices or specs.
type Source struct {
	ID    string `yaml:"id" json:"id"`
	Title string `yaml:"title" json:"title"`
	URL   string `yaml:"url" json:"url,omitempty"`
	// File is a file under the project's shared/data holding the source's
	// rows, for sources without a public URL (slash-separated, relative).
	File    string `yaml:"file" json:"file,omitempty"`
	Commit  string `yaml:"commit" json:"commit,omitempty"`
	License string `yaml:"license" json:"license,omitempty"`
	AsOf    string `yaml:"as_of" json:"as_of,omitempty"`
	Notes   string `yaml:"notes" json:"notes,omitempty"`
}

// Price is an hourly price with provenance. A price nobody could source has
// Known == false and is shown as unknown, never as zero.
type Price struct {
	Known bool
	// Amount is the hourly price with its currency. The currency is set even
	// where the price is unknown: it is the currency the provider prices in.
	money.Amount
	Source string // a Source.ID, or a user price file reference
	AsOf   string // YYYY-MM-DD
	Note   string
}

// KnownPrice returns a sourced price.
func KnownPrice(v decimal.Decimal, c money.Currency, source, asOf string) Price {
	return Price{Known: true, Amount: money.New(v, c), Source: source, AsOf: asOf}
}

// Offering is one purchasable configuration: an instance type in a region
// (and zone, where spot prices differ per zone).
type Offering struct {
	Provider     string
	InstanceType string
	Region       string
	Zone         string
	China        bool // region in mainland China
	GPU          *GPU
	GPUCount     float64 // fractions for MIG/vGPU slices
	GPUMemoryGiB float64 // per GPU (or per slice)
	VCPUs        float64
	MemoryGiB    float64
	LocalDiskGB  float64 // 0: none or unknown
	Interconnect string
	// NetworkGbps is the inter-node network for GPU traffic (the RDMA
	// fabric where the instance has one, else its Ethernet), 0: unknown;
	// NetworkKind says what it is (a Net… constant, "" for unknown) and
	// NetworkSource cites it (a source id; "" for unknown). A kind may be
	// sourced without its bandwidth (Nebius's InfiniBand): NetworkGbps 0.
	NetworkGbps   float64
	NetworkKind   string
	NetworkSource string
	Arch          string
	SpecSource    string
	OnDemand      Price
	Spot          Price
	// Retired, where set, is the date (YYYY-MM-DD) the provider retired
	// the size, and RetiredSource cites the notice. Queries leave retired
	// offerings out unless asked (Query.IncludeRetired).
	Retired       string
	RetiredSource string
	// SkyPilotAccelerator is SkyPilot's own name for the instance type's
	// accelerator (its catalog's AcceleratorName: GCP's a3-megagpu-8g is
	// "H100-MEGA", Fluidstack's H100 "H100-NVLINK"), and SkyPilotRegion the
	// region as SkyPilot's catalog writes it (Vast: ", CA, NA"). Both are
	// set only on offerings read from SkyPilot's catalog; "" otherwise.
	SkyPilotAccelerator string
	SkyPilotRegion      string
	// Steps, where set, price pay-as-you-go use by cumulative hours of use
	// (Tencent Cloud's stepped 阶梯 prices: (0,96], (96,360], >360 h); the
	// first step equals OnDemand. Prices are in OnDemand.Currency.
	Steps []PriceStep
}

// PriceStep is an hourly price from a number of hours of use on.
type PriceStep struct {
	FromHours float64
	Amount    decimal.Decimal
}

// wholeCardShare: an offering whose memory per GPU is at least this share of
// the card's is a whole card (NVML reports slightly less than the datasheet);
// below it, a slice (MIG, vGPU) with memory of its own.
const wholeCardShare = 0.9

// GPUMemoryClassGB is the memory per GPU to compare with a requirement such
// as "80 GB": the card's nominal memory class (GPU.MemoryClassGB) when the
// offering carries a whole card, so that an H100 80 GB listed at 79.6 GiB
// (NVML's usable figure) still counts as 80 GB; otherwise (a slice, or no
// class sourced) the offering's own GPUMemoryGiB. 0 means unknown.
func (o *Offering) GPUMemoryClassGB() float64 {
	g := o.GPU
	if g == nil || !g.MemoryClassGB.Known {
		return o.GPUMemoryGiB
	}
	if o.GPUMemoryGiB == 0 || !g.MemoryGiB.Known || o.GPUMemoryGiB >= wholeCardShare*g.MemoryGiB.Value {
		return g.MemoryClassGB.Value
	}
	return o.GPUMemoryGiB
}

// RetiredOn reports whether the offering was retired on or before the
// day (YYYY-MM-DD); an offering retiring later is still sold.
func (o *Offering) RetiredOn(day string) bool {
	return o.Retired != "" && o.Retired <= day
}

// NoRegionNote says what an offering without a region means, or "" where
// it has one. Every command shows such a region as "-" and prices it; this
// is the one sentence that says why. SkyPilot's Seeweb catalog leaves the
// region empty where Seeweb's API lists no region the plan is available in
// (fetch_seeweb.py: "No regions available, create a row with empty
// region"), while the provider's other plans name theirs (it-fr2).
func (o *Offering) NoRegionNote() string {
	if o.Region != "" {
		return ""
	}
	src := o.OnDemand.Source
	if src == "" {
		src = o.SpecSource
	}
	note := fmt.Sprintf("no region: %s lists %s's %s in none", src, o.Provider, o.InstanceType)
	if strings.HasPrefix(src, "skypilot") {
		note += " (SkyPilot's catalog leaves the region empty where the provider listed no region with the plan available when it was built)"
	}
	return note + ": check where it is on sale before you plan on it"
}

// Key identifies an offering.
func (o *Offering) Key() string {
	return o.Provider + "/" + o.InstanceType + "/" + o.Region + "/" + o.Zone
}

// CompareKeys orders offerings by provider, instance type, region and zone.
func CompareKeys(a, b *Offering) int {
	return cmp.Or(
		cmp.Compare(a.Provider, b.Provider),
		cmp.Compare(a.InstanceType, b.InstanceType),
		cmp.Compare(a.Region, b.Region),
		cmp.Compare(a.Zone, b.Zone),
	)
}

// Catalog is the loaded catalog.
type Catalog struct {
	GPUs      []*GPU
	Providers []*Provider
	Offerings []Offering
	Sources   []Source
	// Commitments are the sourced commitment prices (reservations, CUDs, subscriptions).
	Commitments []Commitment
	// EgressTables are the per-provider data-transfer prices.
	EgressTables []EgressTable
	// SpotBands are AWS Spot Advisor interruption bands.
	SpotBands []SpotBand
	// Licenses are sourced OS licence surcharges.
	Licenses []LicenseSurcharge
	// LeftOut are the instance types a price feed lists that the build left out, and why.
	LeftOut []LeftOutType

	gpuIndex      map[string][]*GPU
	providerIndex map[string]*Provider
	sourceIndex   map[string]*Source
	spotIdx       spotIndex // see resolve.go
}

// Provider returns the provider by name or alias (aliyun, 阿里云), or nil.
func (c *Catalog) Provider(name string) *Provider {
	return c.providerIndex[strings.ToLower(strings.TrimSpace(name))]
}

// ProviderNames lists provider names in catalog order.
func (c *Catalog) ProviderNames() []string {
	out := make([]string, len(c.Providers))
	for i, p := range c.Providers {
		out[i] = p.Name
	}
	return out
}

// Source returns the source by id, or nil.
func (c *Catalog) Source(id string) *Source { return c.sourceIndex[id] }

// AddSource registers a source (a user price file, say) if it is new.
func (c *Catalog) AddSource(s Source) {
	if _, ok := c.sourceIndex[s.ID]; ok {
		return
	}
	c.Sources = append(c.Sources, s)
	c.sourceIndex[s.ID] = &c.Sources[len(c.Sources)-1]
	// Appending may have moved the slice: rebuild pointers.
	for i := range c.Sources {
		c.sourceIndex[c.Sources[i].ID] = &c.Sources[i]
	}
}

// Regions returns every region name used by offerings of the provider (all
// providers if provider is empty), sorted.
func (c *Catalog) Regions(provider string) []string {
	set := map[string]bool{}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if provider == "" || o.Provider == provider {
			set[o.Region] = true
		}
	}
	for _, p := range c.Providers {
		if provider != "" && p.Name != provider {
			continue
		}
		for _, r := range p.Regions {
			set[r.Name] = true
		}
	}
	delete(set, "")
	return slices.Sorted(maps.Keys(set))
}

// ResolveRegion maps a region name or alias (华东1, "Hangzhou") to the
// provider's region names. It returns the canonical names that match.
func (c *Catalog) ResolveRegion(name string) []string {
	n := strings.ToLower(strings.TrimSpace(name))
	var out []string
	seen := map[string]bool{}
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, p := range c.Providers {
		for _, r := range p.Regions {
			if strings.ToLower(r.Name) == n {
				add(r.Name)
				continue
			}
			for _, a := range r.Aliases {
				if strings.ToLower(a) == n {
					add(r.Name)
				}
			}
		}
	}
	for _, r := range c.Regions("") {
		if strings.ToLower(r) == n {
			add(r)
		}
	}
	return out
}

func (c *Catalog) index() error {
	c.gpuIndex = gpuIndexOf(c.GPUs)
	c.indexProviders()
	return c.indexSources()
}

// gpuIndexOf maps each normalized name, family and alias to its GPUs.
func gpuIndexOf(gpus []*GPU) map[string][]*GPU {
	m := map[string][]*GPU{}
	for _, g := range gpus {
		for _, k := range g.keys() {
			m[k] = appendUnique(m[k], g)
		}
	}
	return m
}

// indexProviders maps each provider's name and lower-case aliases to it.
func (c *Catalog) indexProviders() {
	c.providerIndex = make(map[string]*Provider, 2*len(c.Providers))
	for _, p := range c.Providers {
		c.providerIndex[p.Name] = p
		for _, a := range p.Aliases {
			c.providerIndex[strings.ToLower(a)] = p
		}
	}
}

// indexSources builds the source index (Default's copies share the others).
func (c *Catalog) indexSources() error {
	c.sourceIndex = make(map[string]*Source, len(c.Sources))
	for i := range c.Sources {
		if _, dup := c.sourceIndex[c.Sources[i].ID]; dup {
			return fmt.Errorf("source %q is defined twice", c.Sources[i].ID)
		}
		c.sourceIndex[c.Sources[i].ID] = &c.Sources[i]
	}
	return nil
}

func appendUnique(list []*GPU, g *GPU) []*GPU {
	for _, x := range list {
		if x == g {
			return list
		}
	}
	return append(list, g)
}

// LookupProvider returns the provider of that name (any case), or an
// *UnknownProviderError naming the known ones: the one check every input
// that names a provider goes through (flags, price files, credits, the
// dashboard's filters).
func (c *Catalog) LookupProvider(name string) (*Provider, error) {
	if p := c.Provider(name); p != nil {
		return p, nil
	}
	e := &UnknownProviderError{Name: name, Known: c.ProviderNames()}
	best := 3 // a suggestion only within two edits
	for _, k := range e.Known {
		if d := levenshtein.ComputeDistance(strings.ToLower(strings.TrimSpace(name)), k); d < best {
			best, e.Suggestion = d, k
		}
	}
	return nil, e
}

// UnknownProviderError is a provider name the catalog does not know.
type UnknownProviderError struct {
	Name       string
	Known      []string
	Suggestion string // the closest known name, "" when none is close
}

func (e *UnknownProviderError) Error() string {
	s := fmt.Sprintf("%q is not a known provider", e.Name)
	if e.Suggestion != "" {
		s += fmt.Sprintf(" (did you mean %s?)", e.Suggestion)
	}
	return s + "; known: " + strings.Join(e.Known, ", ")
}
