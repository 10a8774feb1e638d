package dashboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/store"
)

// Bounds of a comparison: the reports it lines up, their stored bytes
// together and its cells (rows × reports), as the API's.
const (
	maxCompare      = 8
	maxCompareBytes = 8 << 20
	maxCompareCells = 100000
)

// benchDoc is a stored bench report, decoded.
type benchDoc struct {
	store.Document
	Report *benchreport.Document
}

// loadBench reads a stored bench report by ID: 404 for none, 400 for an
// ID that is not a SHA-256 or a document of another kind.
func (d *dash) loadBench(ctx context.Context, id string) (*benchDoc, error) {
	if !store.ValidID(id) {
		return nil, badRequest("report id %q: want the 64 hex digits of a SHA-256", id)
	}
	doc, err := d.Store.GetDocument(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("no report has id %s", id)
	}
	if err != nil {
		return nil, err
	}
	if doc.Kind != store.KindBench {
		return nil, notFound("document %s is a %s, not a bench report", id, doc.Kind)
	}
	rep, err := benchreport.DecodeDocument(bytes.NewReader(doc.Body))
	if err != nil {
		return nil, fmt.Errorf("stored report %s: %w", id, err)
	}
	return &benchDoc{Document: *doc, Report: rep}, nil
}

// loadBenchDocs reads the newest stored bench reports (at most
// store.MaxLimit) from the store, decoded; one that no longer decodes is
// logged and left out. capped says the store holds older ones, left out.
// A document never changes (its ID is its hash), so each is decoded once
// and kept (at most maxDecoded of them); known are reports decoded
// already, by ID (nil: none). It reads the store in at most three queries
// however many reports there are: the listing, whether there are older
// ones (only when the listing is full), and the bodies of the reports not
// decoded yet, all at once.
func (d *dash) loadBenchDocs(ctx context.Context, known map[string]*benchreport.Document) (out []*benchDoc, capped bool, err error) {
	docs, err := d.Store.ListDocuments(ctx, store.Filter{Kind: store.KindBench, Limit: store.MaxLimit}, false)
	if err != nil {
		return nil, false, err
	}
	if len(docs) == store.MaxLimit { // is there an older one?
		more, err := d.Store.ListDocuments(ctx, store.Filter{Kind: store.KindBench, Limit: 1, Offset: store.MaxLimit}, false)
		if err != nil {
			return nil, false, err
		}
		capped = len(more) > 0
	}
	reps := make([]*benchreport.Document, len(docs))
	var missing []string
	d.decMu.Lock()
	for i, doc := range docs {
		if reps[i] = known[doc.ID]; reps[i] == nil {
			reps[i] = d.decoded[doc.ID]
		}
		if reps[i] == nil {
			missing = append(missing, doc.ID)
		}
	}
	d.decMu.Unlock()
	if len(missing) > 0 {
		full, err := d.Store.GetDocuments(ctx, missing) // at most MaxLimit: the listing's
		if err != nil {
			return nil, false, err
		}
		found := make(map[string]*benchreport.Document, len(full))
		for _, doc := range full {
			rep, err := benchreport.DecodeDocument(bytes.NewReader(doc.Body))
			if err != nil {
				d.Logger.Warn("dashboard: stored bench report does not decode", "id", doc.ID, "err", err)
				continue
			}
			found[doc.ID] = rep
		}
		d.decMu.Lock()
		for id, rep := range found {
			if d.decoded == nil || len(d.decoded) >= maxDecoded {
				d.decoded = map[string]*benchreport.Document{}
			}
			d.decoded[id] = rep
		}
		d.decMu.Unlock()
		for i, doc := range docs {
			if reps[i] == nil {
				reps[i] = found[doc.ID] // nil: deleted since the listing, or does not decode
			}
		}
	}
	out = make([]*benchDoc, 0, len(docs))
	for i, doc := range docs {
		if reps[i] != nil {
			out = append(out, &benchDoc{Document: doc, Report: reps[i]})
		}
	}
	return out, capped, nil
}

// capNote says a page built from benchDocs left older reports out.
var capNote = fmt.Sprintf("Built from the newest %d bench reports stored; older reports are left out.", store.MaxLimit)

// maxDecoded bounds the decoded reports kept in memory.
const maxDecoded = 4 * store.MaxLimit

// what says what a report measured: "1× H200-SXM-141GB".
func what(r *benchreport.Document) string {
	if len(r.GPUs) == 0 {
		return "host CPU " + orUnknown(r.Host.CPUModel)
	}
	name := r.GPUs[0].Name
	if c := r.GPUs[0].CanonicalGPU; c != nil {
		name = *c
	}
	return fmt.Sprintf("%d× %s", len(r.GPUs), name)
}

// where says where a report was measured: the cloud offering, else the host.
func where(r *benchreport.Document) string {
	if r.Cloud != nil && r.Cloud.Provider != "" {
		return strings.TrimSpace(fmt.Sprintf("%s %s %s", r.Cloud.Provider, r.Cloud.InstanceType, r.Cloud.Region))
	}
	return "host " + orUnknown(r.Host.Hostname)
}

func orUnknown(s string) string {
	if s == "" {
		return render.Unknown
	}
	return s
}

func day(r *benchreport.Document) string { return r.CreatedAt.UTC().Format("2006-01-02 15:04Z") }

// reportFilter reads the report list's filters: gpu as the catalog takes
// it (a family such as H200 selects every variant; a name the catalog does
// not know matches exactly, as bench stores a GPU it could not name) and
// provider (a known provider). It returns the filter, the form and the
// query the pager keeps.
func (d *dash) reportFilter(r *http.Request) (store.Filter, *form, url.Values, error) {
	f := store.Filter{Kind: store.KindBench}
	gpu, err := param(r, "gpu")
	if err != nil {
		return f, nil, nil, err
	}
	prov, err := param(r, "provider")
	if err != nil {
		return f, nil, nil, err
	}
	fm := &form{Action: "/reports", Fields: []field{
		{Name: "gpu", Label: "GPU (e.g. H100)", Value: gpu, Kind: "text"},
		{Name: "provider", Label: "Provider", Value: prov, Kind: "text"},
	}}
	keep := url.Values{}
	if gpu != "" {
		keep.Set("gpu", gpu)
		if gs, err := d.Catalog.LookupGPU(gpu); err == nil && len(gs) < store.MaxGPUs {
			f.GPUs = []string{gpu}
			for _, g := range gs {
				f.GPUs = append(f.GPUs, g.Name)
			}
		} else {
			f.GPU = gpu
		}
	}
	if prov != "" {
		keep.Set("provider", prov)
		pp, err := d.Catalog.LookupProvider(prov)
		if err != nil {
			return f, fm, nil, badRequest("provider %s", err)
		}
		f.Provider = pp.Name
	}
	return f, fm, keep, nil
}

// reports lists the uploaded bench reports, newest first, listPage a page,
// filtered by GPU and provider.
func (d *dash) reports(r *http.Request) (*page, error) {
	pg, err := pageParam(r)
	if err != nil {
		return nil, err
	}
	f, fm, keep, err := d.reportFilter(r)
	if err != nil {
		return nil, err
	}
	f.Limit, f.Offset = listPage+1, (pg-1)*listPage
	docs, err := d.Store.ListDocuments(r.Context(), f, false)
	if err != nil {
		return nil, err
	}
	more := len(docs) > listPage
	if more {
		docs = docs[:listPage]
	}
	t := &render.Table{Columns: []render.Column{{Header: "REPORT"}, {Header: "RECEIVED"}, {Header: "GPU"}, {Header: "OFFERING OR HOST"}, {Header: "UPLOADED BY"}, {Header: "SIGNED BY"}}}
	var hrefs []string
	for _, doc := range docs {
		where := doc.MatchedOffering
		switch {
		case where != "":
		case doc.Provider != "" && doc.InstanceType != "":
			where = strings.TrimSuffix(doc.Provider+" "+doc.InstanceType+" "+doc.Region, " ")
		default:
			where = "host " + orUnknown(doc.Host)
		}
		t.Rows = append(t.Rows, []string{doc.ID[:12], doc.ReceivedAt.UTC().Format("2006-01-02 15:04Z"), orUnknown(doc.GPU), where, orDash(doc.TokenName), orDash(doc.SignedBy)})
		hrefs = append(hrefs, "/reports/"+doc.ID)
	}
	p := &page{Title: "Bench reports", Form: fm, Intro: []string{"Reports uploaded by 'gpuscout bench --upload', newest first. Compare two or more at /compare?ids=ID,ID."}}
	if len(docs) == 0 {
		if len(keep) > 0 {
			p.Intro = append(p.Intro, "No report matches these filters.")
		} else {
			p.Intro = append(p.Intro, "No report here: 'gpuscout bench --upload URL --token TOKEN' adds one.")
		}
		return p, nil
	}
	if len(docs) >= 2 {
		p.Blocks = append(p.Blocks, block{Links: []link{{Text: "Compare the two newest on this page", Href: "/compare?ids=" + docs[0].ID + "," + docs[1].ID}}})
	}
	p.Blocks = append(p.Blocks, block{Heading: fmt.Sprintf("Reports %d to %d", (pg-1)*listPage+1, (pg-1)*listPage+len(docs)), Table: tableHTML(t, hrefs), Links: pager("/reports?"+keep.Encode(), pg, more)})
	return p, nil
}

// listPage is the rows a list page shows; maxPage bounds ?page.
const (
	listPage = 100
	maxPage  = 1000
)

// pageParam reads ?page, 1 when absent.
func pageParam(r *http.Request) (int, error) {
	v, err := param(r, "page")
	if err != nil || v == "" {
		return 1, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxPage {
		return 0, badRequest("page %q: want a whole number from 1 to %d", v, maxPage)
	}
	return n, nil
}

// pager links the previous and next pages of a list; path may carry a
// query (the list's filters), kept on both links.
func pager(path string, pg int, more bool) []link {
	sep := "?"
	switch {
	case strings.HasSuffix(path, "?"):
		sep = ""
	case strings.Contains(path, "?"):
		sep = "&"
	}
	var l []link
	if pg > 1 {
		l = append(l, link{Text: "previous page", Href: fmt.Sprintf("%s%spage=%d", path, sep, pg-1)})
	}
	if more {
		l = append(l, link{Text: "next page", Href: fmt.Sprintf("%s%spage=%d", path, sep, pg+1)})
	}
	return l
}

// report shows one bench report: its measurements with their efficiency
// against the datasheet, as `gpuscout bench` prints them.
func (d *dash) report(r *http.Request) (*page, error) {
	doc, err := d.loadBench(r.Context(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	rep := doc.Report
	p := &page{Title: "Report " + doc.ID[:12], Intro: []string{
		fmt.Sprintf("%s on %s, measured %s; uploaded %s by %s.", what(rep), where(rep), day(rep), doc.ReceivedAt.UTC().Format("2006-01-02 15:04Z"), orDash(doc.TokenName)),
	}}
	p.Intro = append(p.Intro, fmt.Sprintf("Host %s: CPU %s, %d logical CPUs.", orUnknown(rep.Host.Hostname), orUnknown(rep.Host.CPUModel), rep.Host.Cores))
	if doc.SignedBy != "" {
		p.Intro = append(p.Intro, "Signature verified with the key of "+doc.SignedBy+".")
	} else {
		p.Intro = append(p.Intro, "Not signed (or signed with a key the server does not know).")
	}
	if rep.Cloud != nil && rep.Cloud.MatchedOffering != "" {
		p.Intro = append(p.Intro, "Matched offering: "+rep.Cloud.MatchedOffering+".")
	}
	p.Intro = append(p.Intro, d.reportPrice(rep))
	// The table `gpuscout bench` prints.
	t := &render.Table{Columns: []render.Column{
		{Header: "DEVICE"}, {Header: "MEASUREMENT"}, {Header: "VALUE", Right: true, Mixed: true}, {Header: "UNIT"}, {Header: "EFFICIENCY", Right: true},
		{Header: "P50 µs", Right: true, Mixed: true}, {Header: "P99 µs", Right: true, Mixed: true}, {Header: "CV", Right: true, Mixed: true}, {Header: "STATUS"},
	}}
	opt := func(v *float64) string {
		if v == nil {
			return render.NotApplied
		}
		return render.Figure(*v)
	}
	for _, m := range rep.Measurements {
		eff := render.NotApplied
		if m.Efficiency != nil {
			eff = fmt.Sprintf("%.1f%%", 100**m.Efficiency)
		}
		t.Rows = append(t.Rows, []string{m.Device, m.Name, opt(m.Value), m.Unit, eff, opt(m.P50US), opt(m.P99US), opt(m.CV), m.Status})
		if !m.OK() && m.Detail != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s on %s: %s", m.Name, m.Device, m.Detail))
		}
	}
	for _, g := range rep.GPUs {
		spec := "not in the catalog: no efficiency"
		if g.CanonicalGPU != nil {
			spec = "efficiency against the " + *g.CanonicalGPU + " datasheet"
		}
		t.Notes = append(t.Notes, fmt.Sprintf("%s: %s, %.1f GiB, driver %s; %s", benchreport.DeviceName(g.Index), g.Name, g.MemoryGiB, orUnknown(g.Driver), spec))
	}
	t.Notes = append(t.Notes, "Values in decimal units (TFLOP/s = 1e12 FLOP/s, GB/s = 1e9 B/s), medians of the samples; P50/P99 are the time of one operation. Efficiency: the value over the datasheet figure.")
	p.Blocks = append(p.Blocks, block{Heading: "Measurements", Table: tableHTML(t, nil)})
	if len(rep.Workloads) > 0 {
		wt := &render.Table{Columns: []render.Column{{Header: "WORKLOAD"}, {Header: "DEVICE"}, {Header: "BATCH", Right: true}, {Header: "VALUE", Right: true}, {Header: "UNIT"}, {Header: "STEP ms", Right: true}, {Header: "SCENARIO"}}}
		for _, w := range rep.Workloads {
			step := render.Unknown
			if w.StepMS > 0 {
				step = render.Figure(w.StepMS)
			}
			name := w.Name
			if w.Tiny {
				name += " (tiny test shapes)"
			}
			wt.Rows = append(wt.Rows, []string{name, w.Device, strconv.Itoa(w.Batch), render.Figure(w.Value), w.Unit, step, orDash(w.Scenario)})
		}
		p.Blocks = append(p.Blocks, block{Heading: "Workloads", Table: tableHTML(wt, nil)})
	}
	if len(rep.GPUs) > 0 {
		gt := &render.Table{Columns: []render.Column{{Header: "INDEX", Right: true}, {Header: "NAME"}, {Header: "CATALOG GPU"}, {Header: "MEMORY GiB", Right: true}, {Header: "DRIVER"}}}
		for _, g := range rep.GPUs {
			c := render.Unknown
			if g.CanonicalGPU != nil {
				c = *g.CanonicalGPU
			}
			gt.Rows = append(gt.Rows, []string{strconv.Itoa(g.Index), g.Name, c, render.Figure(g.MemoryGiB), orUnknown(g.Driver)})
		}
		p.Blocks = append(p.Blocks, block{Heading: "GPUs", Table: tableHTML(gt, nil)})
	}
	return p, nil
}

// reportPrice says what the report's measured work costs at the offering
// it ran on, as the leaderboard prices it, or why it is not priced.
func (d *dash) reportPrice(rep *benchreport.Document) string {
	e := d.priceEntry(&benchDoc{Report: rep})
	if e.off == nil {
		return "Not priced: the report names no offering this catalog has (see the leaderboard)."
	}
	o := e.off.Row.Offering
	s := fmt.Sprintf("Priced at %s USD per GPU-hour: %s/%s/%s on demand, %s as of %s", price(e.off.perGPUHour()), o.Provider, o.InstanceType, o.Region,
		orUnknown(e.off.Source), orUnknown(e.off.AsOf))
	if e.byIdentity {
		s += " (found by its cloud identity)"
	}
	var per []string
	if e.perTFLOPh.Valid {
		w := sig(e.perTFLOPh) + " USD per sustained bf16 TFLOP-hour"
		if e.aboveSheet {
			w += " (not ranked: above the datasheet's peak)"
		}
		per = append(per, w)
	}
	if e.perGBs.Valid {
		per = append(per, sig(e.perGBs)+" USD per GB/s-hour of HBM")
	}
	if len(per) > 0 {
		s += "; " + strings.Join(per, ", ")
	}
	return s + "."
}

// compare lines reports up by measurement and device, one column per
// report, each cell the value with its efficiency in brackets (`gpuscout
// bench compare`).
func (d *dash) compare(r *http.Request) (*page, error) {
	raw, err := param(r, "ids")
	if err != nil {
		return nil, err
	}
	ids := strings.FieldsFunc(raw, func(c rune) bool { return c == ',' || c == ' ' })
	if len(ids) < 1 || len(ids) > maxCompare {
		return nil, badRequest("ids %q: want 1 to %d report ids, comma-separated", raw, maxCompare)
	}
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			return nil, badRequest("ids: %s is given twice; want distinct report ids", id)
		}
	}
	docs := make([]*benchDoc, len(ids))
	total := 0
	for i, id := range ids {
		if docs[i], err = d.loadBench(r.Context(), id); err != nil {
			return nil, err
		}
		if total += len(docs[i].Body); total > maxCompareBytes {
			return nil, badRequest("the reports compared hold more than %d bytes together (the limit); compare fewer or smaller reports", maxCompareBytes)
		}
	}
	names, reps := make([]string, len(docs)), make([]*benchreport.Document, len(docs))
	for i, doc := range docs {
		names[i], reps[i] = doc.ID, doc.Report
	}
	if cells := benchreport.CompareRows(reps) * len(reps); cells > maxCompareCells {
		return nil, badRequest("the comparison would have %d cells (measurements × reports); the limit is %d: compare fewer reports", cells, maxCompareCells)
	}
	c := benchreport.Compare(names, reps, d.Catalog)
	t := &render.Table{Columns: []render.Column{{Header: "MEASUREMENT"}, {Header: "DEVICE"}, {Header: "UNIT"}}}
	for i, doc := range docs {
		t.Columns = append(t.Columns, render.Column{Header: fmt.Sprintf("[%d]", i+1), Right: true, Mixed: true})
		t.Notes = append(t.Notes, fmt.Sprintf("[%d] %s: %s on %s, %s", i+1, doc.ID[:12], what(doc.Report), where(doc.Report), day(doc.Report)))
	}
	t.Rows = render.ComparisonRows(c)
	t.Notes = append(t.Notes, render.ComparisonNote)
	var links []link
	for i, doc := range docs {
		links = append(links, link{Text: fmt.Sprintf("[%d] %s", i+1, doc.ID[:12]), Href: "/reports/" + doc.ID})
	}
	return &page{Title: fmt.Sprintf("Comparison of %d reports", len(docs)), Blocks: []block{{Table: tableHTML(t, nil)}, {Heading: "Reports", Links: links}}}, nil
}
