package dashboard

import (
	"fmt"
	"net/http"

	"github.com/gpuscout/gpuscout/internal/store"
)

// overviewLatest is how many reports and plans the overview lists.
const overviewLatest = 10

// overview counts what is stored and lists the latest reports and plans.
func (d *dash) overview(r *http.Request) (*page, error) {
	ctx := r.Context()
	p := &page{Title: "gpuscout team dashboard", Intro: []string{
		fmt.Sprintf("Catalog: %d offerings from %d providers, %d GPU models.", len(d.Catalog.Offerings), len(d.Catalog.ProviderNames()), len(d.Catalog.GPUs)),
	}}
	var counts []string
	for _, k := range []struct{ kind, name string }{{store.KindBench, "Bench reports"}, {store.KindPlan, "Plans"}, {store.KindAgent, "Agent summaries"}} {
		n, err := d.Store.CountDocuments(ctx, k.kind)
		if err != nil {
			return nil, err
		}
		counts = append(counts, fmt.Sprintf("%s: %d", k.name, n))
	}
	p.Blocks = append(p.Blocks, block{Heading: "Stored", Paras: counts, Links: []link{{Text: "Reports", Href: "/reports"}, {Text: "Plans", Href: "/plans"}, {Text: "Agent summaries", Href: "/agents"}}})
	reports, err := d.Store.ListDocuments(ctx, store.Filter{Kind: store.KindBench, Limit: overviewLatest}, false)
	if err != nil {
		return nil, err
	}
	b := block{Heading: "Latest bench reports"}
	for _, doc := range reports {
		b.Links = append(b.Links, link{Text: doc.ID[:12], Href: "/reports/" + doc.ID, Note: docNote(doc)})
	}
	if len(reports) == 0 {
		b.Paras = []string{"None yet: 'gpuscout bench --upload URL --token TOKEN' adds one."}
	}
	p.Blocks = append(p.Blocks, b)
	plans, err := d.Store.ListDocuments(ctx, store.Filter{Kind: store.KindPlan, Limit: overviewLatest}, false)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(plans))
	for i, doc := range plans {
		ids[i] = doc.ID
	}
	gists, err := d.planGists(ctx, ids)
	if err != nil {
		return nil, err
	}
	b = block{Heading: "Latest plans"}
	for _, doc := range plans {
		note := docNote(doc)
		// What the plan asked and recommends, so that the list says which is which.
		if g := gists[doc.ID]; g != nil {
			note += " · " + g.Scenario + ", " + g.Work + " → " + g.Best
			if g.Plans > 0 {
				note += ", " + g.Total
			}
		}
		b.Links = append(b.Links, link{Text: doc.ID[:12], Href: "/plans/" + doc.ID, Note: note})
	}
	if len(plans) == 0 {
		b.Paras = []string{"None yet: 'gpuscout advise ... --upload URL --token TOKEN' adds one."}
	} else {
		b.Links = append(b.Links, link{Text: "every plan", Href: "/plans"})
	}
	p.Blocks = append(p.Blocks, b)
	return p, nil
}

// docNote describes a stored document in a few words.
func docNote(doc store.Document) string {
	s := doc.ReceivedAt.UTC().Format("2006-01-02 15:04Z")
	if doc.GPU != "" {
		s += " · " + doc.GPU
	}
	if doc.MatchedOffering != "" {
		s += " · " + doc.MatchedOffering
	} else if doc.Host != "" {
		s += " · " + doc.Host
	}
	return s
}
