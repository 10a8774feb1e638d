package cli

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

// lambdaPage is the fake price API's page of one region: each type at its
// price, on demand.
func lambdaPage(region string, prices map[string]string) string {
	var items []string
	for typ, p := range prices {
		items = append(items, `{"currencyCode":"USD","retailPrice":`+p+`,"unitOfMeasure":"1 Hour","armRegionName":"`+region+`","armSkuName":"`+typ+`","type":"Consumption"}`)
	}
	return `{"Items":[` + strings.Join(items, ",") + `],"NextPageLink":null}`
}

// TestRefreshUnlistsWhatItNoLongerLists: a refresh that lists a region's
// types (the fake API's fetch, like every live fetch) and no longer lists
// one priced before leaves it unknown, noted with the last price seen and
// its date, never serving the old price as current; other regions keep
// theirs; a later refresh that still does not list it keeps the date it was
// last seen priced; a downloaded page (not a listing) unlists nothing.
// Lambda's embedded us-east-1 prices (SkyPilot catalog v9, 2026-07-09):
// gpu_1x_a10 1.29, gpu_1x_a100 1.99 USD/h.
func TestRefreshUnlistsWhatItNoLongerLists(t *testing.T) {
	hermetic(t)
	fake := &feedstest.FakeImporter{ProviderName: "lambda", Currency: "USD", SourceID: "fake-lambda-api"}
	old := importers
	importers = func() []feeds.Importer { return []feeds.Importer{fake} }
	t.Cleanup(func() { importers = old })
	oldClock := clock
	t.Cleanup(func() { clock = oldClock })
	t.Setenv(feedstest.FakeTokenEnv, "token")
	api := &fakeAPI{fail: map[string]bool{}, throttled: map[string]bool{}, pages: map[string]string{}}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	refresh := func(day int, region string, prices map[string]string) string { // day of November 2026, past 30 into December
		t.Helper()
		clock = func() time.Time { return time.Date(2026, 11, day, 12, 0, 0, 0, time.UTC) }
		api.pages[region+"/1"] = lambdaPage(region, prices)
		out, errOut, code := run(t, "catalog", "refresh", "--provider", "lambda", "--region", region, "--endpoint", srv.URL)
		if code != 0 {
			t.Fatalf("refresh of %s on the %dth: exit %d: %s", region, day, code, errOut)
		}
		return out
	}
	price := func(typ, region string) (any, any) {
		t.Helper()
		r := refreshedRow(t, "lambda", typ, region)
		return r["price_per_hour"], r["price_note"]
	}

	// 1. us-east-1 lists only the A10: the 21 other types the embedded
	// catalog prices there (the A100 among them) are no longer listed.
	out := refresh(30, "us-east-1", map[string]string{"gpu_1x_a10": "1.49"})
	if !strings.Contains(out, "\n21 offerings priced before are no longer listed") || !strings.Contains(out, " 21 no longer priced.") {
		t.Errorf("first refresh summary, want 21 types no longer listed:\n%s", out)
	}
	if p, note := price("gpu_1x_a100", "us-east-1"); p != nil ||
		note != "not listed by your catalog refresh of 2026-11-30 (lambda us-east-1); last priced 1.99 USD/h as of 2026-07-09 (skypilot-v9@2c3d7ea7)" {
		t.Errorf("us-east-1 A100 after a refresh not listing it: price %v, note %q; want unknown, noted with the embedded 1.99 of 2026-07-09", p, note)
	}
	if p, _ := price("gpu_1x_a10", "us-east-1"); p != 1.49 {
		t.Errorf("us-east-1 A10 = %v, want the refreshed 1.49", p)
	}
	if p, note := price("gpu_1x_a100", "us-west-1"); p != 1.99 || note != nil {
		t.Errorf("us-west-1 A100 = %v (%v): a refresh of us-east-1 must leave other regions their prices (1.99)", p, note)
	}

	// 2. us-east-1 lists the A100 again, and no longer the A10: the note is
	// of the last price seen, the first refresh's 1.49, not the embedded 1.29.
	refresh(31, "us-east-1", map[string]string{"gpu_1x_a100": "2.09"}) // "November 31" is 1 December
	if p, note := price("gpu_1x_a10", "us-east-1"); p != nil ||
		note != "not listed by your catalog refresh of 2026-12-01 (lambda us-east-1); last priced 1.49 USD/h as of 2026-11-30 (fake-lambda-api@2026-11-30)" {
		t.Errorf("us-east-1 A10 no longer listed: price %v, note %q; want unknown, last priced 1.49 on 2026-11-30", p, note)
	}
	if p, _ := price("gpu_1x_a100", "us-east-1"); p != 2.09 {
		t.Errorf("us-east-1 A100 listed again = %v, want 2.09", p)
	}

	// 3. Still not listed five days later: still last seen priced on 2026-11-30.
	refresh(36, "us-east-1", map[string]string{"gpu_1x_a100": "2.09"})
	if p, note := price("gpu_1x_a10", "us-east-1"); p != nil ||
		note != "not listed by your catalog refresh of 2026-12-06 (lambda us-east-1); last priced 1.49 USD/h as of 2026-11-30 (fake-lambda-api@2026-11-30)" {
		t.Errorf("us-east-1 A10 still not listed: price %v, note %q; want the 2026-11-30 price kept in the note", p, note)
	}

	// 4. A refresh of us-west-1 unlists there, and nothing in us-east-1.
	refresh(36, "us-west-1", map[string]string{"gpu_1x_a10": "1.39"})
	if p, _ := price("gpu_1x_a100", "us-east-1"); p != 2.09 {
		t.Errorf("us-east-1 A100 after a refresh of us-west-1 = %v, want 2.09", p)
	}
	if p, note := price("gpu_1x_a100", "us-west-1"); p != nil || !strings.Contains(note.(string), "last priced 1.99 USD/h as of 2026-07-09") {
		t.Errorf("us-west-1 A100 = %v (%v), want unknown, last priced 1.99", p, note)
	}

	out, _, _ = run(t, "catalog", "info")
	if !strings.Contains(out, "lambda us-west-1: 1 offerings (22 replaced, 0 added)") || !strings.Contains(out, "0 spot bands, 21 no longer listed (prices") {
		t.Errorf("catalog info does not count what the refreshes no longer list:\n%s", out)
	}

	// The commands say why the price is unknown: offers under its table, cost among what is not priced.
	out, _, _ = run(t, "offers", "--provider", "lambda", "--region", "us-east-1", "--all-regions")
	if !strings.Contains(out, "? price of gpu_1x_a10 in us-east-1: not listed by your catalog refresh of 2026-12-06") {
		t.Errorf("offers lacks the note of the unlisted price:\n%s", out)
	}
	out, _, _ = run(t, "cost", "--offering", "lambda/gpu_1x_a10/us-east-1", "--for", "1d", "--unpriced")
	if !strings.Contains(out, "last priced 1.49 USD/h as of 2026-11-30") {
		t.Errorf("cost lacks the note of the unlisted price:\n%s", out)
	}

	// 5. A downloaded page answers for what it holds, not a listing: it unlists nothing.
	file := filepath.Join(t.TempDir(), "page.json")
	if err := os.WriteFile(file, []byte(lambdaPage("us-west-2", map[string]string{"gpu_1x_a10": "1.19"})), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "catalog", "refresh", "--from-file", file, "--format", feedstest.FakeFormat, "--provider", "lambda", "--as-of", "2026-12-06")
	if code != 0 || strings.Contains(out, "no longer listed in the regions") {
		t.Fatalf("file refresh: exit %d %s\n%s", code, errOut, out)
	}
	if p, _ := price("gpu_1x_a100", "us-west-2"); p != 1.99 {
		t.Errorf("us-west-2 A100 after a downloaded page without it = %v, want 1.99 kept", p)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv(usercatalog.EnvDir), "lambda", "us-east-1", "CURRENT")); err != nil {
		t.Error(err)
	}
}
