// Package curated reads gpuscout's own curated instance files (data/curated/*.yaml):
// instance specifications per provider taken from the providers' documentation,
// and the regional offers with a price where a public source gives one. They
// fill what no machine-readable feed in shared/data covers: AWS instance specs
// for the Karpenter price table, GCP accelerator names, and the Azure, Alibaba
// Cloud and Tencent Cloud GPU families.
package curated

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"
)

// File is one provider's curated file.
type File struct {
	Provider   string `yaml:"provider"`
	SpecSource string `yaml:"spec_source"`
	// Accelerators maps a price feed's accelerator key to a GPU name (GCP's "a100").
	Accelerators map[string]string `yaml:"accelerators"`
	Instances    []Instance        `yaml:"instances"`
}

// Instance is one instance type.
type Instance struct {
	Type string `yaml:"type"`
	// SpecSource, where set, is the source id of this instance's spec in
	// place of the file's spec_source (a type read from another page).
	SpecSource   string  `yaml:"spec_source"`
	GPU          string  `yaml:"gpu"`
	GPUCount     float64 `yaml:"gpu_count"`
	GPUMemoryGiB float64 `yaml:"gpu_memory_gib"` // per GPU or slice; 0 = the GPU's own memory
	VCPUs        float64 `yaml:"vcpus"`
	MemoryGiB    float64 `yaml:"memory_gib"`
	LocalDiskGB  float64 `yaml:"local_disk_gb"`
	Interconnect string  `yaml:"interconnect"`
	NetworkGbps  float64 `yaml:"network_gbps"`
	// NetworkKind is the inter-node network (efa, infiniband,
	// gpudirect-tcpx, gpudirect-tcpxo, rdma, ethernet); NetworkSource the
	// source id citing it and NetworkGbps. Both empty: unknown. A kind may
	// come without NetworkGbps where no source gives the bandwidth.
	NetworkKind   string `yaml:"network_kind"`
	NetworkSource string `yaml:"network_source"`
	Arch          string `yaml:"arch"`
	// Retired is the date (YYYY-MM-DD) the provider retired the size;
	// RetiredSource cites the retirement notice (a source id).
	Retired       string  `yaml:"retired"`
	RetiredSource string  `yaml:"retired_source"`
	Offers        []Offer `yaml:"offers"`
	Line          int     `yaml:"-"`
}

// Offer is the instance sold in a region, with a price where one is sourced.
type Offer struct {
	Region    string              `yaml:"region"`
	Price     decimal.NullDecimal `yaml:"price"`
	SpotPrice decimal.NullDecimal `yaml:"spot_price"`
	Currency  string              `yaml:"currency"`
	Source    string              `yaml:"source"`
	AsOf      string              `yaml:"as_of"`
}

var (
	dateRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })
	curRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z]{3}$`) })
)

// Parse reads and checks one file. Errors name the line.
func Parse(r io.Reader) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return ParseBytes(b)
}

// ParseBytes is Parse of a file's contents.
func ParseBytes(b []byte) (*File, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if f.Provider == "" {
		return nil, fmt.Errorf("provider is required")
	}
	lines := instanceLines(&root)
	seen := map[string]bool{}
	for i := range f.Instances {
		in := &f.Instances[i]
		if i < len(lines) {
			in.Line = lines[i]
		}
		at := fmt.Sprintf("line %d: instance %q", in.Line, in.Type)
		switch {
		case in.Type == "":
			return nil, fmt.Errorf("line %d: instance needs a type", in.Line)
		case seen[in.Type]:
			return nil, fmt.Errorf("%s is listed twice", at)
		case in.GPU == "":
			return nil, fmt.Errorf("%s: gpu is required", at)
		case in.GPUCount <= 0:
			return nil, fmt.Errorf("%s: gpu_count must be > 0", at)
		case in.VCPUs <= 0 || in.MemoryGiB <= 0:
			return nil, fmt.Errorf("%s: vcpus and memory_gib must be > 0", at)
		case in.Retired != "" && (!dateRE().MatchString(in.Retired) || in.RetiredSource == ""):
			return nil, fmt.Errorf("%s: retired %q needs a date YYYY-MM-DD and a retired_source", at, in.Retired)
		case in.Retired == "" && in.RetiredSource != "":
			return nil, fmt.Errorf("%s: retired_source without a retired date", at)
		}
		seen[in.Type] = true
		for _, o := range in.Offers {
			if o.Region == "" {
				return nil, fmt.Errorf("%s: offer needs a region", at)
			}
			priced := o.Price.Valid || o.SpotPrice.Valid
			if priced && (o.Source == "" || !curRE().MatchString(o.Currency) || !dateRE().MatchString(o.AsOf)) {
				return nil, fmt.Errorf("%s/%s: a price needs source, a currency code and as_of YYYY-MM-DD", at, o.Region)
			}
			if (o.Price.Valid && !o.Price.Decimal.IsPositive()) || (o.SpotPrice.Valid && !o.SpotPrice.Decimal.IsPositive()) {
				return nil, fmt.Errorf("%s/%s: prices must be positive", at, o.Region)
			}
		}
	}
	return &f, nil
}

// instanceLines finds the line of each element of the top-level instances list.
func instanceLines(root *yaml.Node) []int {
	if len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "instances" {
			var out []int
			for _, n := range m.Content[i+1].Content {
				out = append(out, n.Line)
			}
			return out
		}
	}
	return nil
}

// Instance returns the instance of the given type, or nil (also for a nil file).
func (f *File) Instance(typ string) *Instance {
	if f == nil {
		return nil
	}
	for i := range f.Instances {
		if f.Instances[i].Type == typ {
			return &f.Instances[i]
		}
	}
	return nil
}
