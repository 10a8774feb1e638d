package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	inputs "github.com/gpuscout/gpuscout/internal/form"
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

// catalogParams are the catalog page's inputs: offers' flags by their names
// (gpu, provider, region, max-price, china, no-china, spot, sort, limit and
// the rest of offers' inputs), read by the same definitions as `gpuscout
// offers` and GET /api/v1/offerings (internal/form).
var catalogParams = []string{"gpu", "provider", "region", "max-price", "china", "no-china", "spot", "sort", "limit"}

// catalogQuery reads the catalog form into a catalog query, as `gpuscout
// offers` reads its flags: prices in USD, defaultCatalogRows rows unless
// limit says (1 to maxCatalogRows: a page, not the whole catalog).
func (d *dash) catalogQuery(r *http.Request) (catalog.Query, *form, error) {
	v := r.URL.Query()
	for k, vals := range v {
		for _, x := range vals {
			if len(x) > maxParamLen {
				return catalog.Query{}, nil, badRequest("%s: %d characters; at most %d are allowed", k, len(x), maxParamLen)
			}
		}
	}
	f := &form{Action: "/catalog"}
	f.Fields = []field{
		{Name: "gpu", Label: "GPU[:count]", Value: v.Get("gpu"), Kind: "text"},
		{Name: "provider", Label: "Providers (comma-separated)", Value: v.Get("provider"), Kind: "text"},
		{Name: "region", Label: "Region", Value: v.Get("region"), Kind: "text"},
		{Name: "max-price", Label: "Max USD/h", Value: v.Get("max-price"), Kind: "text"},
		{Name: "sort", Label: "Rank by", Value: v.Get("sort"), Kind: "select", Options: []string{"", "price", "gpu-hour", "gpu-memory", "bf16-pflop"}},
		{Name: "china", Label: "Mainland China only", Kind: "checkbox", Checked: v.Has("china") && v.Get("china") != "false"},
		{Name: "no-china", Label: "Without mainland China", Kind: "checkbox", Checked: v.Has("no-china") && v.Get("no-china") != "false"},
		{Name: "spot", Label: "Spot price only", Kind: "checkbox", Checked: v.Has("spot") && v.Get("spot") != "false"},
		{Name: "limit", Label: "Rows", Value: v.Get("limit"), Kind: "text"},
	}
	in := inputs.NewOffers()
	for k := range v { // only() has refused parameters the page does not read
		if v.Get(k) == "" { // an empty text box of the form: not given
			delete(v, k)
		}
	}
	if bad := in.SetQuery(v); len(bad) > 0 {
		return catalog.Query{}, f, badRequest("%v", bad[0])
	}
	q, err := in.Query(d.Catalog, nil, money.USD)
	if err != nil {
		return q, f, badRequest("%v", err)
	}
	if !in.Changed("limit") {
		q.Limit = defaultCatalogRows
	} else if q.Limit < 1 || q.Limit > maxCatalogRows {
		return q, f, badRequest("limit %q: want a whole number from 1 to %d", v.Get("limit"), maxCatalogRows)
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
