package gcpbilling

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Usage types, as gpuscout names them.
const (
	onDemand = "on-demand"
	spot     = "spot"
	commit1y = "1y"
	commit3y = "3y"
)

var usages = []string{onDemand, spot, commit1y, commit3y}

// usageOf maps the API's category.usageType.
var usageOf = map[string]string{"OnDemand": onDemand, "Preemptible": spot, "Commit1Yr": commit1y, "Commit3Yr": commit3y}

// Parts of a machine's price.
const (
	partGPU  = "gpu"
	partCore = "core"
	partRAM  = "ram"
	partSSD  = "local SSD"
)

// unitOf is the usage unit each part is priced in, hourly; local SSD is
// also priced per GiB-month (GiBy.mo), made hourly over HoursPerMonth.
var unitOf = map[string]string{partGPU: "h", partCore: "h", partRAM: "GiBy.h", partSSD: "GiBy.h"}

// HoursPerMonth turns a monthly local SSD price into an hourly one: the 730
// hours Google's price pages count in a month. Cyclenerd's prices of the
// machines that bundle local SSD are GPU + vCPU + RAM + GB × monthly / 730:
// a2-ultragpu-8g in us-central1 less 3000 × 0.08 / 730 leaves 40.221616,
// a3-highgpu-8g less 6000 × 0.08 / 730 leaves 87.832465656.
const HoursPerMonth = 730

// GPUKeys maps the catalog's canonical GPU names to the GPU as Cloud Billing
// SKU descriptions name it, lower-cased without "Nvidia", "Tesla" and "GPU"
// ("Nvidia Tesla A100 80GB GPU running in Americas" is "a100 80gb"). A GPU
// not listed here is left out of the sums, never guessed.
var GPUKeys = map[string]string{
	"A100-SXM4-40GB": "a100",
	"A100-SXM4-80GB": "a100 80gb",
	"H100-SXM5-80GB": "h100 80gb",
	"H200-SXM-141GB": "h200 141gb", // "H200 141GB GPU running in ..." (a3-ultragpu)
	"L4":             "l4",
}

// megaKey is the GPU of the A3 Mega machines, billed under its own SKUs.
const megaKey = "h100 80gb mega"

// component names one priced part: a usage of a part of a family (or GPU) in a region.
type component struct{ usage, part, name, region string }

type price struct {
	amount decimal.Decimal
	sku    string // skuId
}

// index holds the usable SKUs' prices by component and the SKUs left out.
type index struct {
	currency string
	prices   map[component]price
	skus     map[string]*SKU // skuId -> SKU, for the ones in prices
	order    []string        // skuIds in reading order
	used     map[string]bool
	res      *feeds.Result
	origin   string
}

func newIndex(currency, origin string, res *feeds.Result) *index {
	return &index{currency: currency, origin: origin, res: res,
		prices: map[component]price{}, skus: map[string]*SKU{}, used: map[string]bool{}}
}

// add files one SKU under its components, or leaves it out with the reason.
func (ix *index) add(s *SKU) {
	id := s.SKUID
	if id == "" {
		id = s.Name
	}
	what := strings.TrimSpace(s.Description + " (" + id + ")")
	leave := func(format string, a ...any) { ix.res.Leave(ix.origin+"#sku/"+id, what, fmt.Sprintf(format, a...)) }
	if id == "" {
		leave("no skuId or name")
		return
	}
	if _, dup := ix.skus[id]; dup {
		leave("SKU %s read twice (on two pages): kept the first", id)
		return
	}
	usage, ok := usageOf[s.Category.UsageType]
	if !ok {
		leave("usage type %q is not imported (OnDemand, Preemptible, Commit1Yr and Commit3Yr are)", s.Category.UsageType)
		return
	}
	part, name, why := classify(s)
	if why != "" {
		leave("%s", why)
		return
	}
	amount, unit, currency, err := s.ListPrice()
	switch {
	case err != nil:
		leave("price: %v", err)
		return
	case currency != ix.currency:
		leave("price in %q, expected %s", currency, ix.currency)
		return
	case part == partSSD && unit == "GiBy.mo":
		amount = amount.Div(decimal.NewFromInt(HoursPerMonth))
	case unit != unitOf[part]:
		leave("usage unit %q, expected %q for a %s SKU", unit, unitOf[part], part)
		return
	}
	switch {
	case amount.IsNegative():
		leave("negative price %s", amount)
		return
	case amount.IsZero():
		leave("a zero price is not a price")
		return
	}
	if len(s.ServiceRegions) == 0 {
		leave("no service region")
		return
	}
	for _, r := range s.ServiceRegions {
		c := component{usage, part, name, r}
		if p, dup := ix.prices[c]; dup {
			leave("same %s %s %q in %s as SKU %s: kept that one", usage, part, name, r, p.sku)
			return
		}
	}
	for _, r := range s.ServiceRegions {
		ix.prices[component{usage, part, name, r}] = price{amount, id}
	}
	ix.skus[id] = s
	ix.order = append(ix.order, id)
}

// classify names the part and the family or GPU a Compute SKU prices, or
// says why it is not one gpuscout sums.
func classify(s *SKU) (part, name, why string) {
	if s.Category.ResourceGroup == "LocalSSD" {
		return classifySSD(s)
	}
	if s.Category.ResourceFamily != "Compute" {
		return "", "", fmt.Sprintf("resource family %q is not Compute", s.Category.ResourceFamily)
	}
	switch s.Category.ResourceGroup {
	case "GPU":
		part = partGPU
	case "CPU":
		part = partCore
	case "RAM":
		part = partRAM
	default:
		return "", "", fmt.Sprintf("resource group %q is not a GPU or a machine family's vCPU or RAM", s.Category.ResourceGroup)
	}
	d := s.Description
	if strings.ContainsAny(d, "()") {
		return "", "", "a variant SKU (its description has a qualifier in brackets), not the list price"
	}
	for _, p := range []string{"Commitment v1: ", "Commitment v2: ", "Spot Preemptible ", "Preemptible "} {
		d = strings.TrimPrefix(d, p)
	}
	cut := len(d)
	for _, m := range []string{" running in ", " attached to ", " in "} {
		if i := strings.Index(d, m); i >= 0 && i < cut {
			cut = i
		}
	}
	words := strings.Fields(strings.ToLower(d[:cut]))
	if len(words) == 0 {
		return "", "", "no description to name the resource"
	}
	switch part {
	case partGPU:
		var keep []string
		for _, w := range words {
			if w != "nvidia" && w != "tesla" && w != "gpu" {
				keep = append(keep, w)
			}
		}
		if len(keep) == 0 {
			return "", "", "the description names no GPU"
		}
		return part, strings.Join(keep, " "), ""
	case partCore, partRAM:
		// "A2 Instance Core", "T2D AMD Instance Ram", "Commitment v1: A2 Cpu":
		// the family is the first word; custom, sole-tenant and extended
		// memory SKUs price other machines.
		tail := map[string][]string{partCore: {"instance core", "cpu"}, partRAM: {"instance ram", "ram"}}[part]
		joined := strings.Join(words, " ")
		ok := false
		for _, t := range tail {
			ok = ok || strings.HasSuffix(joined, " "+t)
		}
		for _, w := range words {
			if w == "custom" || w == "sole" || w == "tenancy" || w == "extended" {
				ok = false
			}
		}
		if !ok {
			return "", "", "not a predefined machine family's " + map[string]string{partCore: "vCPU", partRAM: "RAM"}[part] + " (custom, sole-tenant or other)"
		}
	}
	return part, words[0], ""
}

// classifySSD accepts the generic local SSD SKUs ("SSD backed Local Storage
// running in …", "… attached to Spot Preemptible VMs", "Commitment v1: Local
// SSD in …"), the disks bundled with A2 Ultra and A3 machines. Family SKUs
// ("C3 Instance Local SSD") and SSD for reservations or stopped VMs price
// other things.
func classifySSD(s *SKU) (part, name, why string) {
	d := s.Description
	for _, p := range []string{"Commitment v1: ", "Commitment v2: "} {
		d = strings.TrimPrefix(d, p)
	}
	if i := strings.Index(d, " attached to "); i >= 0 {
		if !strings.HasPrefix(d[i:], " attached to Spot Preemptible VMs") {
			return "", "", "local SSD attached to something other than a VM (reservations, ...)"
		}
		d = d[:i]
	}
	for _, m := range []string{" running in ", " in "} {
		if i := strings.Index(d, m); i >= 0 {
			d = d[:i]
		}
	}
	switch strings.ToLower(strings.TrimSpace(d)) {
	case "ssd backed local storage", "local ssd":
		return partSSD, "local", ""
	}
	return "", "", "not the generic local SSD SKU (a machine family's own, or SSD kept for stopped VMs)"
}

// shape is a machine type's parts as the SKUs name them.
type shape struct {
	spec   feeds.Spec
	family string // "a2"
	gpu    string // GPU key ("a100")
}

// shapeOf names the SKUs a spec's price is summed from, or says why it cannot be.
func shapeOf(s feeds.Spec) (shape, string) {
	family, _, ok := strings.Cut(s.InstanceType, "-")
	if !ok || family == "" {
		return shape{}, "the machine type does not start with its family (a2-…)"
	}
	if s.GPUCount <= 0 || s.VCPUs <= 0 || s.MemoryGiB <= 0 {
		return shape{}, fmt.Sprintf("the shape needs a GPU count, vCPUs and memory (given %v, %v, %v)", s.GPUCount, s.VCPUs, s.MemoryGiB)
	}
	key, ok := GPUKeys[s.GPU]
	if !ok {
		return shape{}, fmt.Sprintf("no Cloud Billing SKU name is known for GPU %q", s.GPU)
	}
	if strings.HasPrefix(s.InstanceType, "a3-megagpu-") {
		key = megaKey
	}
	return shape{spec: s, family: strings.ToLower(family), gpu: key}, ""
}

// sum prices every shape in every region (of regions; all when empty) where
// all its parts have a SKU, and leaves out the SKUs no complete price used.
func (ix *index) sum(specs []feeds.Spec, regions []string, source, asOf string) {
	want := map[string]bool{}
	for _, r := range regions {
		want[r] = true
	}
	// The regions each GPU is sold in, from its SKUs.
	gpuRegions := map[string]map[string]bool{}
	for c := range ix.prices {
		if c.part == partGPU {
			if gpuRegions[c.name] == nil {
				gpuRegions[c.name] = map[string]bool{}
			}
			gpuRegions[c.name][c.region] = true
		}
	}
	seen := map[string]bool{}
	for _, sp := range specs {
		if sp.Provider != "" && sp.Provider != "gcp" || seen[sp.InstanceType] {
			continue
		}
		seen[sp.InstanceType] = true
		sh, why := shapeOf(sp)
		if why != "" {
			ix.res.Leave(ix.origin+"#"+sp.InstanceType, sp.InstanceType, why)
			continue
		}
		var rs []string
		for r := range gpuRegions[sh.gpu] {
			if len(want) == 0 || want[r] {
				rs = append(rs, r)
			}
		}
		sort.Strings(rs)
		if len(rs) == 0 {
			ix.res.Leave(ix.origin+"#"+sp.InstanceType, sp.InstanceType, fmt.Sprintf("no SKU of the %q GPU in the regions read", sh.gpu))
			continue
		}
		for _, r := range rs {
			ix.price(sh, r, source, asOf)
		}
	}
	for _, id := range ix.order {
		if ix.used[id] {
			continue
		}
		s := ix.skus[id]
		ix.res.Leave(ix.origin+"#sku/"+id, strings.TrimSpace(s.Description+" ("+id+")"),
			"no machine type given is priced with it (no shape uses it, or another part's SKU is missing in its regions)")
	}
}

// price adds one machine type's offering and commitments in a region.
func (ix *index) price(sh shape, region, source, asOf string) {
	sp := sh.spec
	sums := map[string]decimal.Decimal{}
	missing := map[string][]string{}
	for _, u := range usages {
		total := decimal.Zero
		var ids []string
		for _, p := range []struct {
			part, name string
			n          float64
		}{{partGPU, sh.gpu, sp.GPUCount}, {partCore, sh.family, sp.VCPUs}, {partRAM, sh.family, sp.MemoryGiB}, {partSSD, "local", sp.LocalDiskGB}} {
			if p.n == 0 {
				continue // no bundled local SSD
			}
			pr, ok := ix.prices[component{u, p.part, p.name, region}]
			if !ok {
				missing[u] = append(missing[u], p.part)
				continue
			}
			total = total.Add(pr.amount.Mul(decimal.NewFromFloat(p.n)))
			ids = append(ids, pr.sku)
		}
		if len(missing[u]) == 0 {
			sums[u] = total
			for _, id := range ids {
				ix.used[id] = true
			}
		}
	}
	origin := ix.origin + "#" + sp.InstanceType + "/" + region
	od, hasOD := sums[onDemand]
	sv, hasSpot := sums[spot]
	if !hasOD && !hasSpot {
		ix.res.Leave(origin, sp.InstanceType+" "+region, "no on-demand or spot price: missing the "+strings.Join(missing[onDemand], ", ")+" SKU")
		return
	}
	o := feeds.Offering{Origin: origin, Provider: "gcp", InstanceType: sp.InstanceType, Region: region, Machine: sp.Machine,
		OnDemand: feeds.Unknown(ix.currency), Spot: feeds.Unknown(ix.currency)}
	if sp.GPUMemoryGiB > 0 {
		o.GPUMemoryMiB = sp.GPUMemoryGiB * 1024
	}
	if hasOD {
		o.OnDemand = feeds.Known(od, ix.currency, source, asOf)
	}
	if hasSpot {
		o.Spot = feeds.Known(sv, ix.currency, source, asOf)
	}
	ix.res.Offerings = append(ix.res.Offerings, o)
	for _, term := range []string{commit1y, commit3y} {
		if h, ok := sums[term]; ok {
			// Committed use is billed monthly for every hour of the term, nothing upfront.
			ix.res.Commitments = append(ix.res.Commitments, feeds.Commitment{Origin: origin, Provider: "gcp", InstanceType: sp.InstanceType,
				Region: region, Model: "commitment", Term: term, Payment: "monthly", Hourly: h, Currency: ix.currency, Source: source, AsOf: asOf})
		}
	}
}
