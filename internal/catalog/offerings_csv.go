package catalog

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// OfferingColumns is the header of the generated offerings.csv.
var OfferingColumns = []string{
	"provider", "instance_type", "region", "zone", "china", "gpu", "gpu_count", "gpu_memory_gib",
	"vcpus", "memory_gib", "local_disk_gb", "interconnect", "network_gbps", "network_kind", "network_source", "arch", "spec_source",
	"price", "spot_price", "currency", "price_source", "price_as_of", "spot_source", "spot_as_of",
	"retired", "retired_source", "skypilot_accelerator", "skypilot_region",
}

// WriteOfferingsCSV writes offerings in the embedded snapshot format. Prices
// keep the source's digits; unknown values are empty cells.
func WriteOfferingsCSV(w io.Writer, offs []Offering) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(OfferingColumns); err != nil {
		return err
	}
	for i := range offs {
		o := &offs[i]
		cur := string(o.OnDemand.Currency)
		if cur == "" {
			cur = string(o.Spot.Currency)
		}
		rec := []string{
			o.Provider, o.InstanceType, o.Region, o.Zone, strconv.FormatBool(o.China), o.GPU.Name,
			fnum(o.GPUCount), fnum(o.GPUMemoryGiB), fnum(o.VCPUs), fnum(o.MemoryGiB), fnum(o.LocalDiskGB),
			o.Interconnect, fnum(o.NetworkGbps), o.NetworkKind, o.NetworkSource, o.Arch, o.SpecSource,
			pnum(o.OnDemand), pnum(o.Spot), cur, o.OnDemand.Source, o.OnDemand.AsOf, o.Spot.Source, o.Spot.AsOf,
			o.Retired, o.RetiredSource, o.SkyPilotAccelerator, o.SkyPilotRegion,
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func fnum(f float64) string {
	if f == 0 {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func pnum(p Price) string {
	if !p.Known {
		return ""
	}
	return p.Value.String()
}

// ReadOfferingsCSV parses the snapshot format; gpu names must be in the catalog's spec table.
func (c *Catalog) ReadOfferingsCSV(r io.Reader) ([]Offering, error) { return c.readOfferingsCSV(r, 0) }

// readOfferingsCSV is ReadOfferingsCSV with room for rows offerings made
// at once: an Offering is large, and growing the slice copies them all.
func (c *Catalog) readOfferingsCSV(r io.Reader, rows int) ([]Offering, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("offerings: reading header: %w", err)
	}
	if strings.Join(head, ",") != strings.Join(OfferingColumns, ",") {
		return nil, fmt.Errorf("offerings: header %q, want %q", strings.Join(head, ","), strings.Join(OfferingColumns, ","))
	}
	byName := map[string]*GPU{}
	for _, g := range c.GPUs {
		byName[g.Name] = g
	}
	out := make([]Offering, 0, rows)
	line := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("offerings line %d: %w", line, err)
		}
		o, err := parseOfferingRecord(rec, byName)
		if err != nil {
			return nil, fmt.Errorf("offerings line %d: %w", line, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func parseOfferingRecord(rec []string, byName map[string]*GPU) (Offering, error) {
	var o Offering
	var err error
	o.Provider, o.InstanceType, o.Region, o.Zone = rec[0], rec[1], rec[2], rec[3]
	o.China = rec[4] == "true"
	if o.GPU = byName[rec[5]]; o.GPU == nil {
		return o, fmt.Errorf("gpu %q is not in the spec table", rec[5])
	}
	nums := []*float64{&o.GPUCount, &o.GPUMemoryGiB, &o.VCPUs, &o.MemoryGiB, &o.LocalDiskGB}
	for i, p := range nums {
		if *p, err = optFloat(rec[6+i]); err != nil {
			return o, fmt.Errorf("column %s: %w", OfferingColumns[6+i], err)
		}
	}
	o.Interconnect = rec[11]
	if o.NetworkGbps, err = optFloat(rec[12]); err != nil {
		return o, fmt.Errorf("column network_gbps: %w", err)
	}
	o.NetworkKind, o.NetworkSource = rec[13], rec[14]
	o.Arch, o.SpecSource = rec[15], rec[16]
	cur := money.Currency(rec[19])
	if o.OnDemand, err = optPrice(rec[17], cur, rec[20], rec[21]); err != nil {
		return o, fmt.Errorf("column price: %w", err)
	}
	if o.Spot, err = optPrice(rec[18], cur, rec[22], rec[23]); err != nil {
		return o, fmt.Errorf("column spot_price: %w", err)
	}
	o.Retired, o.RetiredSource = rec[24], rec[25]
	o.SkyPilotAccelerator, o.SkyPilotRegion = rec[26], rec[27]
	if o.Retired != "" && (len(o.Retired) != len("2006-01-02") || o.RetiredSource == "") {
		return o, fmt.Errorf("column retired: %q needs a date YYYY-MM-DD and a retired_source", o.Retired)
	}
	return o, nil
}

func optFloat(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseFloat(s, 64)
}

func optPrice(s string, cur money.Currency, src, asOf string) (Price, error) {
	p := Price{Amount: money.New(decimal.Zero, cur), Source: src, AsOf: asOf}
	if s == "" {
		return p, nil
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return p, err
	}
	p.Value, p.Known = d, true
	return p, nil
}
