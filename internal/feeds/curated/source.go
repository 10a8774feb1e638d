package curated

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Feed is the curated instance files as a feeds.Source.
type Feed struct {
	Glob string // under data/curated, e.g. "*.yaml"
}

// New returns the feed over the files matching glob.
func New(glob string) *Feed { return &Feed{Glob: glob} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "curated" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "gpuscout's curated instance files (specs from the providers' documentation, prices where a public source gives one)",
		Reads:  []feeds.Input{{Root: feeds.Curated, Path: f.Glob}},
		Yields: "instance specs per provider (joined with other feeds' rows), accelerator names of price feeds, and offerings with sourced or unknown prices",
	}
}

// Read implements feeds.Source. In a file that lists offers, every instance
// must have one; a file without offers (aws, gcp) only gives specs.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	fsys, err := in.FS(feeds.Curated)
	if err != nil {
		return nil, err
	}
	paths, err := fs.Glob(fsys, f.Glob)
	if err != nil {
		return nil, fmt.Errorf("curated: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("curated: no files match %s", f.Glob)
	}
	res := &feeds.Result{}
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("curated: %w", err)
		}
		cf, err := ParseBytes(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		hasOffers := false
		for _, in := range cf.Instances {
			hasOffers = hasOffers || len(in.Offers) > 0
		}
		for _, key := range slices.Sorted(maps.Keys(cf.Accelerators)) {
			gpu := cf.Accelerators[key]
			res.Accelerators = append(res.Accelerators, feeds.Accelerator{Origin: p + "#accelerators/" + key, Provider: cf.Provider, Key: key, GPU: gpu})
		}
		for i := range cf.Instances {
			in := &cf.Instances[i]
			origin := fmt.Sprintf("%s:%d", path.Clean(p), in.Line)
			arch := in.Arch
			if arch == "" {
				arch = "x86_64"
			}
			specSource := cf.SpecSource
			if in.SpecSource != "" {
				specSource = in.SpecSource
			}
			m := feeds.Machine{GPU: in.GPU, GPUCount: in.GPUCount, VCPUs: in.VCPUs, MemoryGiB: in.MemoryGiB, LocalDiskGB: in.LocalDiskGB,
				Interconnect: in.Interconnect, NetworkGbps: in.NetworkGbps, NetworkKind: in.NetworkKind, NetworkSource: in.NetworkSource,
				Arch: arch, SpecSource: specSource, Retired: in.Retired, RetiredSource: in.RetiredSource}
			spec := feeds.Spec{Origin: origin, Provider: cf.Provider, InstanceType: in.Type, GPUMemoryGiB: in.GPUMemoryGiB, Machine: m}
			res.Specs = append(res.Specs, spec)
			if hasOffers && len(in.Offers) == 0 {
				return nil, fmt.Errorf("%s: %s has no offers", origin, in.Type)
			}
			for _, of := range in.Offers {
				o := feeds.Offering{Origin: origin, Provider: cf.Provider, InstanceType: in.Type, Region: of.Region,
					GPUMemoryMiB: in.GPUMemoryGiB * 1024, Machine: m, OnDemand: feeds.Unknown(of.Currency)}
				if of.Price.Valid {
					o.OnDemand = feeds.Known(of.Price.Decimal, of.Currency, of.Source, of.AsOf)
				}
				if of.SpotPrice.Valid {
					o.Spot = feeds.Known(of.SpotPrice.Decimal, of.Currency, of.Source, of.AsOf)
				}
				res.Offerings = append(res.Offerings, o)
			}
		}
	}
	return res, nil
}
