package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// TestRefreshSkyPilotEndToEnd: `catalog refresh --provider lambda` fetches
// SkyPilot's hosted vms.csv of Lambda (a loopback fake serving the shared
// copy, throttling the first request once), then `offers --provider lambda`
// shows the price with the refresh's source and date; SkyPilot's own names
// are kept for exports. gpu_8x_h100_sxm5 us-east-1 is 31.92 USD/h in the file.
func TestRefreshSkyPilotEndToEnd(t *testing.T) {
	hermetic(t)
	body := readFile(t, filepath.Join(shareddata.Dir(t), "skypilot-catalog", "lambda", "vms.csv"))
	var paths []string
	srv := newThrottleOnce(t, "no-secret-here", func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if r.URL.Path != "/v9/lambda/vms.csv" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	})
	out, errOut, code := run(t, "catalog", "refresh", "--provider", "lambda", "--region", "us-east-1", "--endpoint", srv.URL)
	if code != 0 || !strings.Contains(out, "lambda us-east-1: 22 offerings") {
		t.Fatalf("refresh: exit %d: %s\n%s", code, errOut, out)
	}
	if strings.Join(paths, ",") != "/v9/lambda/vms.csv" {
		t.Errorf("requests after the throttled one: %v", paths)
	}
	day := clock().UTC().Format("2006-01-02")
	row := refreshedRow(t, "lambda", "gpu_8x_h100_sxm5", "us-east-1")
	if row["price_per_hour"] != 31.92 || row["price_source"] != "skypilot-v9-lambda@"+day || row["price_as_of"] != day {
		t.Errorf("row %v, want 31.92 USD/h from skypilot-v9-lambda@%s", row, day)
	}
	// Other regions keep the embedded snapshot's prices.
	row = refreshedRow(t, "lambda", "gpu_8x_h100_sxm5", "us-west-1")
	if row["price_source"] != "skypilot-v9@2c3d7ea7" {
		t.Errorf("us-west-1 row %v, want the embedded skypilot-v9@2c3d7ea7 price", row)
	}
	out, _, _ = run(t, "catalog", "sources", "-o", "json")
	if !strings.Contains(out, "skypilot-v9-lambda@"+day) || !strings.Contains(out, "SkyPilot's hosted catalog") {
		t.Errorf("catalog sources does not cite the fetch as SkyPilot's:\n%s", out)
	}
	// SkyPilot's accelerator and region names are kept (the set's offerings.csv).
	var csv []byte
	filepath.WalkDir(os.Getenv("GPUSCOUT_CATALOG_DIR"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "offerings.csv" {
			csv, _ = os.ReadFile(p)
		}
		return nil
	})
	var line string
	for _, l := range strings.Split(string(csv), "\n") {
		if strings.HasPrefix(l, "lambda,gpu_8x_h100_sxm5,us-east-1,") {
			line = l
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(line), ",H100,us-east-1") {
		t.Errorf("offerings.csv row %q, want it to end with SkyPilot's names H100,us-east-1", line)
	}
}

// TestRefreshSkyPilotFile: a downloaded vms.csv needs --provider, since
// several clouds' importers read the format, and --as-of, since it carries
// no date (its modification time is not one); with them the file's rows are
// imported, dated by --as-of.
func TestRefreshSkyPilotFile(t *testing.T) {
	hermetic(t)
	file := filepath.Join(t.TempDir(), "vms.csv")
	if err := os.WriteFile(file, readFile(t, filepath.Join(shareddata.Dir(t), "skypilot-catalog", "lambda", "vms.csv")), 0o644); err != nil {
		t.Fatal(err)
	}
	downloaded := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC) // a modification time, never the prices' date
	if err := os.Chtimes(file, downloaded, downloaded); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--format skypilot-csv needs --provider: the file does not say whose it is (one of lambda, fluidstack, seeweb, nebius, vast)"},
		{[]string{"--provider", "aws"}, "--format skypilot-csv is read for lambda, fluidstack, seeweb, nebius, vast, not aws"},
		{[]string{"--provider", "lambda", "--region", "mars-1", "--as-of", "2026-11-28"}, "lambda's catalog has no row in mars-1"},
		{[]string{"--provider", "lambda"}, "(a vms.csv has none); give the day you downloaded it with --as-of YYYY-MM-DD"},
	} {
		args := append([]string{"catalog", "refresh", "--from-file", file, "--format", "skypilot-csv"}, tc.args...)
		out, errOut, code := run(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q (stdout %q)", tc.args, code, errOut, tc.want, out)
		}
	}
	out, errOut, code := run(t, "catalog", "refresh", "--from-file", file, "--format", "skypilot-csv", "--provider", "lambda", "--as-of", "2026-11-28")
	if code != 0 || !strings.Contains(out, "374 offerings") || !strings.Contains(out, "Prices dated 2026-11-28 (--as-of).") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	row := refreshedRow(t, "lambda", "gpu_1x_a10", "us-east-1")
	if row["price_per_hour"] != 1.29 || row["price_source"] != "file:vms.csv@2026-11-28" || row["price_as_of"] != "2026-11-28" {
		t.Errorf("row %v, want 1.29 USD/h from file:vms.csv@2026-11-28", row)
	}
}
