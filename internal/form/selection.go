package form

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// Selection is the inputs that choose offerings (gpu, provider, region,
// china, no-china, all-regions): shared by advise, offers and cost.
type Selection struct {
	GPU        string
	Providers  []string
	Regions    []string
	China      bool
	NoChina    bool
	AllRegions bool
}

// Register adds the selection's inputs to fs.
func (s *Selection) Register(fs *pflag.FlagSet) {
	fs.StringVar(&s.GPU, "gpu", "", "GPU name and optional count, NAME[:COUNT] (A100, A100-80GB:8, H100-SXM5-80GB, L4:0.5)")
	fs.StringSliceVar(&s.Providers, "provider", nil, "providers, comma-separated (aws,azure,gcp,alibaba,tencent,lambda,nebius,vast,seeweb,fluidstack)")
	fs.StringArrayVar(&s.Regions, "region", nil, "region; repeat the flag or separate with commas (names that contain commas, like Vast's \"CN, AS\", are matched whole first); Chinese names work (华东1, 北京)")
	fs.BoolVar(&s.China, "china", false, "only regions in mainland China")
	fs.BoolVar(&s.NoChina, "no-china", false, "exclude regions in mainland China")
	fs.BoolVar(&s.AllRegions, "all-regions", false, "every region and zone, not only each instance type's cheapest region")
}

// Apply sets the selection on q; errors are *InputError.
func (s *Selection) Apply(q *catalog.Query, cat *catalog.Catalog) error {
	q.AllRegions = s.AllRegions
	if s.GPU != "" {
		name, count, err := ParseGPU(s.GPU)
		if err != nil {
			return err
		}
		if q.GPUs, err = cat.LookupGPU(name); err != nil {
			return inputErrorf("gpu", "--gpu: %v", err)
		}
		q.GPUCount = count
	}
	for _, p := range s.Providers {
		prov, err := cat.LookupProvider(p)
		if err != nil {
			return inputErrorf("provider", "--provider %v", err)
		}
		q.Providers = append(q.Providers, prov.Name)
	}
	for _, r := range s.Regions {
		rs, err := ResolveRegions(r, cat.ResolveRegion)
		if err != nil {
			var bad *unknownRegionError
			if errors.As(err, &bad) {
				var known []string // the --provider's regions, else every provider's
				for _, p := range q.Providers {
					known = append(known, cat.Regions(p)...)
				}
				if len(q.Providers) == 0 {
					known = cat.Regions("")
				}
				return inputErrorf("region", "%v; closest: %s", err, strings.Join(catalog.Closest(bad.name, known, 5), ", "))
			}
			return err
		}
		q.Regions = append(q.Regions, rs...)
	}
	if s.China && s.NoChina {
		return inputErrorf("china", "--china and --no-china exclude each other; give one")
	}
	if s.China || s.NoChina {
		v := s.China
		q.China = &v
	}
	return nil
}

// ApplyPriced sets the selection of what cost prices on q: an offering
// (provider/instance[/region]) or a GPU (NAME[:COUNT]), one of them
// required, with the rest of the selection. `gpuscout cost` and POST
// /api/v1/cost select here. Errors are *InputError.
func (s *Selection) ApplyPriced(q *catalog.Query, cat *catalog.Catalog, offering string) error {
	if err := s.Apply(q, cat); err != nil {
		return err
	}
	switch {
	case offering != "":
		if err := cat.SelectOffering(q, offering); err != nil {
			return inputErrorf("offering", "--offering %v", err)
		}
	case s.GPU == "":
		return inputErrorf("gpu", "say what to price: --gpu NAME[:COUNT] or --offering provider/instance (or gpu:/offering: in --usage)")
	}
	return nil
}

// unknownRegionError names a --region value (or a part of a comma list) that is no region.
type unknownRegionError struct{ flag, name string }

func (e *unknownRegionError) Error() string {
	if e.flag == e.name {
		return fmt.Sprintf("--region %q is not a known region", e.name)
	}
	return fmt.Sprintf("--region %q: %q is not a known region", e.flag, e.name)
}

// ResolveRegions reads one --region value. The whole value is tried first,
// since some regions contain commas (Vast's "CN, AS"); otherwise it is a comma
// list, read left to right, each time taking the longest run of parts that
// names a region ("Sichuan, CN, AS,us-east-1" is two regions).
func ResolveRegions(v string, resolve func(string) []string) ([]string, error) {
	if rs := resolve(v); len(rs) > 0 {
		return rs, nil
	}
	var parts []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil, inputErrorf("region", "--region %q: empty; give a region name such as us-east-1 or 华东1", v)
	}
	var out []string
	for i := 0; i < len(parts); {
		j := len(parts)
		for ; j > i; j-- {
			if rs := resolve(strings.Join(parts[i:j], ", ")); len(rs) > 0 {
				out = append(out, rs...)
				break
			}
		}
		if j == i {
			return nil, &unknownRegionError{flag: v, name: parts[i]}
		}
		i = j
	}
	return out, nil
}

// MaxGPUCount bounds the COUNT of --gpu NAME:COUNT.
const MaxGPUCount = 1024

// ParseGPU splits --gpu NAME[:COUNT]; COUNT is 0 when not given.
func ParseGPU(s string) (string, float64, error) {
	name, count, hasCount := strings.Cut(strings.TrimSpace(s), ":")
	name = strings.TrimSpace(name)
	if name == "" {
		return "", 0, inputErrorf("gpu", "--gpu %q: want NAME[:COUNT], e.g. A100:8", s)
	}
	if !hasCount {
		return name, 0, nil
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(count), 64)
	if err != nil || !(n > 0) || n > MaxGPUCount || math.IsInf(n, 0) {
		return "", 0, inputErrorf("gpu", "--gpu %q: count %q: want a number more than 0 and at most %d (fractions such as 0.5 select GPU slices)", s, count, MaxGPUCount)
	}
	return name, n, nil
}
