package dashboard

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
)

// Scatter bounds: at most maxSeries providers get a colour of their own
// (the rest share "other providers"), the best maxLabels points are named.
const (
	maxSeries   = 6
	maxLabels   = 6
	maxPPFTable = 60
)

// ppPoint is one provider's cheapest offering of one GPU model.
type ppPoint struct {
	row      catalog.Row
	perGPU   float64 // USD per GPU-hour (display and placement only)
	tflops   float64 // bf16 TFLOP/s per GPU
	measured bool    // tflops from uploaded reports, not the datasheet
	reports  int
	on       map[string]int // reports by the provider they ran on ("" none known)
}

// pricePerf draws price per GPU-hour against bf16 TFLOP/s per GPU, one
// point per provider and GPU model (its cheapest offering): measured where
// uploaded reports measured that GPU (the mean sustained figure), else the
// datasheet's dense figure, the two marked apart.
func (d *dash) pricePerf(r *http.Request) (*page, error) {
	docs, capped, err := d.benchDocs(r.Context())
	if err != nil {
		return nil, err
	}
	type acc struct {
		sum float64
		n   int
		on  map[string]int // reports by provider ("": no cloud identity)
	}
	measured := map[string]*acc{}
	aboveSheet := 0
	for _, doc := range docs {
		rep := doc.Report
		if len(rep.GPUs) == 0 || rep.GPUs[0].CanonicalGPU == nil {
			continue
		}
		if v, n := perGPU(rep, sustainedBF16); n > 0 {
			if g := d.Catalog.GPU(*rep.GPUs[0].CanonicalGPU); g != nil && g.BF16.Known && v > maxOverSheet*g.BF16.Value {
				aboveSheet++ // as on the leaderboard: no node sustains it
				continue
			}
			a := measured[*rep.GPUs[0].CanonicalGPU]
			if a == nil {
				a = &acc{on: map[string]int{}}
				measured[*rep.GPUs[0].CanonicalGPU] = a
			}
			a.sum += v
			a.n++
			prov := ""
			if rep.Cloud != nil {
				prov = rep.Cloud.Provider
			}
			a.on[prov]++
		}
	}
	rows, err := d.gpuHourRows()
	if err != nil {
		return nil, err
	}
	best := map[[2]string]*ppPoint{}
	var keys [][2]string
	noFigure := 0
	for _, row := range rows {
		o := row.Offering
		if !row.PerGPU.Valid || o.GPUCount < 1 || o.GPU == nil {
			continue
		}
		k := [2]string{o.Provider, o.GPU.Name}
		pg, _ := row.PerGPU.Decimal.Float64() // placement on the chart only
		if b := best[k]; b != nil && b.perGPU <= pg {
			continue
		}
		p := &ppPoint{row: row, perGPU: pg}
		if a := measured[o.GPU.Name]; a != nil {
			p.tflops, p.measured, p.reports, p.on = a.sum/float64(a.n), true, a.n, a.on
		} else if o.GPU.BF16.Known && o.GPU.BF16.Value > 0 {
			p.tflops = o.GPU.BF16.Value
		} else {
			noFigure++
			continue
		}
		if best[k] == nil {
			keys = append(keys, k)
		}
		best[k] = p
	}
	pts := make([]*ppPoint, 0, len(keys))
	perProvider := map[string]int{}
	for _, k := range keys {
		pts = append(pts, best[k])
		perProvider[k[0]]++
	}
	// Most TFLOP/s per dollar first.
	slices.SortStableFunc(pts, func(a, b *ppPoint) int { return cmp.Compare(b.tflops/b.perGPU, a.tflops/a.perGPU) })

	provs := make([]string, 0, len(perProvider))
	for p := range perProvider {
		provs = append(provs, p)
	}
	slices.SortFunc(provs, func(a, b string) int {
		return cmp.Or(cmp.Compare(perProvider[b], perProvider[a]), strings.Compare(a, b))
	})
	series := map[string]int{}
	names := []string{}
	for i, p := range provs {
		if i < maxSeries {
			series[p] = i
			names = append(names, p)
		} else {
			series[p] = maxSeries
		}
	}
	if len(provs) > maxSeries {
		names = append(names, "other providers")
	}
	c := &render.ScatterChart{
		Title:  "Which offerings give the most bf16 TFLOP/s for the price per GPU-hour?",
		XLabel: "on-demand price per GPU-hour (USD)", YLabel: "bf16 TFLOP/s per GPU",
		Series: names, FilledName: "measured: mean sustained bf16 of uploaded reports", HollowName: "datasheet: dense bf16",
	}
	dates := map[string]bool{}
	// Measured and datasheet figures are ranked in tables of their own: a
	// datasheet's peak is not what a node sustains, so one ranking of both
	// would put every measured GPU below its paper rivals. The figure
	// ranked comes first, so that it shows without scrolling.
	newTable := func() *render.Table {
		return &render.Table{Currency: "USD", Columns: []render.Column{{Header: "TFLOP/s per USD/GPU-h", Right: true}, {Header: "GPU"}, {Header: "PROVIDER"},
			{Header: "USD/GPU-h", Right: true}, {Header: "BF16 TFLOP/s", Right: true}, {Header: "FIGURE"}, {Header: "INSTANCE"}, {Header: "REGION"},
			{Header: "PRICE SOURCE"}, {Header: "AS OF"}}}
	}
	tm, t := newTable(), newTable()
	nMeasured, nElsewhere := 0, 0
	for i, p := range pts {
		o := p.row.Offering
		kind := "datasheet"
		if p.measured {
			kind = measuredWhere(o.Provider, p.reports, p.on)
			nMeasured++
			if p.on[o.Provider] == 0 || o.Provider == "" {
				nElsewhere++
			}
		}
		sp := render.ScatterPoint{X: p.perGPU, Y: p.tflops, Series: series[o.Provider], Hollow: !p.measured,
			Tip: fmt.Sprintf("%s %s (%s): %s USD/GPU-h, %s TFLOP/s %s", o.Provider, o.InstanceType, o.GPU.Name, price(p.row.PerGPU), render.Figure(p.tflops), kind)}
		if i < maxLabels {
			sp.Label = shortGPU(o.GPU.Name) + " (" + o.Provider + ")"
		}
		c.Points = append(c.Points, sp)
		dates[o.OnDemand.AsOf] = true
		into := t
		if p.measured {
			into = tm
		}
		if p.measured || len(t.Rows) < maxPPFTable {
			into.Rows = append(into.Rows, []string{render.Figure(p.tflops / p.perGPU), o.GPU.Name, o.Provider, price(p.row.PerGPU), render.Figure(p.tflops), kind,
				o.InstanceType, orDash(o.Region), orUnknown(o.OnDemand.Source), orUnknown(o.OnDemand.AsOf)})
		}
	}
	asOf := slices.Sorted(func(yield func(string) bool) {
		for d := range dates {
			if d != "" && !yield(d) {
				return
			}
		}
	})
	span := "no prices"
	if len(asOf) > 0 {
		span = asOf[0] + " to " + asOf[len(asOf)-1]
	}
	c.Caption = fmt.Sprintf("Each provider's cheapest on-demand offering of each GPU model, per GPU-hour; prices from the catalog's sources, dated %s. Measured: %d point(s); datasheet: %d.", span, nMeasured, len(pts)-nMeasured)
	if nElsewhere > 0 {
		// A filled mark is that GPU model's measured figure; say when it
		// was measured on other providers' nodes than the point's.
		c.Caption += fmt.Sprintf(" %d of the measured points carry a figure measured on other providers' nodes (the table below says where).", nElsewhere)
	}
	svg, err := svgOf(c)
	if err != nil {
		return nil, err
	}
	p := &page{Title: "Price/performance", Intro: []string{
		"One point per provider and GPU model: its cheapest on-demand offering's price per GPU-hour against bf16 TFLOP/s per GPU. Filled, ringed marks are measured (the mean sustained bf16 TFLOP/s of the uploaded bench reports of that GPU); hollow marks are the datasheet's dense bf16 figure, which a node rarely sustains.",
	}}
	if capped {
		p.Intro = append(p.Intro, capNote)
	}
	if aboveSheet > 0 {
		p.Intro = append(p.Intro, fmt.Sprintf("%d report(s) left out of the measured figures: a sustained bf16 figure more than %.0f%% above the GPU's dense datasheet peak, which no node sustains (see the leaderboard).", aboveSheet, (maxOverSheet-1)*100))
	}
	p.Blocks = append(p.Blocks, block{SVG: svg, Alt: "price per GPU-hour against bf16 TFLOP/s per GPU, by provider"})
	if noFigure > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d offering(s) left out: the GPU has no bf16 figure, measured or on its datasheet.", noFigure))
	}
	if n := len(pts) - nMeasured; n > maxPPFTable {
		t.Notes = append(t.Notes, fmt.Sprintf("The best %d of %d points by TFLOP/s per USD/GPU-h.", maxPPFTable, n))
	}
	if len(tm.Rows) > 0 {
		p.Blocks = append(p.Blocks, block{Heading: "Measured: sustained bf16 TFLOP/s for the price", Paras: []string{
			"The mean sustained bf16 TFLOP/s (gemm_bf16_sustained) of the uploaded bench reports of each GPU model, at each provider's cheapest on-demand offering of it. FIGURE says where the reports ran: \"measured here\" when some ran on that provider, else on which providers (a figure measured on one provider's nodes is an estimate for another's).",
		}, Table: tableHTML(tm, nil)})
	} else {
		p.Blocks = append(p.Blocks, block{Heading: "Measured: sustained bf16 TFLOP/s for the price", Paras: []string{
			"No uploaded bench report measured sustained bf16 on a GPU the catalog prices; 'gpuscout bench --upload URL --token TOKEN' adds one.",
		}})
	}
	p.Blocks = append(p.Blocks, block{Heading: "Datasheet (not measured): dense bf16 TFLOP/s for the price", Paras: []string{
		"The datasheet's dense bf16 figure, a peak a node rarely sustains: ranked apart from the measured figures above, never against them.",
	}, Table: tableHTML(t, nil)})
	return p, nil
}

// measuredWhere says where a GPU model's measured figure comes from, so
// that a figure measured on one provider's nodes is not read as measured
// on another's: "measured here (2 of 3 report(s))", or "measured on aws
// ×1, no cloud ×1; not on vast" when none of the reports ran on provider.
func measuredWhere(provider string, reports int, on map[string]int) string {
	if n := on[provider]; n > 0 && provider != "" {
		return fmt.Sprintf("measured here (%d of %d report(s))", n, reports)
	}
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(on)) {
		if p != "" {
			parts = append(parts, fmt.Sprintf("%s ×%d", p, on[p]))
		}
	}
	if n := on[""]; n > 0 {
		parts = append(parts, fmt.Sprintf("no cloud ×%d", n))
	}
	return "measured on " + strings.Join(parts, ", ") + "; not on " + provider
}

// shortGPU drops a catalog name's memory and form suffixes for a label:
// "H100-SXM5-80GB" → "H100".
func shortGPU(name string) string {
	if i := strings.IndexByte(name, '-'); i > 0 {
		return name[:i]
	}
	return name
}

// gpuHourRows is the catalog's offerings by price per GPU-hour, queried
// once a day (the catalog does not change while the server runs; the
// day decides which sizes are retired).
func (d *dash) gpuHourRows() ([]catalog.Row, error) {
	today := d.Now().UTC().Format("2006-01-02")
	d.ppMu.Lock()
	defer d.ppMu.Unlock()
	if d.ppDay == today {
		return d.ppRows, nil
	}
	rows, err := d.Catalog.Query(catalog.Query{Currency: money.USD, Sort: catalog.SortGPUHour, Today: today})
	if err != nil {
		return nil, err
	}
	d.ppDay, d.ppRows = today, rows
	return rows, nil
}
