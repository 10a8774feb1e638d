package dashboard

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/render"
)

// Measurements the leaderboard prices.
const (
	sustainedBF16 = "gemm_bf16_sustained" // TFLOP/s over minutes of load
	hbmCopy       = "hbm_copy"            // GB/s
)

// perGPU is the mean of a measurement over a report's GPUs (devices
// gpuN with a value), and how many GPUs had one; 0, 0 when none.
func perGPU(r *benchreport.Document, name string) (mean float64, n int) {
	sum := 0.0
	for i := range r.Measurements {
		m := &r.Measurements[i]
		if m.Name == name && strings.HasPrefix(m.Device, "gpu") && !strings.Contains(m.Device, ">") && m.OK() {
			sum += *m.Value
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// unitPrice is price ÷ per, to 6 significant decimals; invalid when either
// is unknown or per is not above zero.
func unitPrice(price decimal.NullDecimal, per float64) decimal.NullDecimal {
	if !price.Valid || !(per > 0) {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: price.Decimal.DivRound(decimal.NewFromFloat(per), 8), Valid: true}
}

// sig writes a unit price with 4 significant digits, unknown as render.Unknown.
func sig(d decimal.NullDecimal) string {
	if !d.Valid {
		return render.Unknown
	}
	f, _ := d.Decimal.Float64() // display only: the arithmetic stayed decimal
	return render.Figure(f)
}

// entry is one leaderboard row: a report priced at its matched offering.
type entry struct {
	doc       *benchDoc
	off       *pricedOffering
	gpu       *catalog.GPU
	tflops    float64 // sustained bf16 TFLOP/s per GPU (measured)
	hbm       float64 // HBM copy GB/s per GPU (measured)
	perTFLOPh decimal.NullDecimal
	perGBs    decimal.NullDecimal
	sheet     decimal.NullDecimal // the same price over the datasheet's dense BF16
	// byIdentity: the offering was found from the report's cloud identity
	// (provider, instance type, region), bench having matched none.
	byIdentity bool
	// aboveSheet: the sustained figure is more than maxOverSheet times the
	// datasheet's dense peak, which no node sustains: not ranked.
	aboveSheet bool
	// key is perTFLOPh in units of 1e-8 (its precision) when that fits an
	// int64 (keyed): the ranking's comparison without decimal arithmetic.
	key   int64
	keyed bool
	// cells are the leaderboard row's texts after the rank, and work the
	// workload table's rows: formatted once, as the entry is priced.
	cells []string
	work  [][]string
}

// maxOverSheet is how far above the datasheet's dense bf16 peak a
// sustained figure may be and still be ranked (clocks and rounding).
const maxOverSheet = 1.1

// ranked says whether the entry takes a place on the leaderboard.
func (e *entry) ranked() bool { return e.perTFLOPh.Valid && !e.aboveSheet }

// reportOffering is the catalog offering a report ran on: the one bench
// matched, else (a node whose gpuscout's catalog lacked the offering) the
// one its cloud identity names, in its own region only (byIdentity true);
// nil when neither is in this catalog.
func (d *dash) reportOffering(rep *benchreport.Document) (off *pricedOffering, byIdentity bool) {
	c := rep.Cloud
	switch {
	case c == nil:
		return nil, false
	case c.MatchedOffering != "":
		return d.matchOffering(c.MatchedOffering), false
	case c.Provider == "" || c.InstanceType == "" || c.Region == "" || strings.Contains(c.Provider+c.InstanceType+c.Region, "/"):
		return nil, false
	}
	off = d.matchOffering(c.Provider + "/" + c.InstanceType + "/" + c.Region)
	return off, off != nil
}

// entries prices the reports, cheapest measured work first. An entry
// depends only on its report (which never changes), the catalog and the
// day's prices, so each is priced (and its row formatted) once a day and
// kept (at most maxDecoded); an entry is never changed once kept.
func (d *dash) entries(docs []*benchDoc) []*entry {
	today := d.Now().UTC().Format("2006-01-02")
	out := make([]*entry, len(docs))
	var fresh []*entry
	d.pricedMu.Lock()
	if d.pricedDay != today {
		d.priced, d.pricedDay = nil, today
	}
	for i, doc := range docs {
		if doc.ID != "" {
			out[i] = d.priced[doc.ID] // nil: priced below, outside the lock
		}
	}
	d.pricedMu.Unlock()
	for i := range out {
		if out[i] == nil {
			e := d.priceEntry(docs[i])
			e.cells, e.work = e.row(), e.workRows()
			out[i] = e
			fresh = append(fresh, e)
		}
	}
	if len(fresh) > 0 {
		d.pricedMu.Lock()
		if d.pricedDay == today {
			for _, e := range fresh {
				if e.doc.ID == "" {
					continue
				}
				if d.priced == nil || len(d.priced) >= maxDecoded {
					d.priced = map[string]*entry{}
				}
				d.priced[e.doc.ID] = e
			}
		}
		d.pricedMu.Unlock()
	}
	// Cheapest measured work first; reports that cannot be priced, or
	// whose figure is above the datasheet's peak, last.
	slices.SortStableFunc(out, func(a, b *entry) int {
		if a.ranked() != b.ranked() {
			if a.ranked() {
				return -1
			}
			return 1
		}
		if a.ranked() {
			if a.keyed && b.keyed {
				return cmp.Compare(a.key, b.key)
			}
			return a.perTFLOPh.Decimal.Cmp(b.perTFLOPh.Decimal)
		}
		return cmp.Compare(b.doc.ReceivedAt.Unix(), a.doc.ReceivedAt.Unix())
	})
	return out
}

// priceEntry prices one report at its offering's on-demand price.
func (d *dash) priceEntry(doc *benchDoc) *entry {
	rep := doc.Report
	e := &entry{doc: doc}
	e.off, e.byIdentity = d.reportOffering(rep)
	if len(rep.GPUs) > 0 && rep.GPUs[0].CanonicalGPU != nil {
		e.gpu = d.Catalog.GPU(*rep.GPUs[0].CanonicalGPU)
	}
	e.tflops, _ = perGPU(rep, sustainedBF16)
	e.hbm, _ = perGPU(rep, hbmCopy)
	price := e.off.perGPUHour()
	e.perTFLOPh = unitPrice(price, e.tflops)
	e.perGBs = unitPrice(price, e.hbm)
	if e.gpu != nil && e.gpu.BF16.Known {
		e.sheet = unitPrice(price, e.gpu.BF16.Value)
		e.aboveSheet = e.tflops > maxOverSheet*e.gpu.BF16.Value
	}
	if e.perTFLOPh.Valid {
		if k := e.perTFLOPh.Decimal.Shift(8); k.IsInteger() && k.BigInt().IsInt64() {
			e.key, e.keyed = k.IntPart(), true
		}
	}
	return e
}

// leaderboard prices measured work: each uploaded report at the on-demand
// price of the offering it ran on.
func (d *dash) leaderboard(r *http.Request) (*page, error) {
	docs, capped, err := d.benchDocs(r.Context())
	if err != nil {
		return nil, err
	}
	pg, err := pageParam(r)
	if err != nil {
		return nil, err
	}
	all := d.entries(docs)
	unmatched := 0
	for _, e := range all {
		if e.off == nil {
			unmatched++
		}
	}
	first := min((pg-1)*listPage, len(all))
	es := all[first:min(first+listPage, len(all))]
	p := &page{Title: "Leaderboard: price per measured unit of work", Intro: []string{
		"Each uploaded bench report priced at the on-demand list price of the catalog offering it ran on (its matched offering). Price per GPU-hour = the offering's price per hour ÷ its GPUs.",
		"USD per sustained bf16 TFLOP-hour = price per GPU-hour ÷ the sustained bf16 TFLOP/s measured per GPU (gemm_bf16_sustained, the mean over the report's GPUs): what one hour of 1 TFLOP/s of dense bf16 matrix work costs at the rate the node held under minutes of load.",
		"USD per GB/s-hour of HBM = price per GPU-hour ÷ the HBM copy bandwidth measured per GPU (hbm_copy, GB/s): what one hour of 1 GB/s of memory bandwidth costs.",
		"The datasheet column divides the same price by the catalog's dense bf16 datasheet figure: it is NOT measured, shown only beside the measured figure for scale, and never ranked.",
	}}
	// The rank and the figure ranked come first, then what and where: a
	// phone (or a laptop, for this wide table) shows the first columns
	// without scrolling; the report and its date close the row.
	t := &render.Table{Legend: true, Currency: "USD", Columns: []render.Column{
		{Header: "#", Right: true}, {Header: "USD/TFLOP-h (measured)", Right: true}, {Header: "GPU"}, {Header: "OFFERING"},
		{Header: "USD/GPU-h", Right: true}, {Header: "SUSTAINED BF16 TFLOP/s", Right: true},
		{Header: "HBM GB/s", Right: true}, {Header: "USD per GB/s-h (measured)", Right: true},
		{Header: "USD/TFLOP-h (datasheet)", Right: true}, {Header: "PRICE SOURCE"}, {Header: "PRICE AS OF"},
		{Header: "MEASURED"}, {Header: "REPORT"},
	}}
	for i, e := range es {
		rank := fmt.Sprint(first + i + 1)
		if !e.ranked() {
			rank = render.NotApplied
		}
		t.Rows = append(t.Rows, append([]string{rank}, e.cells...))
	}
	// The link is on the report column, the last.
	ht := tableHTML(t, nil)
	for i, e := range es {
		ht.Rows[i][len(ht.Rows[i])-1].Href = "/reports/" + e.doc.ID
	}
	if unmatched > 0 {
		ht.Notes = append(ht.Notes, fmt.Sprintf("%d report(s) name no catalog offering (bench found no cloud identity, or the catalog has no such offering): measured, but not priced.", unmatched))
	}
	if slices.ContainsFunc(es, func(e *entry) bool { return e.aboveSheet }) {
		ht.Notes = append(ht.Notes, fmt.Sprintf("! = a sustained figure more than %.0f%% above the GPU's dense bf16 datasheet peak, which no node sustains: not ranked; check the report (a wrong GPU identity, or a bad measurement).", (maxOverSheet-1)*100))
	}
	if slices.ContainsFunc(es, func(e *entry) bool { return e.byIdentity }) {
		ht.Notes = append(ht.Notes, "By its cloud identity: bench matched no offering (its catalog lacked it), and this catalog's offering of the provider, instance type and region the node reported prices it.")
	}
	if capped {
		p.Intro = append(p.Intro, capNote)
	}
	if len(all) == 0 {
		p.Intro = append(p.Intro, "No bench report has been uploaded yet: 'gpuscout bench --upload URL --token TOKEN' adds one.")
		return p, nil
	}
	p.Blocks = append(p.Blocks, block{Heading: fmt.Sprintf("Matrix work and memory bandwidth: %d to %d of %d reports", first+1, first+len(es), len(all)), Table: ht,
		Links: pager("/leaderboard", pg, first+len(es) < len(all))})
	if wt := d.workloadTable(es); wt != nil {
		p.Blocks = append(p.Blocks, block{Heading: "Training steps of the bundled workloads", Paras: []string{
			"USD per 1M samples = price per GPU-hour ÷ (samples/s on one GPU × 3600) × 1,000,000. USD per 1000 steps = price per GPU-hour × the median step time × 1000 ÷ 3,600,000 ms. Both are for the workload's batch on one GPU, as bench ran it; runs with tiny test shapes are left out.",
		}, Table: wt})
	}
	return p, nil
}

// row is the entry's leaderboard row after the rank.
func (e *entry) row() []string {
	gpu := render.Unknown
	if e.gpu != nil {
		gpu = e.gpu.Name
	}
	offer, src, asOf := "no matched offering", render.NotApplied, render.NotApplied
	if e.off != nil {
		o := e.off.Row.Offering
		offer = o.Provider + "/" + o.InstanceType + "/" + o.Region
		if e.byIdentity {
			offer += " (by its cloud identity)"
		}
		src, asOf = orUnknown(e.off.Source), orUnknown(e.off.AsOf)
	}
	tf, hb := render.Unknown, render.Unknown
	if e.tflops > 0 {
		tf = render.Figure(e.tflops)
		if e.aboveSheet {
			tf += " !"
		}
	}
	if e.hbm > 0 {
		hb = render.Figure(e.hbm)
	}
	return []string{sig(e.perTFLOPh), gpu, offer, price(e.off.perGPUHour()), tf, hb, sig(e.perGBs), sig(e.sheet), src, asOf, day(e.doc.Report), e.doc.ID[:12]}
}

// workRows are the workload table's rows of the entry's bundled workload
// runs (tiny test shapes left out).
func (e *entry) workRows() [][]string {
	var rows [][]string
	price := e.off.perGPUHour()
	for _, w := range e.doc.Report.Workloads {
		if w.Tiny || w.Unit != "samples/s" {
			continue
		}
		perM := unitPrice(price, w.Value*3600/1e6)
		perK, step := decimal.NullDecimal{}, render.Unknown
		if w.StepMS > 0 {
			step = render.Figure(w.StepMS)
			if price.Valid {
				perK = decimal.NullDecimal{Decimal: price.Decimal.Mul(decimal.NewFromFloat(w.StepMS)).Mul(decimal.NewFromInt(1000)).DivRound(decimal.NewFromInt(3_600_000), 8), Valid: true}
			}
		}
		gpu, src := render.Unknown, "no matched offering"
		if e.gpu != nil {
			gpu = e.gpu.Name
		}
		if e.off != nil {
			src = orUnknown(e.off.Source) + ", " + orUnknown(e.off.AsOf)
		}
		rows = append(rows, []string{w.Name, e.doc.ID[:12], gpu, fmt.Sprint(w.Batch), render.Figure(w.Value), sig(perM), step, sig(perK), src})
	}
	return rows
}

// workloadTable prices the reports' bundled workload runs; nil when none.
func (d *dash) workloadTable(es []*entry) *htmlTable {
	t := &render.Table{Legend: true, Columns: []render.Column{{Header: "WORKLOAD"}, {Header: "REPORT"}, {Header: "GPU"}, {Header: "BATCH", Right: true},
		{Header: "SAMPLES/s", Right: true}, {Header: "USD per 1M samples", Right: true}, {Header: "STEP ms", Right: true}, {Header: "USD per 1000 steps", Right: true}, {Header: "PRICE SOURCE"}}}
	var ids []string
	for _, e := range es {
		for _, row := range e.work {
			t.Rows = append(t.Rows, row)
			ids = append(ids, e.doc.ID)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	ht := tableHTML(t, nil)
	for i, id := range ids {
		ht.Rows[i][1].Href = "/reports/" + id
	}
	return ht
}
