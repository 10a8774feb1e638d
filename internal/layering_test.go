// Package internal_test keeps gpuscout's layering: data flows one way, feeds
// → catalog → cost/spot → advise → render → server → cli, and nothing lower
// imports anything higher. Every package, cli and server included, lists
// what it may import: a new edge fails this test until it is added here on
// purpose.
package internal_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/gpuscout/gpuscout/internal/"

// allowed lists, for each internal package (a trailing /* covers its
// subpackages), the internal packages its non-test files may import.
var allowed = map[string][]string{
	"money":      {},
	"yamlfields": {"money"},
	// Strict JSON (one value, each key once, known fields, bounded numbers)
	// for every uploaded or user-written JSON document.
	"jsonfields": {},
	"shareddata": {},
	"feeds":      {},
	// Importers read untrusted numbers with money.ParseDecimal (bounded exponents).
	"feeds/*": {"feeds", "money"},
	// The retrying HTTP client importers fetch with (a feeds.Doer).
	"feeds/httpclient": {"feeds"},
	// The registry lists every feed; the conformance suite reads shared/data.
	"feeds/registry":  {"feeds", "feeds/*"},
	"feeds/feedstest": {"feeds", "shareddata"},
	"catalog":         {"money"},
	// The snapshot builder walks the feeds registry into catalog files.
	"catalog/build": {"catalog", "money", "feeds", "feeds/*"},
	// The user-level catalog `catalog refresh` writes and every command overlays.
	"usercatalog": {"catalog", "catalog/build", "feeds", "money"},
	"pricefile":   {"catalog", "money", "spot", "yamlfields"},
	"spot":        {"catalog", "money", "jsonfields"},
	// cost prices spot with the simulator (its SimModel); spot never imports cost.
	"cost":        {"catalog", "money", "spot", "yamlfields"},
	"benchreport": {"catalog", "money", "jsonfields"},
	"agentconfig": {"catalog", "money", "yamlfields"},
	"models":      {"money"},
	// The schemas of the other uploaded documents, beside benchreport:
	// advise plans (advise -o json) and agent summaries (agent --upload).
	// The CLI writes them, the server validates them, the dashboard reads them.
	"plandoc":      {"money", "jsonfields"},
	"agentsummary": {"money", "jsonfields"},
	// The accelerator interface; its implementations (cuda, nvml, the loader,
	// the host CPU) sit below bench and the agent and import nothing higher.
	"gpu":    {},
	"gpu/*":  {"gpu", "gpu/dl"},
	"gpu/dl": {}, // finds and opens vendor libraries; the bindings use it
	// The CUDA devices complete their Info and telemetry from NVML.
	"gpu/cuda": {"gpu", "gpu/dl", "gpu/nvml"},
	// Measurements drive gpu.Device; the CLI chooses the implementation.
	"bench":     {"gpu", "benchreport", "catalog", "money"},
	"bench/*":   {"gpu", "benchreport", "catalog", "money", "bench"},
	"doctor":    {"gpu", "gpu/*", "bench/workload"}, // the workloads decide which Python runs PyTorch
	"cloudmeta": {"catalog"},                        // matches the identity to a catalog offering
	"hostinfo":  {},
	"advise":    {"cost", "spot", "catalog", "money", "benchreport", "plandoc", "agentconfig", "yamlfields", "models"},
	// What each input of advise, offers, cost and spot means, once, for the CLI's flags
	// and the API's fields: below cli and server, beside advise.
	"form": {"advise", "cost", "spot", "catalog", "money", "benchreport", "models", "jsonfields"},
	// Tables, charts and output formats; what a report says about plans is
	// report's, above it.
	"render": {"cost", "spot", "benchreport"},
	"report": {"render", "advise", "cost", "catalog", "money"},
	// Tests only: what every chart promises, for render's and report's tests.
	"render/rendertest": {},
	// The agent core: metric registry, store, loop, exporter; its
	// subpackages (collect, rules, notify, autostop) sit on it.
	"agent":   {"agentconfig"},
	"agent/*": {"agent", "agentconfig", "gpu", "gpu/*", "catalog", "cost", "money"},
	// The top: commands turn flags into requests of the packages below. No
	// package imports cli (no rule here names it).
	"cli": {"advise", "form", "agent", "agent/*", "agentconfig", "agentsummary", "bench", "bench/workload", "benchreport", "catalog",
		"catalog/build", "cloudmeta", "cost", "doctor", "feeds", "feeds/httpclient", "feeds/registry", "gpu", "gpu/*",
		"hostinfo", "models", "money", "pricefile", "render", "report", "server", "server/client", "server/dashboard", "spot",
		"store", "store/postgres", "store/sqlite", "usercatalog"},
	// Test-only: its tests drive cli.Main and look at the pictures in Chromium;
	// its one non-test file (the package comment) imports nothing.
	"browsercheck": {},
	// The team server: the store knows documents and tokens only; the server
	// (API, dashboard) uses the engine packages the CLI's queries use, never
	// the CLI, the agent, the GPU bindings or the feeds; its stores are
	// chosen by the CLI (serve) and handed in.
	"store":    {},
	"store/*":  {"store", "store/schema"}, // the SQL stores share their migrations
	"server":   {"advise", "form", "benchreport", "plandoc", "agentsummary", "catalog", "cost", "money", "render", "spot", "store"},
	"server/*": {"server", "advise", "form", "benchreport", "plandoc", "agentsummary", "catalog", "cost", "money", "render", "report", "spot", "store"},
	// The agent's alerting: notify delivers alerts; rules makes them from
	// samples (and exports them for Prometheus).
	"agent/notify": {"agentconfig"},
	"agent/rules":  {"agent", "agentconfig", "agent/notify", "agent/autostop"}, // a rule's action stop runs autostop's commands
}

func rule(pkg string) ([]string, bool) {
	if r, ok := allowed[pkg]; ok {
		return r, true
	}
	for p := pkg; p != "."; p = filepath.Dir(p) {
		if r, ok := allowed[filepath.Dir(p)+"/*"]; ok && filepath.Dir(p) != "." {
			return r, true
		}
	}
	return nil, false
}

func permits(rules []string, imp string) bool {
	for _, r := range rules {
		if r == "*" || r == imp || (strings.HasSuffix(r, "/*") && strings.HasPrefix(imp, strings.TrimSuffix(r, "*"))) {
			return true
		}
	}
	return false
}

func TestLayering(t *testing.T) {
	fset := token.NewFileSet()
	edges := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rules, known := rule(pkg)
		if !known {
			t.Errorf("%s: package %s has no layering rule; add it to allowed in internal/layering_test.go", path, pkg)
			return nil
		}
		for _, is := range f.Imports {
			imp := strings.Trim(is.Path.Value, `"`)
			if !strings.HasPrefix(imp, module) {
				continue
			}
			imp = strings.TrimPrefix(imp, module)
			edges++
			if imp == pkg {
				continue
			}
			if !permits(rules, imp) {
				t.Errorf("%s: %s imports %s; allowed: %s", path, pkg, imp, strings.Join(rules, ", "))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if edges == 0 {
		t.Fatal("no internal imports found: is the test running in internal/?")
	}
}

// TestRulesPermitNothingCircular: no two packages may import each other.
func TestRulesPermitNothingCircular(t *testing.T) {
	for a, ra := range allowed {
		for _, b := range ra {
			if rb, ok := allowed[b]; ok && slices.Contains(rb, a) {
				t.Errorf("%s and %s may import each other", a, b)
			}
		}
	}
}

// The rules themselves keep the top on top: no package below may import the
// CLI, and the server none of the node-side packages (agent, GPU bindings,
// bench) or the feeds.
func TestLayeringRules(t *testing.T) {
	for pkg := range allowed {
		if pkg == "cli" {
			continue
		}
		if r, _ := rule(pkg); permits(r, "cli") {
			t.Errorf("%s may import cli", pkg)
		}
	}
	for _, pkg := range []string{"server", "server/dashboard", "server/client"} {
		r, _ := rule(pkg)
		for _, imp := range []string{"agent", "agent/collect", "gpu/cuda", "bench", "feeds/registry", "doctor", "usercatalog"} {
			if permits(r, imp) {
				t.Errorf("%s may import %s", pkg, imp)
			}
		}
	}
}
