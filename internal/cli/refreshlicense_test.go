package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

// TestRefreshLicensesEndToEnd: the azure-retail ND fixture with the H100
// size's Windows price (retailPrice and unitPrice) moved from 102.736 to 103.236 (a change made here to
// see the refreshed surcharge; the fixture's own Windows prices equal the
// embedded ones) → the refresh imports three Windows surcharges and counts
// one changed → catalog diff lists it → cost --license windows bills
// 98.32 + 4.916 with the refreshed surcharge's source, and Hybrid Benefit
// still waives it.
func TestRefreshLicensesEndToEnd(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "feeds", "azureretail", "testdata", "azure-retail-nd-eastus.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(body), "102.736") != 2 {
		t.Fatal("the fixture no longer has the H100 Windows price 102.736")
	}
	file := filepath.Join(t.TempDir(), "azure-nd.json")
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(string(body), "102.736", "103.236")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(usercatalog.EnvDir, t.TempDir())
	out, errOut, code := run(t, "catalog", "refresh", "--from-file", file, "--format", "azure-retail", "--as-of", "2026-11-29")
	if code != 0 {
		t.Fatalf("refresh: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"3 licence prices imported", "Against the prices in use now: 1 changed", "windows licence"} {
		if !strings.Contains(out, want) {
			t.Errorf("refresh summary lacks %q:\n%s", want, out)
		}
	}

	out, errOut, code = run(t, "catalog", "diff", "--provider", "azure", "-o", "json")
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, errOut)
	}
	var changes []changeJSON
	if err := json.Unmarshal([]byte(out), &changes); err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Price != "windows licence" || changes[0].Change != "changed" || *changes[0].Old != "4.416" || *changes[0].New != "4.916" ||
		changes[0].OldSource != "infracost-azure@2025-12-01" || !strings.HasPrefix(changes[0].Source, "file:azure-nd.json@") {
		t.Errorf("diff %+v, want the H100 windows licence 4.416 -> 4.916 from the file", changes)
	}

	if out, _, _ := run(t, "catalog", "info"); !strings.Contains(out, "0 spot bands, 3 licence prices,") {
		t.Errorf("catalog info does not count the licence prices:\n%s", out)
	}

	out, errOut, code = run(t, "cost", "--offering", "azure/Standard_ND96isr_H100_v5/eastus", "--license", "windows", "--hours-per-month", "100", "-o", "json")
	if code != 0 {
		t.Fatalf("cost: exit %d: %s", code, errOut)
	}
	var opts []struct {
		Model       string   `json:"pricing_model"`
		ListHourly  *float64 `json:"list_hourly"`
		Explanation []string `json:"explanation"`
	}
	if err := json.Unmarshal([]byte(out), &opts); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	var why string
	for _, o := range opts {
		if o.ListHourly != nil {
			got[o.Model] = *o.ListHourly
		}
		if o.Model == "on-demand" {
			why = strings.Join(o.Explanation, "\n")
		}
	}
	if got["on-demand"] != 103.236 || got["hybrid-benefit"] != 98.32 {
		t.Errorf("on-demand %v, hybrid benefit %v; want 103.236 (98.32 + 4.916) and 98.32", got["on-demand"], got["hybrid-benefit"])
	}
	if !strings.Contains(why, "windows licence adds 4.92 USD/h") || !strings.Contains(why, "file:azure-nd.json@") {
		t.Errorf("the on-demand explanation does not cite the refreshed surcharge:\n%s", why)
	}
}
