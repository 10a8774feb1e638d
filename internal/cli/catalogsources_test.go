package cli

import (
	"encoding/csv"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// Every source id any catalog entry cites (offering prices and specs,
// commitments, spot bands, GPU figures, egress tables, provider facts,
// licence surcharges) is listed and resolves to a URL or to a file that
// exists in ../shared/data.
func TestEveryCitedSourceIsLocated(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	shared, haveShared := shareddata.Find()
	byID := map[string]sourceEntry{}
	for _, e := range catalogSources(cat) {
		byID[e.ID] = e
	}
	refs := sourceRefs(cat)
	if len(refs) < 10 {
		t.Fatalf("only %d cited sources found; the reference walk is broken", len(refs))
	}
	var unlocated []string
	for _, id := range slices.Sorted(maps.Keys(refs)) {
		e, ok := byID[id]
		if !ok {
			t.Errorf("source %q is cited but not listed", id)
			continue
		}
		located := e.URL != ""
		for _, f := range e.Files {
			if !haveShared {
				located = true // cannot check here; the build test checks the feeds' files
				continue
			}
			if _, err := os.Stat(filepath.Join(shared, filepath.FromSlash(f))); err != nil {
				t.Errorf("source %q: file shared/data/%s: %v", id, f, err)
				continue
			}
			located = true
		}
		if !located {
			unlocated = append(unlocated, id)
		}
	}
	if len(unlocated) > 0 {
		t.Errorf("cited sources with neither a URL nor a file in shared/data (add url: or file: in sources.yaml): %s", strings.Join(unlocated, ", "))
	}
}

func TestCatalogSourcesOutputs(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "catalog", "sources", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []struct {
		ID      string         `json:"id"`
		URL     string         `json:"url"`
		Files   []string       `json:"files"`
		CitedBy map[string]int `json:"cited_by"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cat.Sources) {
		t.Fatalf("%d sources in JSON, want %d (sources.yaml)", len(got), len(cat.Sources))
	}
	for _, s := range got {
		// The Vast price rows come from one shared/data file and are all cited by its id.
		if s.ID == "skypilot-v9@a5be5386" {
			if !slices.Equal(s.Files, []string{"skypilot-catalog/vast/vms.csv"}) || s.CitedBy["prices"] != countPrices(cat, s.ID) {
				t.Errorf("%s: files %q, %d prices; want the vast vms.csv and %d", s.ID, s.Files, s.CitedBy["prices"], countPrices(cat, s.ID))
			}
		}
	}
	out, _, code = run(t, "catalog", "sources", "-o", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(recs) != len(cat.Sources)+1 {
		t.Errorf("csv: exit %d, %v, %d records; want %d", code, err, len(recs), len(cat.Sources)+1)
	}
	if _, errOut, code := run(t, "catalog", "sources", "-o", "yaml"); code != 2 || !strings.Contains(errOut, "yaml") {
		t.Errorf("-o yaml: exit %d, %q; want 2 naming the value", code, errOut)
	}
}

func countPrices(c *catalog.Catalog, id string) int {
	n := 0
	for _, o := range c.Offerings {
		if o.OnDemand.Source == id {
			n++
		}
	}
	return n
}

// catalog info lists the types the build left out, with the reason.
func TestCatalogInfoLeftOut(t *testing.T) {
	out, errOut, code := run(t, "catalog", "info", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var info struct {
		LeftOut []catalog.LeftOutType `json:"left_out"`
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, l := range info.LeftOut {
		if l.Reason == "" {
			t.Errorf("%s %s: no reason", l.Provider, l.InstanceType)
		}
		types = append(types, l.InstanceType)
	}
	// Alibaba's sgn6i-vws slices (on no Alibaba page) and Azure's NC A10 v4
	// sizes (no stored size page lists their GPUs) are priced but have no
	// curated spec; AWS's g7 and g7e have theirs since
	// karpenter-aws-instance-types@1d927085, Alibaba's ebmgn7ex since its
	// quota page counted it under gn7e (alibaba-ecs-limitations-zh).
	for _, want := range []string{"ecs.sgn6i-vws-m2.xlarge", "Standard_NC8ads_A10_v4"} {
		if !slices.Contains(types, want) {
			t.Errorf("left out %q, want it to include %s", types, want)
		}
	}
	for _, specced := range []string{"g7.48xlarge", "g7e.48xlarge", "ecs.ebmgn7ex.32xlarge"} {
		if slices.Contains(types, specced) {
			t.Errorf("%s is left out, but data/curated/aws.yaml specs it", specced)
		}
	}
}
