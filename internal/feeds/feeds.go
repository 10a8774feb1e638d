// Package feeds defines what a price feed is to gpuscout: a Source reads
// files (under shared/data or data/curated), and yields feed-level records —
// offerings with their on-demand and spot prices, commitment prices, spot
// interruption bands, instance specs and accelerator names — together with
// every row it left out and why. catalog/build converts these records into
// the catalog's own types; the feeds import nothing else of gpuscout, so a
// new provider is one package implementing Source plus one line in the
// registry (internal/feeds/registry).
package feeds

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/shopspring/decimal"
)

// Source is one price feed.
type Source interface {
	// ID names the feed in the registry ("skypilot-vast", "awsondemand").
	ID() string
	// Describe says what the feed reads and what it yields.
	Describe() Description
	// Read parses the feed's files from in. A malformed file is an error
	// naming the file and line; rows the feed skips on purpose are reported
	// in Result.LeftOut with a reason.
	Read(in Inputs) (*Result, error)
}

// Root names the folder an input file lives in.
type Root string

// The folders feeds read from.
const (
	Shared  Root = "shared"  // the project's shared source data (../shared/data)
	Curated Root = "curated" // gpuscout's curated instance files (data/curated)
)

// Input is one file (or glob) a feed reads.
type Input struct {
	Root Root
	Path string // slash-separated, relative to Root; may be a glob (*.yaml)
	// Cites lists the source ids the file's rows are cited by, where the
	// feed knows them without reading it (not for curated files, whose rows
	// name their own sources).
	Cites []string
}

// String writes the input as root:path.
func (i Input) String() string { return string(i.Root) + ":" + i.Path }

// Description is what a feed reads and yields, for listings and reports.
type Description struct {
	Title  string  // one line: what the source is
	Reads  []Input // the files it reads
	Yields string  // what records it yields
	// Provider says what the records' Provider names are: the catalog's
	// provider names (the default) or SkyPilot's cloud names.
	Provider Naming
}

// Naming is the namespace of a feed's provider names.
type Naming string

// Provider namings.
const (
	CatalogNames   Naming = ""         // gpuscout's provider names and aliases (providers.yaml)
	SkyPilotClouds Naming = "skypilot" // SkyPilot's cloud names (providers.yaml skypilot_cloud)
)

// Inputs are the folders a feed reads from.
type Inputs struct {
	Shared  fs.FS
	Curated fs.FS
}

// FS returns the folder of root, or an error when it was not given.
func (in Inputs) FS(root Root) (fs.FS, error) {
	switch root {
	case Shared:
		if in.Shared != nil {
			return in.Shared, nil
		}
	case Curated:
		if in.Curated != nil {
			return in.Curated, nil
		}
	}
	return nil, fmt.Errorf("feeds: no %s folder given", root)
}

// Price is an hourly price as a feed states it. A price the source does not
// give has Known == false and a zero Amount; a known price is positive and
// carries its currency (ISO 4217), source id and as-of date (YYYY-MM-DD).
type Price struct {
	Known    bool
	Amount   decimal.Decimal
	Currency string
	Source   string
	AsOf     string
}

// Offering is an instance type sold in a region (or zone), as a feed states it.
// Spec fields the feed does not give are zero; catalog/build joins them with
// the curated specs.
type Offering struct {
	Origin       string // "file:line" of the row
	Provider     string // the feed's provider or cloud name; build resolves it against the catalog's providers
	InstanceType string
	Region       string
	// SourceRegion is the region exactly as the source writes it, where
	// Region is a normalised form of it (Vast's ", CA, NA" is Region
	// "CA, NA"); "" where Region is the source's own text.
	SourceRegion string
	Zone         string
	Country      string  // ISO 3166 country code where the source gives one (Vast)
	Accelerator  string  // the feed's own accelerator name or key ("A100", "a100", "h100-80gb")
	GPUMemoryMiB float64 // per GPU (or slice); 0 = unknown
	Machine              // what the feed states of the machine (GPU: only where the feed is curated)
	OnDemand     Price
	Spot         Price
}

// Machine is what an instance type is, as a feed states it: the part an
// offering and a curated spec share, so catalog/build copies it in one place.
type Machine struct {
	GPU          string // a canonical GPU name
	GPUCount     float64
	VCPUs        float64
	MemoryGiB    float64
	LocalDiskGB  float64
	Interconnect string
	NetworkGbps  float64
	// NetworkKind and NetworkSource: what the network is (efa, infiniband,
	// gpudirect-tcpx, gpudirect-tcpxo, rdma, ethernet; "" unknown) and the
	// source id citing it.
	NetworkKind, NetworkSource string
	Arch                       string
	SpecSource                 string
	// Retired is the date (YYYY-MM-DD) the provider retired the size, with
	// the source id of the notice; "" while it is sold.
	Retired, RetiredSource string
}

// Commitment is the price of a commitment offer (reservation, committed-use
// discount, subscription): an upfront amount and a recurring fee per term
// hour or per month.
type Commitment struct {
	Origin       string
	Provider     string
	InstanceType string
	Region       string
	Model        string // reserved, savings-plan, commitment, subscription
	Term         string // 1y, 3y, 1mo
	Payment      string // no-upfront, partial-upfront, all-upfront, monthly
	Class        string // AWS: standard, convertible
	Upfront      decimal.Decimal
	Hourly       decimal.Decimal
	Monthly      decimal.Decimal
	Currency     string
	Source       string
	AsOf         string
	// Note says what the reader of the price should know, in a sentence:
	// a range the source gives ("3520 - 4400 by region, priced at the
	// upper end"). Empty for most.
	Note string
}

// SpotBand is a published band of monthly spot interruption frequency.
type SpotBand struct {
	Origin       string
	Provider     string
	InstanceType string
	Region       string
	Label        string  // "<5%", "5-10%", ... ">20%"
	Low, High    float64 // percent
	SavingsPct   float64 // advertised saving against on-demand
	Source       string
	AsOf         string
}

// Spec is a curated instance specification that other feeds' rows are joined with.
type Spec struct {
	Origin       string
	Provider     string
	InstanceType string
	GPUMemoryGiB float64 // per GPU or slice; 0 = the GPU's own memory
	Machine
}

// Accelerator maps a feed's accelerator key to a canonical GPU name (GCP's "a100").
type Accelerator struct {
	Origin   string
	Provider string
	Key      string
	GPU      string
}

// License is the hourly price of an OS licence (Windows) a provider sells
// with an instance type in a region, over the price without it: what a
// bring-your-own-licence programme (Azure Hybrid Benefit) waives.
type License struct {
	Origin       string
	Provider     string
	InstanceType string
	Region       string
	License      string          // "windows"
	PerHour      decimal.Decimal // the licensed price less the Linux price
	Currency     string
	Source       string
	AsOf         string
	BringYourOwn string // the programme that waives it; "" if none
}

// LeftOut is a source row a feed (or the build) did not turn into a record.
type LeftOut struct {
	Origin string // "file:line", or "file" with What naming the entry
	What   string // the row: instance type, region, ...
	Reason string
}

// String writes the report as "origin what: reason".
func (l LeftOut) String() string { return l.Origin + " " + l.What + ": " + l.Reason }

// Result is what a feed yields.
type Result struct {
	Offerings    []Offering
	Commitments  []Commitment
	SpotBands    []SpotBand
	Specs        []Spec
	Accelerators []Accelerator
	LeftOut      []LeftOut
	Licenses     []License
	// Naming is the namespace of the records' Provider names where an
	// importer's result is not in the catalog's names (SkyPilot's cloud
	// names for skypilot-csv); a Source says it in Describe instead.
	Naming Naming
	// Lists says an importer's records list every instance type the
	// provider sells in the regions they price (a whole regional offer
	// file, a fetch of a region's whole list, every page of it): a type
	// they leave out of such a region, for a kind of price they have there,
	// is no longer sold, and its old price must not be served as current.
	// False for answers about the types asked (DescribePrice, GetProducts,
	// spot history), for files whose request may have been filtered, and for
	// part of a listing (one page of several).
	Lists bool
}

// Leave records a left-out row.
func (r *Result) Leave(origin, what, reason string) {
	r.LeftOut = append(r.LeftOut, LeftOut{Origin: origin, What: what, Reason: reason})
}

// Known returns a known price.
func Known(amount decimal.Decimal, currency, source, asOf string) Price {
	return Price{Known: true, Amount: amount, Currency: currency, Source: source, AsOf: asOf}
}

// Unknown returns an unknown price in currency.
func Unknown(currency string) Price { return Price{Currency: currency} }

// ParseFile opens path under root and parses it with parse: the one way a
// feed reads a file, so every feed names the file in its errors alike
// ("path: what is wrong").
func ParseFile[T any](in Inputs, root Root, path string, parse func(io.Reader) (T, error)) (T, error) {
	var zero T
	fsys, err := in.FS(root)
	if err != nil {
		return zero, err
	}
	fh, err := fsys.Open(path)
	if err != nil {
		return zero, err
	}
	defer fh.Close()
	v, err := parse(fh)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
