package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/cloudmeta"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestMain fixes the clock, so that outputs with a date in them (the age of
// the built-in exchange rate) stay golden.
func TestMain(m *testing.M) {
	if os.Getenv("GPUSCOUT_CLI_TEST_MAIN") == "1" {
		// Re-executed by a test as the gpuscout command itself (under a
		// limit the test process must not have, such as ulimit -f).
		os.Exit(Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	clock = func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }
	// No metadata service is asked unless a test says so: the tests run
	// alike on a laptop and on a cloud CI machine.
	envProbe.clients = func() []cloudmeta.Client { return nil }
	code := m.Run()
	dltest.Cleanup() // the fake GPU libraries some tests build
	os.Exit(code)
}

func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./internal/cli -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"offers-a100-8.txt", []string{"offers", "--gpu", "A100:8"}},
		{"offers-a100-8.csv", []string{"offers", "--gpu", "A100:8", "-o", "csv"}},
		{"offers-a100-8.md", []string{"offers", "--gpu", "A100:8", "-o", "markdown"}},
		{"offers-a100-8.json", []string{"offers", "--gpu", "A100:8", "-o", "json"}},
		{"offers-h100-spot.csv", []string{"offers", "--gpu", "H100", "--spot", "--provider", "aws,gcp", "--sort", "gpu-hour", "-o", "csv"}},
		{"offers-80gb-cny.txt", []string{"offers", "--min-gpu-memory", "80GB", "--max-price", "30", "--currency", "CNY"}},
		{"offers-china.txt", []string{"offers", "--china", "--gpu", "T4"}},
		{"offers-bf16.txt", []string{"offers", "--gpu", "H100-SXM5-80GB:8", "--sort", "bf16-pflop", "--all-regions", "--provider", "gcp"}},
		{"gpus.txt", []string{"gpus"}},
		{"gpus-h100.json", []string{"gpus", "H100", "-o", "json"}},
		{"catalog-info.txt", []string{"catalog", "info"}},
		{"cost-a100-4-7d.txt", []string{"cost", "--gpu", "A100:4", "--for", "7d"}},
		{"cost-gcp-3y.txt", []string{"cost", "--offering", "gcp/a2-highgpu-8g/us-central1", "--hours-per-month", "420", "--horizon", "3y", "--discount-rate", "8%"}},
		{"cost-usage.md", []string{"cost", "--usage", "../../examples/usage.yaml", "-o", "markdown", "--limit", "3"}},
		{"cost-cashflow.csv", []string{"cost", "--offering", "gcp/a2-highgpu-8g/us-central1", "--for", "2mo", "--cashflow", "-o", "csv"}},
		{"cost-china.txt", []string{"cost", "--prices", "../../examples/prices-china.yaml", "--offering", "alibaba/ecs.gn7i-c8g1.2xlarge", "--horizon", "1y", "--currency", "CNY"}},
		{"breakeven-a2-1y.txt", []string{"cost", "breakeven", "--offering", "gcp/a2-highgpu-8g", "--term", "1y"}},
		{"advise-article.txt", []string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d"}},
		{"advise-china.txt", []string{"advise", "--scenario", "inference-online", "--hours-per-month", "730", "--china", "--currency", "CNY"}},
		{"models.txt", []string{"models"}},
		{"models-qwen2.5-72b.json", []string{"models", "qwen2.5-72b", "-o", "json"}},
		{"advise-lora-70b.txt", []string{"advise", "--scenario", "llm-finetuning", "--model", "llama-3-70b", "--method", "lora", "--tokens", "2e9", "--deadline", "10d", "--budget", "20000USD", "--limit", "3"}},
		{"advise-serve-qwen72b.txt", []string{"advise", "--scenario", "inference-online", "--model", "qwen2.5-72b", "--context", "32k", "--concurrency", "32", "--hours-per-month", "730", "--limit", "3"}},
		{"spot-article.txt", []string{"spot", "--offering", "aws/p4d.24xlarge/us-east-1", "--work", "72h", "--deadline", "100h", "--band", "10-15%", "--runs", "2000"}},
		{"spot-trace.md", []string{"spot", "--work", "48h", "--deadline", "52h", "--trace", "../spot/testdata/volatile_1node.json", "--spot-price", "0.918", "--od-price", "3.06", "-o", "markdown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tc.name, out)
		})
	}
}

// TestOffersJSONContract checks the fields other tools rely on and that numbers are JSON numbers.
func TestOffersJSONContract(t *testing.T) {
	out, _, code := run(t, "offers", "--all-regions", "-o", "json")
	if code != 0 {
		t.Fatal("exit", code)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 500 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		for _, k := range []string{"provider", "instance_type", "region", "zone", "gpu", "interconnect", "currency", "price_source", "price_as_of"} {
			if _, ok := r[k].(string); !ok {
				t.Fatalf("%v: %s is not a string", r, k)
			}
		}
		if _, ok := r["gpu_count"].(float64); !ok {
			t.Fatalf("%v: gpu_count is not a number", r)
		}
		for _, k := range []string{"gpu_memory_gib", "vcpus", "memory_gib"} { // unknown is null, never 0
			v, present := r[k]
			if n, isNum := v.(float64); !present || (v != nil && (!isNum || n == 0)) {
				t.Fatalf("%v: %s must be a number above 0 or null", r, k)
			}
		}
		if _, ok := r["price_stale"].(bool); !ok {
			t.Fatalf("%v: price_stale is not a boolean", r)
		}
		for _, k := range []string{"price_per_hour", "spot_price_per_hour"} {
			v, present := r[k]
			if _, isNum := v.(float64); !present || (v != nil && !isNum) {
				t.Fatalf("%v: %s must be a number or null", r, k)
			}
		}
		if r["price_per_hour"] != nil && len(r["price_as_of"].(string)) != 10 {
			t.Fatalf("%v: price without a YYYY-MM-DD as-of date", r)
		}
	}
}

func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	badYAML := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badYAML, []byte("prices:\n  - provider: aws\n    price: [\n"), 0o644)
	negYAML := filepath.Join(dir, "neg.yaml")
	os.WriteFile(negYAML, []byte("prices:\n  - provider: aws\n    instance_type: p4d.24xlarge\n    price: -1\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"offers", "--provider", "oracle"}, `--provider "oracle" is not a known provider; known: aws, azure`},
		{[]string{"offers", "--gpu", "A100:x"}, `--gpu "A100:x": count "x": want a number more than 0 and at most 1024`},
		{[]string{"offers", "--gpu", ":8"}, `want NAME[:COUNT]`},
		{[]string{"offers", "--gpu", "A1000"}, `unknown GPU "A1000"; closest known names: A100`},
		{[]string{"offers", "--max-price", "-5"}, `--max-price "-5": want a price per hour from 0 to 100,000`},
		{[]string{"offers", "--currency", "DOLLAR"}, `--currency: currency "DOLLAR" is not a three-letter ISO 4217 code`},
		{[]string{"offers", "--currency", "JPY"}, `--currency JPY: no exchange rate`},
		{[]string{"offers", "--fx", "CNY=-1"}, `--fx "CNY=-1"`},
		{[]string{"offers", "--sort", "cheapest"}, `sort "cheapest" is not one of price, gpu-hour`},
		{[]string{"offers", "--interconnect", "infiniband"}, `--interconnect "infiniband" is not one of`},
		{[]string{"offers", "--region", "mars-1"}, `--region "mars-1" is not a known region`},
		{[]string{"cost", "--gpu", "A100:3", "--for", "7d"}, `no offering has 3 × A100 (any of its 6 variants); instances that match the other filters have 1, 2, 4, 8 of them`},
		{[]string{"offers", "--provider", "aws", "--region", "sa-east-1"}, `--region "sa-east-1" is not a known region; closest: us-east-1, us-east-2, eu-west-1, us-west-1, eu-west-2`},
		{[]string{"cost", "--offering", "aws/p4d.24xlarge/sa-east-1", "--for", "7d"}, `unknown region "sa-east-1": the catalog lists no offering there; aws's closest: us-east-1`},
		{[]string{"cost", "--offering", "aws/p4d.24xlarge/cn-hangzhou", "--for", "7d"}, `--offering aws/p4d.24xlarge/cn-hangzhou: aws lists p4d.24xlarge in 12 region(s), not in cn-hangzhou: ap-northeast-1,`},
		{[]string{"spot", "--offering", "aws/p4d.24xlarge/cn-hangzhou", "--work", "7h"}, `not in cn-hangzhou`},
		{[]string{"offers", "--china", "--no-china"}, "exclude each other"},
		{[]string{"offers", "--min-gpu-memory", "lots"}, `--min-gpu-memory "lots"`},
		{[]string{"offers", "-o", "xml"}, `output format "xml" is not one of table, json, csv, markdown`},
		{[]string{"offers", "--prices", badYAML}, "bad.yaml:3"},
		{[]string{"offers", "--prices", negYAML}, "neg.yaml:4: field price: value -1 is negative"},
		{[]string{"offers", "--prices", filepath.Join(dir, "missing.yaml")}, "no such file"},
		{[]string{"catalog", "validate", negYAML}, "neg.yaml:4: field price"},
		{[]string{"catalog", "validate"}, "takes one price file"},
		{[]string{"offers", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"nonsense"}, "unknown command"},
		{[]string{"gpus", "a", "b"}, "at most one GPU name"},
	} {
		out, errOut, code := run(t, tc.args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (stdout %q)", tc.args, code, out)
		}
		if !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: stderr %q, want it to contain %q", tc.args, errOut, tc.want)
		}
		if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("%v: stack trace on stderr", tc.args)
		}
	}
}

func TestPricesFileChangesOffers(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "my.yaml")
	os.WriteFile(p, []byte("prices:\n  - provider: alibaba\n    instance_type: ecs.gn7i-c8g1.2xlarge\n    region: 华东1\n    price: 7.1843\n    currency: CNY\n"), 0o644)
	out, errOut, code := run(t, "offers", "--prices", p, "--provider", "alibaba", "--gpu", "A10", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var rows []map[string]any
	json.Unmarshal([]byte(out), &rows)
	for _, r := range rows {
		if r["instance_type"] == "ecs.gn7i-c8g1.2xlarge" {
			// 7.1843 CNY is exactly one US dollar at the default rate.
			if r["price_per_hour"] != 1.0 || r["converted_from"] != "CNY" || r["price_source"] != "user:my.yaml" {
				t.Errorf("row = %v", r)
			}
			return
		}
	}
	t.Error("gn7i row missing")
	out, _, code = run(t, "catalog", "validate", p)
	if code != 0 || !strings.Contains(out, "1 catalog prices overridden") {
		t.Errorf("validate: %d %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	out, _, code := run(t, "version")
	if code != 0 || !strings.HasPrefix(out, "gpuscout ") {
		t.Errorf("version: %d %q", code, out)
	}
}
