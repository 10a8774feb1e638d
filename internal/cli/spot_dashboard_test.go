package cli

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/server/dashboard"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

// The dashboard's spot page simulates an offering as `gpuscout spot
// --offering` does (spot.PriceOffering, the band's model, cost.SpotJob's
// launches, Daly's interval): the same job, runs and seed give the same
// figures. It used to build its own job, without the first launch's
// start-up, and priced the offering itself.
func TestSpotPageIsTheSpotCommand(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	dash := dashboard.New(dashboard.Config{Store: storetest.Memory(), Catalog: cat, Now: clock})
	dash.ServeHTTP(w, httptest.NewRequest("GET", "/spot?offering=aws%2Fp4d.24xlarge%2Fus-east-1&work=72&deadline=100&runs=200", nil))
	if w.Code != 200 {
		t.Fatalf("GET /spot: %d %s", w.Code, w.Body)
	}
	page := html.UnescapeString(w.Body.String())
	// The page names its command line; that command gives its figures.
	m := regexp.MustCompile(`gpuscout (spot --offering \S+ --work \S+ --deadline \S+ --runs \d+)`).FindStringSubmatch(page)
	if m == nil || m[1] != "spot --offering aws/p4d.24xlarge/us-east-1 --work 72h --deadline 100h --runs 200" {
		t.Fatalf("the page names the command %q; want the offering, work, deadline and runs it was given", m)
	}
	out, errOut, code := run(t, append(strings.Fields(m[1]), "--seed", "1", "--policy", "all", "-o", "json")...)
	if code != 0 {
		t.Fatalf("spot: exit %d: %s", code, errOut)
	}
	var cli spotJSON
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range cli.Policies {
		if p.CostMean == nil || p.PMeetDeadline == nil {
			continue
		}
		row := fmt.Sprintf("<td>%s</td><td class=\"n\">%.2f</td>", p.Name, *p.CostMean)
		if !strings.Contains(page, row) {
			t.Errorf("policy %s: the spot command's mean cost %.2f USD is not on the dashboard's spot page", p.Name, *p.CostMean)
		}
		if pm := fmt.Sprintf("%.1f%%", 100**p.PMeetDeadline); !strings.Contains(page, pm) {
			t.Errorf("policy %s: P(meet deadline) %s is not on the page", p.Name, pm)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("only %d policies compared: %s", checked, out)
	}
}
