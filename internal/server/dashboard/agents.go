package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/agentsummary"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/store"
)

// agentListPage is the summaries the page shows at once (a node sends 24 a day).
const agentListPage = 100

// agents lists the agents' hourly summaries, newest first: each node's GPU
// utilisation, egress and spend, hour by hour, and per node over the hours
// listed, so that idle GPUs that cost money show.
func (d *dash) agents(r *http.Request) (*page, error) {
	pg, err := pageParam(r)
	if err != nil {
		return nil, err
	}
	docs, err := d.Store.ListDocuments(r.Context(), store.Filter{Kind: store.KindAgent, Limit: agentListPage + 1, Offset: (pg - 1) * agentListPage}, false)
	if err != nil {
		return nil, err
	}
	more := len(docs) > agentListPage
	if more {
		docs = docs[:agentListPage]
	}
	ids := make([]string, len(docs))
	for i, doc := range docs {
		ids[i] = doc.ID
	}
	sums, err := d.agentSummaries(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	p := &page{Title: "Agent summaries", Intro: []string{
		"What 'gpuscout agent --upload' sends each hour from each node: GPU utilisation (the mean over the hour's samples and the node's GPUs, and the highest reading), egress (bytes sent on the node's interfaces, an upper bound of billed egress) and spend (the node's price × its uptime; unknown without a price). Newest first.",
	}}
	if len(docs) == 0 {
		p.Intro = append(p.Intro, "None here: 'gpuscout agent --config agent.yaml --upload URL --token TOKEN' sends one an hour.")
		return p, nil
	}
	type node struct {
		host, offering   string
		hours            int
		utilSum          float64
		utilN            int
		egress           float64
		spend            decimal.Decimal
		spendKnown       int
		currency, mixing string
	}
	var order []string
	nodes := map[string]*node{}
	// The figures come before the offering and GPU names, so that a phone shows them.
	t := &render.Table{Legend: true, Columns: []render.Column{{Header: "HOUR (UTC)"}, {Header: "HOST"}, {Header: "GPU UTIL MEAN", Right: true},
		{Header: "SPEND", Right: true}, {Header: "MAX UTIL", Right: true}, {Header: "EGRESS GB", Right: true}, {Header: "OFFERING"}, {Header: "GPU"}, {Header: "SAMPLES", Right: true}}}
	for _, doc := range docs {
		s := sums[doc.ID]
		if s == nil { // does not decode (logged), or gone since the listing
			continue
		}
		spendValue, spendKnown := s.SpendDecimal()
		offering := render.Unknown
		if s.Provider != "" && s.InstanceType != "" {
			offering = strings.TrimSuffix(s.Provider+"/"+s.InstanceType+"/"+s.Region, "/")
		}
		spend := render.Unknown
		if spendKnown {
			spend = spendValue.StringFixed(2) + " " + orUnknown(s.Currency)
		}
		t.Rows = append(t.Rows, []string{hourSpan(s.Start(), s.End()), orUnknown(s.Host), percent(s.GPUUtilizationMean), spend, percent(s.GPUUtilizationMax),
			strconv.FormatFloat(s.EgressBytes/1e9, 'f', 3, 64), offering, orUnknown(s.GPU), strconv.Itoa(s.Samples)})
		key := s.Host + "\x00" + offering
		n := nodes[key]
		if n == nil {
			n = &node{host: orUnknown(s.Host), offering: offering, currency: s.Currency}
			nodes[key] = n
			order = append(order, key)
		}
		n.hours++
		if s.GPUUtilizationMean != nil {
			n.utilSum += *s.GPUUtilizationMean
			n.utilN++
		}
		n.egress += s.EgressBytes
		if spendKnown {
			if s.Currency != n.currency {
				n.mixing = "several currencies"
			}
			n.spend = n.spend.Add(spendValue)
			n.spendKnown++
		}
	}
	nt := &render.Table{Legend: true, Columns: []render.Column{{Header: "HOST"}, {Header: "GPU UTIL MEAN", Right: true}, {Header: "SPEND", Right: true},
		{Header: "HOURS", Right: true}, {Header: "EGRESS GB", Right: true}, {Header: "OFFERING"}}}
	for _, k := range order {
		n := nodes[k]
		util := render.Unknown
		if n.utilN > 0 {
			m := n.utilSum / float64(n.utilN)
			util = percent(&m)
		}
		// A total is given only when every hour had a spend, in one currency:
		// a sum of some hours would read as the whole.
		spend := render.Unknown
		if n.spendKnown == n.hours && n.mixing == "" {
			spend = n.spend.StringFixed(2) + " " + orUnknown(n.currency)
		}
		nt.Rows = append(nt.Rows, []string{n.host, util, spend, strconv.Itoa(n.hours), strconv.FormatFloat(n.egress/1e9, 'f', 3, 64), n.offering})
	}
	nt.Notes = append(nt.Notes, "Over the hours listed on this page. SPEND is the sum of the hours' spend, unknown when an hour had none (no price) or the currencies differ.")
	first := (pg-1)*agentListPage + 1
	p.Blocks = append(p.Blocks,
		block{Heading: "Per node", Table: tableHTML(nt, nil)},
		block{Heading: fmt.Sprintf("Hours %d to %d", first, first+len(t.Rows)-1), Table: tableHTML(t, nil), Links: pager("/agents", pg, more)})
	return p, nil
}

// agentSummaries returns the stored agent summaries with the ids, decoded:
// each is decoded once and kept (at most maxDecoded of them; a document
// never changes), the bodies of those not kept yet read from the store in
// one query. One that does not decode (logged) maps to nil; an id not
// stored is absent.
func (d *dash) agentSummaries(ctx context.Context, ids []string) (map[string]*agentsummary.Summary, error) {
	return d.summaries.get(ctx, d.Store, d.Logger, ids, agentsummary.Read)
}

// addAgent keeps a newly stored agent summary, decoded by the server: the
// agent list shows it without reading its body.
func (d *dash) addAgent(id string, s *agentsummary.Summary) { d.summaries.keep(id, s) }

// hourSpan writes an hour's span: "2026-12-01 01:00–02:00".
func hourSpan(start, end time.Time) string {
	if start.IsZero() {
		return render.Unknown
	}
	s := start.UTC().Format("2006-01-02 15:04")
	if !end.IsZero() {
		if end.UTC().Format("2006-01-02") == start.UTC().Format("2006-01-02") {
			s += "–" + end.UTC().Format("15:04")
		} else {
			s += "–" + end.UTC().Format("2006-01-02 15:04")
		}
	}
	return s
}

// percent writes a utilisation ratio (0 to 1) as a percentage; unknown for nil.
func percent(v *float64) string {
	if v == nil {
		return render.Unknown
	}
	return strconv.FormatFloat(*v*100, 'f', 1, 64) + "%"
}
