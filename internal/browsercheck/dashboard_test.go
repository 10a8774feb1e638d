package browsercheck

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/server/dashboard"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

// dashboardPage is a dashboard page to look at, and whether it must show
// a chart.
type dashboardPage struct {
	name, path string
	chart      bool
	// fits: at the widest width every table column shows without
	// scrolling (the catalog's price source and date were off-screen
	// behind the table's scroll on a 1400 px screen).
	fits bool
}

// TestDashboard serves the team dashboard from a memory store seeded with
// real documents (the recorded H200 bench report, the same report as run on
// AWS p5en.48xlarge with a hostname carrying markup, a real advise -o json
// plan) and looks at every page at each width: the same checks as the CLI's
// pictures, each chart drawn with a non-zero size, screenshots kept under
// the artefacts' browser/dashboard folder.
func TestDashboard(t *testing.T) {
	needBrowser(t)
	start := time.Now()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Memory()
	put := func(kind string, body []byte, at time.Time) string {
		d := &store.Document{ID: store.DocumentID(body), Kind: kind, Body: body, ReceivedAt: at, TokenName: "ci"}
		if _, err := st.PutDocument(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
	bench, err := os.ReadFile("../cli/testdata/bench-h200-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	plain := put(store.KindBench, bench, time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC))
	var doc map[string]any
	if err := json.Unmarshal(bench, &doc); err != nil {
		t.Fatal(err)
	}
	doc["cloud"] = map[string]any{"provider": "aws", "instance_type": "p5en.48xlarge", "region": "us-east-1", "zone": "", "matched_offering": "aws/p5en.48xlarge/us-east-1"}
	doc["host"].(map[string]any)["hostname"] = `<img src=x onerror=alert(1)>`
	aws, _ := json.Marshal(doc)
	onAWS := put(store.KindBench, aws, time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC))
	planBody, err := os.ReadFile("../server/dashboard/testdata/plan-a100.json")
	if err != nil {
		t.Fatal(err)
	}
	plan := put(store.KindPlan, planBody, time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC))
	// A 3-year plan that carries its cash flows: the page draws them.
	cashBody, err := os.ReadFile("../server/dashboard/testdata/plan-l4-3y.json")
	if err != nil {
		t.Fatal(err)
	}
	cashPlan := put(store.KindPlan, cashBody, time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC))
	put(store.KindAgent, []byte(`{"schema_version":1,"kind":"agent_hourly","hour_start":"2026-11-30T23:00:00Z","hour_end":"2026-12-01T00:00:00Z","host":"gpu-a","provider":"aws","instance_type":"p5.48xlarge","region":"us-east-1","gpu":"H100-SXM5-80GB","samples":3600,"gpu_utilization_mean":0.25,"gpu_utilization_max":0.9,"egress_bytes":2e9,"spend":55.04,"currency":"USD"}`),
		time.Date(2026, 12, 1, 0, 0, 5, 0, time.UTC))
	srv := httptest.NewServer(dashboard.New(dashboard.Config{Store: st, Catalog: cat}))
	defer srv.Close()

	pages := []dashboardPage{
		{"overview", "/", false, false},
		{"catalog", "/catalog?gpu=H100&limit=40", false, true},
		{"priceperf", "/priceperf", true, false},
		{"leaderboard", "/leaderboard", false, false},
		{"reports", "/reports", false, false},
		{"report", "/reports/" + onAWS, false, false},
		{"compare", "/compare?ids=" + plain + "," + onAWS, false, false},
		{"plans", "/plans", false, false},
		{"agents", "/agents", false, false},
		{"plan", "/plans/" + plan, true, false},
		{"plan-cashflow", "/plans/" + cashPlan, true, false},
		{"spot", "/spot?runs=100", true, false},
	}
	arts := filepath.Join(artefactDir(t), "dashboard")
	if err := os.MkdirAll(arts, 0o755); err != nil {
		t.Fatal(err)
	}
	var gallery shots
	t.Run("page", func(t *testing.T) {
		for _, p := range pages {
			t.Run(p.name, func(t *testing.T) {
				t.Parallel()
				ctx := tab(t)
				for i, w := range widths {
					l, png, err := look(ctx, srv.URL+p.path, w, i == 0)
					if err != nil {
						t.Fatalf("%s at %d px: %v", p.name, w, err)
					}
					shotPath := filepath.Join(arts, fmt.Sprintf("%s-%d.png", p.name, w))
					if err := os.WriteFile(shotPath, png, 0o644); err != nil {
						t.Fatal(err)
					}
					bad := check(l, w, checkOptions{html: true})
					if i == 0 {
						bad = append(bad, styled(ctx)...)
						if p.fits {
							bad = append(bad, columnsFit(ctx)...)
						}
					}
					if p.chart {
						drawn := 0
						for _, c := range l.SVGs {
							if c.Box.W > 0 && c.Box.H > 0 {
								drawn++
							}
						}
						if drawn == 0 {
							bad = append(bad, fmt.Sprintf("no chart drawn: %d <svg> on the page, none with a non-zero size", len(l.SVGs)))
						}
					}
					gallery.add(shot{page: p.name, width: w, file: filepath.Base(shotPath), findings: bad})
					if len(bad) > 0 {
						t.Errorf("%s\n(screenshot: %s)", report(p.name, w, bad), shotPath)
					}
				}
			})
		}
	})
	if err := gallery.write(filepath.Join(arts, "index.html")); err != nil {
		t.Errorf("writing the screenshots' index: %v", err)
	}
	t.Logf("screenshots of %d dashboard pages at %v px: %s (%.1f s)", len(pages), widths, arts, time.Since(start).Seconds())
}

// styleJS reads what the Content-Security-Policy let through: the
// stylesheet (or a report's hashed <style>) makes the table wrapper scroll.
const styleJS = `(() => {
  const sc = document.querySelector('.scroll');
  return {scroll: sc ? getComputedStyle(sc).overflowX : 'none'};
})()`

// offScreenJS lists the table headers that end past the viewport's right edge.
const offScreenJS = `(() => {
  const w = document.documentElement.clientWidth;
  return [...document.querySelectorAll('th')].filter(th => th.getBoundingClientRect().right > w + 1).map(th => th.textContent);
})()`

// columnsFit checks that every table column ends inside the viewport.
func columnsFit(ctx context.Context) []string {
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](offScreenJS))
	if err != nil {
		return []string{fmt.Sprintf("measuring the table headers: %v", err)}
	}
	var off []string
	if err := json.Unmarshal(raw, &off); err != nil {
		return []string{fmt.Sprintf("reading the table headers: %v", err)}
	}
	if len(off) > 0 {
		return []string{fmt.Sprintf("table columns off-screen, behind the table's scroll: %q", off)}
	}
	return nil
}

// styled checks that the page's styles were applied under its CSP.
func styled(ctx context.Context) []string {
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](styleJS))
	if err != nil {
		return []string{fmt.Sprintf("reading the applied styles: %v", err)}
	}
	var got struct{ Scroll string }
	if err := json.Unmarshal(raw, &got); err != nil {
		return []string{fmt.Sprintf("reading the applied styles: %v", err)}
	}
	var bad []string
	if got.Scroll != "none" && got.Scroll != "auto" {
		bad = append(bad, fmt.Sprintf("the table wrapper's overflow-x is %q, not auto: the stylesheet was blocked", got.Scroll))
	}
	return bad
}
