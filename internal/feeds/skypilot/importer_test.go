package skypilot_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/skypilot"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func sharedCSV(t *testing.T, cloud string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shareddata.Dir(t), "skypilot-catalog", cloud, "vms.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func find(res *feeds.Result, typ, region string) *feeds.Offering {
	for i := range res.Offerings {
		if o := &res.Offerings[i]; o.InstanceType == typ && o.Region == region {
			return o
		}
	}
	return nil
}

// TestImporterParseLambda reads the shared Lambda vms.csv (425 rows: 374
// GPU, 51 CPU-only per SOURCE.md) as a downloaded skypilot-csv file; with
// a region only that region's 22 GPU rows (us-east-1 has 25 rows, 3 CPU).
func TestImporterParseLambda(t *testing.T) {
	im := skypilot.NewImporter(skypilot.File{Cloud: "lambda"})
	body := sharedCSV(t, "lambda")
	for _, tc := range []struct {
		region          string
		offers, leftOut int
	}{{"", 374, 51}, {"us-east-1", 22, 403}} {
		res, err := im.Parse(skypilot.Format, strings.NewReader(string(body)),
			feeds.ParseOptions{Source: "file:vms.csv@2026-11-29", AsOf: "2026-11-29", Origin: "vms.csv", Region: tc.region})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Offerings) != tc.offers || len(res.LeftOut) != tc.leftOut || res.Naming != feeds.SkyPilotClouds {
			t.Errorf("region %q: %d offerings, %d left out, naming %q; want %d, %d, skypilot", tc.region, len(res.Offerings), len(res.LeftOut), res.Naming, tc.offers, tc.leftOut)
		}
		// gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,31.92,us-east-1 (vms.csv)
		o := find(res, "gpu_8x_h100_sxm5", "us-east-1")
		if o == nil {
			t.Fatalf("region %q: no gpu_8x_h100_sxm5 in us-east-1", tc.region)
		}
		if o.Provider != "lambda" || o.OnDemand.Amount.String() != "31.92" || o.OnDemand.Currency != "USD" ||
			o.OnDemand.Source != "file:vms.csv@2026-11-29" || o.OnDemand.AsOf != "2026-11-29" || o.Spot.Known || o.GPUCount != 8 || o.GPUMemoryMiB != 81920 {
			t.Errorf("gpu_8x_h100_sxm5 = %+v, want lambda 31.92 USD from file:vms.csv@2026-11-29, no spot, 8 GPUs of 81920 MiB", o)
		}
	}
	if _, err := im.Parse(skypilot.Format, strings.NewReader(string(body)), feeds.ParseOptions{Source: "file:vms.csv", Origin: "vms.csv"}); !errors.Is(err, feeds.ErrNoDate) {
		t.Errorf("no as-of date: err %v, want feeds.ErrNoDate (a vms.csv carries no date)", err)
	}
	if _, err := im.Parse(skypilot.Format, strings.NewReader(string(body)), feeds.ParseOptions{Region: "mars-1", AsOf: "2026-11-29"}); err == nil ||
		!strings.Contains(err.Error(), "lambda's catalog has no row in mars-1 (its regions: ") || !strings.Contains(err.Error(), "us-east-1") {
		t.Errorf("unknown region: err %v, want one naming mars-1 and the file's regions", err)
	}
	if _, err := im.Parse("aws-offer", strings.NewReader(""), feeds.ParseOptions{}); err == nil {
		t.Error("format aws-offer: no error")
	}
}

// fakeCatalog serves files by path, counting requests.
func fakeCatalog(t *testing.T, files map[string]string) (*httptest.Server, *[]string) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.Method+" "+r.URL.Path)
		body, ok := files[r.URL.Path]
		if !ok {
			http.Error(w, "404: Not Found", http.StatusNotFound)
			return
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &paths
}

var day = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// TestImporterFetch: one GET of <endpoint>/v9/<cloud>/vms.csv, prices cited
// as skypilot-v9-<cloud>@<day>; Vast's options apply (per-GPU memory from
// the instance total, "State, CC, Continent" regions).
func TestImporterFetch(t *testing.T) {
	srv, paths := fakeCatalog(t, map[string]string{
		"/catalogs/v9/lambda/vms.csv": string(sharedCSV(t, "lambda")),
		"/catalogs/v9/vast/vms.csv":   string(sharedCSV(t, "vast")),
	})
	req := feeds.FetchRequest{HTTP: srv.Client(), Endpoint: srv.URL + "/catalogs/", Now: func() time.Time { return day }, Regions: []string{"us-east-1"}}
	res, err := skypilot.NewImporter(skypilot.File{Cloud: "lambda"}).Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(*paths, ";"), "GET /catalogs/v9/lambda/vms.csv"; got != want {
		t.Errorf("requests %q, want %q", got, want)
	}
	o := find(res, "gpu_1x_a10", "us-east-1") // gpu_1x_a10,A10,1.0,30.0,200.0,1.29,us-east-1
	if len(res.Offerings) != 22 || o == nil || o.OnDemand.Amount.String() != "1.29" || o.OnDemand.Source != "skypilot-v9-lambda@2026-11-30" || o.OnDemand.AsOf != "2026-11-30" {
		t.Errorf("%d offerings, gpu_1x_a10 %+v; want 22 and 1.29 USD from skypilot-v9-lambda@2026-11-30", len(res.Offerings), o)
	}

	// Vast: 1x-RTX_5090-32-65536 ... 0.44,0.00,", CA, NA" (the second data line).
	req.Regions = []string{"CA, NA"}
	res, err = skypilot.NewImporter(skypilot.File{Cloud: "vast", MemoryIsTotal: true, StateCountryContinent: true}).Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	o = find(res, "1x-RTX_5090-32-65536", "CA, NA")
	if o == nil || o.Country != "CA" || o.SourceRegion != ", CA, NA" || o.OnDemand.Amount.String() != "0.44" || o.Spot.Known || o.GPUMemoryMiB != 32607 {
		t.Errorf("vast 1x-RTX_5090 in CA, NA = %+v; want country CA, source region \", CA, NA\", 0.44 USD, no spot, 32607 MiB", o)
	}
}

// TestImporterFetchFails: an HTTP error, a malformed file and a body over
// the limit are errors naming what went wrong; nothing is imported.
func TestImporterFetchFails(t *testing.T) {
	srv, _ := fakeCatalog(t, map[string]string{
		"/v9/nebius/vms.csv": "InstanceType,AcceleratorName\r\nx,H100\r\n",
		"/v9/seeweb/vms.csv": string(sharedCSV(t, "seeweb")),
	})
	for _, tc := range []struct {
		cloud   string
		maxBody int64
		want    string
	}{
		{"lambda", 0, "HTTP 404: 404: Not Found"},
		{"nebius", 0, `header lacks column "AcceleratorCount"`},
		{"seeweb", 1000, "larger than 1000 bytes"},
	} {
		req := feeds.FetchRequest{HTTP: srv.Client(), Endpoint: srv.URL, MaxBody: tc.maxBody}
		res, err := skypilot.NewImporter(skypilot.File{Cloud: tc.cloud}).Fetch(context.Background(), req)
		if err == nil || res != nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "/v9/"+tc.cloud+"/vms.csv") {
			t.Errorf("%s: result %v, err %v; want an error naming the URL and %q", tc.cloud, res, err, tc.want)
		}
		var tooLarge *feeds.TooLargeError
		if tc.maxBody > 0 && !errors.As(err, &tooLarge) {
			t.Errorf("%s: err %v is not a *feeds.TooLargeError", tc.cloud, err)
		}
	}
	if _, err := skypilot.NewImporter(skypilot.File{Cloud: "lambda"}).Fetch(context.Background(), feeds.FetchRequest{Endpoint: "ftp://x"}); err == nil {
		t.Error("ftp endpoint: no error")
	}
}
