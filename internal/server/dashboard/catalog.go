package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
)

// Catalog page bounds: a page lists at most maxCatalogRows offerings.
const (
	defaultCatalogRows = 100
	maxCatalogRows     = 1000
	maxParamLen        = 200
)

// param reads a query parameter, bounded in length.
func param(r *http.Request, name string) (string, error) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if len(v) > maxParamLen {
		return "", badRequest("%s: %d characters; at most %d are allowed", name, len(v), maxParamLen)
	}
	return v, nil
}

// catalogQuery reads the catalog form into a catalog query, as `gpuscout
// offers` reads its flags: gpu (NAME[:COUNT]), provider (comma list), region,
// spot, china (only/exclude), max_price (USD per hour) and limit.
func (d *dash) catalogQuery(r *http.Request) (catalog.Query, *form, error) {
	q := catalog.Query{Currency: money.USD, Sort: catalog.SortPrice, Limit: defaultCatalogRows}
	f := &form{Action: "/catalog"}
	get := func(name string) string {
		v, _ := param(r, name)
		return v
	}
	for _, n := range []string{"gpu", "provider", "region", "china", "max_price", "limit"} {
		if _, err := param(r, n); err != nil {
			return q, nil, err
		}
	}
	gpu, prov, region, china, maxPrice, limit := get("gpu"), get("provider"), get("region"), get("china"), get("max_price"), get("limit")
	spot := get("spot") != ""
	f.Fields = []field{
		{Name: "gpu", Label: "GPU[:count]", Value: gpu, Kind: "text"},
		{Name: "provider", Label: "Providers (comma-separated)", Value: prov, Kind: "text"},
		{Name: "region", Label: "Region", Value: region, Kind: "text"},
		{Name: "max_price", Label: "Max USD/h", Value: maxPrice, Kind: "text"},
		{Name: "china", Label: "Mainland China", Value: china, Kind: "select", Options: []string{"", "only", "exclude"}},
		{Name: "spot", Label: "Spot price only", Kind: "checkbox", Checked: spot},
		{Name: "limit", Label: "Rows", Value: limit, Kind: "text"},
	}
	q.Spot = spot
	if gpu != "" {
		name, count, hasCount := strings.Cut(gpu, ":")
		gs, err := d.Catalog.LookupGPU(strings.TrimSpace(name))
		if err != nil {
			return q, f, badRequest("gpu %q: %v", gpu, err)
		}
		q.GPUs = gs
		if hasCount {
			n, err := strconv.ParseFloat(strings.TrimSpace(count), 64)
			if err != nil || !(n > 0) || n > 1024 {
				return q, f, badRequest("gpu %q: count %q: want a number more than 0 and at most 1024", gpu, count)
			}
			q.GPUCount = n
		}
	}
	for _, p := range strings.Split(prov, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pp := d.Catalog.Provider(p)
		if pp == nil {
			return q, f, badRequest("provider %q is not a known provider; known: %s", p, strings.Join(d.Catalog.ProviderNames(), ", "))
		}
		q.Providers = append(q.Providers, pp.Name)
	}
	if region != "" {
		rs := d.Catalog.ResolveRegion(region)
		if len(rs) == 0 {
			return q, f, badRequest("region %q is not a known region; closest: %s", region, strings.Join(catalog.Closest(region, d.Catalog.Regions(""), 5), ", "))
		}
		q.Regions = rs
	}
	switch china {
	case "":
	case "only", "exclude":
		v := china == "only"
		q.China = &v
	default:
		return q, f, badRequest("china %q: want only, exclude or nothing", china)
	}
	if maxPrice != "" {
		v, err := money.ParseDecimal(maxPrice)
		if err != nil || v.IsNegative() || v.GreaterThan(money.MaxHourly) {
			return q, f, badRequest("max_price %q: want a price per hour from 0 to %s USD", maxPrice, money.Grouped(money.MaxHourly, 0))
		}
		q.MaxPrice = decimal.NullDecimal{Decimal: v, Valid: true}
	}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 || n > maxCatalogRows {
			return q, f, badRequest("limit %q: want a whole number from 1 to %d", limit, maxCatalogRows)
		}
		q.Limit = n
	}
	return q, f, nil
}

// catalogPage is the catalog browser: the catalog's query, as `gpuscout
// offers` runs it, with the price's source and date on every row.
func (d *dash) catalogPage(r *http.Request) (*page, error) {
	q, f, err := d.catalogQuery(r)
	if err != nil {
		return nil, err
	}
	rows, err := d.Catalog.Query(q)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	p := &page{Title: "Catalog", Form: f,
		Intro: []string{"GPU offerings, cheapest first: each instance type in its cheapest region, prices in USD per hour with their source and date."}}
	ht := tableHTML(offersTable(rows), nil)
	// A spot price links to the spot simulation of that offering.
	for i, r := range rows {
		if o := r.Offering; r.Spot.Valid && o.Region != "" {
			ht.Rows[i][spotColumn].Href = "/spot?offering=" + url.QueryEscape(o.Provider+"/"+o.InstanceType+"/"+o.Region)
		}
	}
	p.Blocks = append(p.Blocks, block{Heading: fmt.Sprintf("%d offerings", len(rows)), Table: ht,
		Paras: []string{"A spot price links to the simulation of spot policies on that offering."}})
	return p, nil
}

// spotColumn is the index of offersTable's spot price column.
const spotColumn = 7

// offersTable is the catalog page's table.
func offersTable(rows []catalog.Row) *render.Table {
	t := &render.Table{Currency: "USD", Legend: true, Columns: []render.Column{
		{Header: "PROVIDER"}, {Header: "INSTANCE"}, {Header: "GPU"}, {Header: "QTY", Right: true},
		{Header: "GPU GiB", Right: true}, {Header: "REGION"}, {Header: "USD/h", Right: true}, {Header: "SPOT USD/h", Right: true},
		{Header: "USD/GPU-h", Right: true}, {Header: "PRICE SOURCE"}, {Header: "AS OF"},
	}}
	for _, r := range rows {
		o := r.Offering
		region := o.Region
		if r.Zone != "" {
			region += "/" + r.Zone
		}
		src, asOf := o.OnDemand.Source, o.OnDemand.AsOf
		if !o.OnDemand.Known {
			src, asOf = render.Unknown, render.Unknown
		}
		t.Rows = append(t.Rows, []string{o.Provider, o.InstanceType, o.GPU.Name, fmtCount(o.GPUCount), fmtNum(o.GPUMemoryGiB),
			orDash(region), price(r.Price), price(r.Spot), price(r.PerGPU), src, asOf})
	}
	if len(rows) == 0 {
		t.Notes = append(t.Notes, "No offering matches. Widen the filters.")
	}
	return t
}

func orDash(s string) string {
	if s == "" {
		return render.NotApplied
	}
	return s
}

// price writes an hourly price with 2 to 4 decimals; unknown as render.Unknown.
func price(d decimal.NullDecimal) string {
	if !d.Valid {
		return render.Unknown
	}
	s := strings.TrimRight(d.Decimal.Round(4).StringFixed(4), "0")
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s
}

func fmtNum(f float64) string {
	if f == 0 {
		return render.Unknown
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func fmtCount(f float64) string {
	if f == float64(int64(f)) {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}
