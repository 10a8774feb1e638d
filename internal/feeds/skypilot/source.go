package skypilot

import (
	"fmt"
	"strings"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// File is one SkyPilot vms.csv the feed reads: its path under shared/data,
// SkyPilot's cloud name (the catalog folder; the build finds the provider
// whose skypilot_cloud, name or alias it is), the source id and as-of date
// the snapshot is cited by (SkyPilot's CSVs carry no date of their own), and
// how that cloud's fetcher writes two columns.
type File struct {
	Path   string
	Cloud  string
	Source string
	AsOf   string
	// MemoryIsTotal: GpuInfo's SizeInMiB is the instance total, not per GPU (Vast).
	MemoryIsTotal bool
	// StateCountryContinent: Region is "State, CC, Continent" text with an
	// often empty state (Vast); the country code is kept, the empty state dropped.
	StateCountryContinent bool
}

// Feed is the SkyPilot catalog as a feeds.Source.
type Feed struct{ Files []File }

// New returns the feed over files.
func New(files ...File) *Feed { return &Feed{Files: files} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "skypilot" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	d := feeds.Description{
		Title:    "SkyPilot catalog vms.csv files (skypilot-org/skypilot-catalog, schema v9)",
		Yields:   "offerings per instance type and region (AWS: zone) with on-demand and spot prices in USD; the accelerator as SkyPilot names it",
		Provider: feeds.SkyPilotClouds,
	}
	for _, x := range f.Files {
		d.Reads = append(d.Reads, feeds.Input{Root: feeds.Shared, Path: x.Path, Cites: []string{x.Source}})
	}
	return d
}

// Read implements feeds.Source. CPU-only rows are left out (gpuscout lists
// GPU offerings); an empty or zero price is unknown.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	res := &feeds.Result{}
	for _, x := range f.Files {
		recs, err := feeds.ParseFile(in, feeds.Shared, x.Path, Parse)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			x.add(res, r, fmt.Sprintf("%s:%d", x.Path, r.Line), x.Source, x.AsOf)
		}
	}
	return res, nil
}

// add turns one row into an offering of x's cloud, its prices cited by
// source as of asOf, or leaves it out (a CPU-only row).
func (x File) add(res *feeds.Result, r Record, origin, source, asOf string) {
	if r.AcceleratorName == "" {
		res.Leave(origin, r.InstanceType+" "+r.Region, "no accelerator (a CPU-only instance type)")
		return
	}
	region, country, src := r.Region, "", ""
	if x.StateCountryContinent {
		region, country = VastRegion(r.Region)
		src = r.Region
	}
	o := feeds.Offering{
		Origin: origin, Provider: x.Cloud, InstanceType: r.InstanceType, Region: region, SourceRegion: src, Zone: r.Zone, Country: country,
		Accelerator: r.AcceleratorName, GPUMemoryMiB: r.PerGPUMemoryMiB(x.MemoryIsTotal),
		Machine:  feeds.Machine{GPUCount: r.AcceleratorCount, VCPUs: r.VCPUs, MemoryGiB: r.MemoryGiB, LocalDiskGB: r.LocalDiskGB, Arch: r.Arch, SpecSource: source},
		OnDemand: feeds.Unknown("USD"),
	}
	if r.Price.Known {
		o.OnDemand = feeds.Known(r.Price.Amount, "USD", source, asOf)
	}
	if r.SpotPrice.Known {
		o.Spot = feeds.Known(r.SpotPrice.Amount, "USD", source, asOf)
	}
	res.Offerings = append(res.Offerings, o)
}

// VastRegion reads Vast's "State, CC, Continent" region text. The state is
// often empty (", CN, AS"); the region is then "CN, AS", never a name that
// starts with a comma. It returns the region and the ISO country code ("" if
// the text does not have that form).
func VastRegion(s string) (region, country string) {
	parts := strings.Split(s, ",")
	var kept []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	if len(parts) == 3 {
		country = strings.TrimSpace(parts[1])
	}
	return strings.Join(kept, ", "), country
}
