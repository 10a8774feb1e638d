package deploytest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/agent"
)

type dashboard struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID         int    `json:"id"`
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource *struct {
		UID string `json:"uid"`
	} `json:"datasource"`
	Targets []struct {
		Expr         string `json:"expr"`
		LegendFormat string `json:"legendFormat"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a collapsed row's
}

var (
	metricRE = regexp.MustCompile(`\bgpuscout_[a-z0-9_]+`)
	legendRE = regexp.MustCompile(`\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`)
)

func readDashboard(t *testing.T) *dashboard {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "grafana", "gpuscout-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// allPanels flattens rows.
func allPanels(ps []panel) []panel {
	var out []panel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, allPanels(p.Panels)...)
	}
	return out
}

// TestGrafanaDashboard: every query names metrics the agent exports (the
// registry in internal/agent/metrics.go), legends use labels those metrics
// have, and the panels cover what the dashboard is for.
func TestGrafanaDashboard(t *testing.T) {
	d := readDashboard(t)
	if d.UID == "" || d.Title == "" || d.SchemaVersion == 0 {
		t.Errorf("uid %q, title %q, schemaVersion %d; want all set", d.UID, d.Title, d.SchemaVersion)
	}
	used := map[string]bool{}
	check := func(where, expr string) []string {
		names := metricRE.FindAllString(expr, -1)
		if len(names) == 0 {
			t.Errorf("%s: query %q names no gpuscout_ metric", where, expr)
		}
		for _, n := range names {
			if _, ok := agent.Lookup(n); !ok {
				t.Errorf("%s: query %q: %s is not in the agent's metric registry (internal/agent/metrics.go)", where, expr, n)
			}
			used[n] = true
		}
		return names
	}
	for _, v := range d.Templating.List {
		if v.Type == "query" {
			check("variable "+v.Name, v.Definition)
		}
	}
	ids := map[int]bool{}
	for _, p := range allPanels(d.Panels) {
		where := fmt.Sprintf("panel %d %q", p.ID, p.Title)
		if ids[p.ID] || p.ID == 0 {
			t.Errorf("%s: id missing or repeated", where)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("%s: datasource %v; want the ${datasource} variable", where, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s: no queries", where)
		}
		for _, q := range p.Targets {
			names := check(where, q.Expr)
			// A legend's {{label}} must be a label the series can have: one
			// of its metrics' labels, or a target label Prometheus adds.
			labels := []string{"instance", "job"}
			for _, n := range names {
				if m, ok := agent.Lookup(n); ok {
					labels = append(labels, m.Labels...)
				}
			}
			for _, l := range legendRE.FindAllStringSubmatch(q.LegendFormat, -1) {
				if !slices.Contains(labels, l[1]) {
					t.Errorf("%s: legend %q uses {{%s}}, not a label of %v", where, q.LegendFormat, l[1], names)
				}
			}
		}
	}
	// What the dashboard is for: utilisation per GPU, memory, power, spend
	// and burn rate, projected egress cost, collector health, autostop.
	for _, n := range []string{agent.GPUUtilization, agent.GPUMemoryUsedRatio, agent.GPUPower, agent.CostSpend, agent.CostBurnRate,
		agent.EgressProjectedCost, agent.CollectorUp, agent.AutostopIdle} {
		if !used[n] {
			t.Errorf("no panel shows %s", n)
		}
	}
}

// TestGrafanaQueriesParse hands every dashboard query to promtool as a
// recording rule, so Prometheus's own parser checks the PromQL (with the
// dashboard variables given values).
func TestGrafanaQueriesParse(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("GPUSCOUT_REQUIRE_PROMETHEUS") == "1" {
			t.Fatal("promtool not found and GPUSCOUT_REQUIRE_PROMETHEUS=1")
		}
		t.Skip("promtool not installed (Debian: prometheus)")
	}
	d := readDashboard(t)
	vars := strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$instance", ".*", "${instance}", ".*")
	var b strings.Builder
	b.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	n := 0
	for _, p := range allPanels(d.Panels) {
		for _, q := range p.Targets {
			n++
			e, _ := json.Marshal(vars.Replace(q.Expr)) // a JSON string is a YAML string
			fmt.Fprintf(&b, "      - record: dashboard:query%d\n        expr: %s\n", n, e)
		}
	}
	file := filepath.Join(t.TempDir(), "dashboard-queries.yml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "rules", file).CombinedOutput()
	if err != nil {
		t.Errorf("promtool check rules on the dashboard's %d queries: %v\n%s\n%s", n, err, out, b.String())
	}
}
