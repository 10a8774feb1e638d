package usercatalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds"
)

// azureLicenses is an Azure Retail refresh of eastus: the H100 size's
// Linux price (the catalog's 98.32) and two Windows surcharges — the H100's
// changed from the embedded 4.416 to 4.916, and one for the A100 40 GB size.
// (Made-up moves, for the arithmetic; the importer's own tests read the fixture.)
func azureLicenses() *feeds.Result {
	src := "azure-retail-prices@2026-11-30"
	lic := func(typ, per string) feeds.License {
		return feeds.License{Origin: "page1", Provider: "azure", InstanceType: typ, Region: "eastus", License: "windows",
			PerHour: dec(per), Currency: "USD", Source: src, AsOf: "2026-11-30", BringYourOwn: "Azure Hybrid Benefit"}
	}
	return &feeds.Result{
		Offerings: []feeds.Offering{{Origin: "page1", Provider: "azure", InstanceType: "Standard_ND96isr_H100_v5", Region: "eastus",
			OnDemand: feeds.Known(dec("98.32"), "USD", src, "2026-11-30")}},
		Licenses: []feeds.License{lic("Standard_ND96isr_H100_v5", "4.916"), lic("Standard_ND96asr_v4", "4.416"), lic("Standard_NoSuchSize", "1")},
	}
}

// TestLicensesThroughTheSet: build keeps the licences of offerings the
// catalog lists (the unknown size is left out), the store writes and reads
// them back, and Overlay replaces the embedded surcharge of the same
// provider/type/region/licence, leaving the others (licenses.yaml) as they were.
func TestLicensesThroughTheSet(t *testing.T) {
	base := embedded(t)
	set, _, err := Build(base, azureLicenses(), meta("azure", []string{"eastus"}, day))
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Meta.Counts.Licenses; got != 2 {
		t.Fatalf("licences built %d, want 2 (the size the catalog lacks left out): %+v", got, set.Snapshot.Licenses)
	}
	st := &Store{Dir: t.TempDir()}
	path, err := st.Write(set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(path, catalog.LicensesFile)); err != nil {
		t.Fatal(err)
	}
	sets, err := st.Current(base, "azure")
	if err != nil || len(sets) != 1 {
		t.Fatalf("Current: %v, %d sets", err, len(sets))
	}
	if got := sets[0].Snapshot.Licenses; len(got) != 2 || got[0].AsOf != "2026-11-30" || got[0].BringYourOwn != "Azure Hybrid Benefit" {
		t.Errorf("read back %+v", got)
	}
	over, applied, err := Overlay(base, sets)
	if err != nil {
		t.Fatal(err)
	}
	if applied[0].Licenses != 2 {
		t.Errorf("applied %d licences, want 2", applied[0].Licenses)
	}
	if len(over.Licenses) != len(base.Licenses) {
		t.Errorf("%d licences after overlay, want %d (two replaced, none added)", len(over.Licenses), len(base.Licenses))
	}
	tests := []struct {
		typ, per, source string
	}{
		{"Standard_ND96isr_H100_v5", "4.916", "azure-retail-prices@2026-11-30"},
		{"Standard_ND96asr_v4", "4.416", "azure-retail-prices@2026-11-30"},
		{"Standard_ND96amsr_A100_v4", "4.416", "infracost-azure@2025-12-01"}, // not refreshed: the embedded one stays
	}
	for _, tt := range tests {
		o := catalog.Offering{Provider: "azure", InstanceType: tt.typ, Region: "eastus"}
		l := over.LicenseFor(&o, "windows")
		if l == nil || l.PerHour.String() != tt.per || l.Source != tt.source {
			t.Errorf("%s: licence %+v, want %s from %s", tt.typ, l, tt.per, tt.source)
		}
	}
	if l := base.LicenseFor(&catalog.Offering{Provider: "azure", InstanceType: "Standard_ND96isr_H100_v5", Region: "eastus"}, "windows"); l.PerHour.String() != "4.416" {
		t.Errorf("the base catalog changed: %s", l.PerHour)
	}

	changes := DiffLicenses(base.Licenses, over.Licenses, "azure")
	if len(changes) != 1 {
		t.Fatalf("changes %+v, want the H100's only", changes)
	}
	c := changes[0]
	if c.InstanceType != "Standard_ND96isr_H100_v5" || c.Kind != Changed || c.Price != "windows licence" ||
		c.Old.Value.String() != "4.416" || c.New.Value.String() != "4.916" || c.Pct.Decimal.String() != "11.3" {
		t.Errorf("change %+v, want 4.416 -> 4.916 (+11.3%%)", c)
	}
}

func TestDiffLicensesNewAndGone(t *testing.T) {
	l := func(typ, per string) catalog.LicenseSurcharge {
		return catalog.LicenseSurcharge{Provider: "azure", InstanceType: typ, Region: "eastus", License: "windows", PerHour: dec(per), Currency: "USD", Source: "s"}
	}
	old := []catalog.LicenseSurcharge{l("A", "1"), l("B", "2")}
	new := []catalog.LicenseSurcharge{l("B", "2"), l("C", "3")}
	got := DiffLicenses(old, new, "")
	want := []struct{ typ, kind string }{{"A", Gone}, {"C", New}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %v", got, want)
	}
	for i, w := range want {
		if got[i].InstanceType != w.typ || got[i].Kind != w.kind {
			t.Errorf("change %d: got %s %s, want %s %s", i, got[i].InstanceType, got[i].Kind, w.typ, w.kind)
		}
	}
	if got := DiffLicenses(old, new, "aws"); len(got) != 0 {
		t.Errorf("provider filter: got %+v, want none", got)
	}
}

func TestReadLicensesCSVRejects(t *testing.T) {
	for _, tt := range []struct{ name, body string }{
		{"zero price", "provider,instance_type,region,license,per_hour,currency,bring_your_own,source,as_of,notes\nazure,A,eastus,windows,0,USD,,s,,\n"},
		{"no source", "provider,instance_type,region,license,per_hour,currency,bring_your_own,source,as_of,notes\nazure,A,eastus,windows,1,USD,,,,\n"},
		{"header", "provider,type\nazure,A\n"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, catalog.LicensesFile), []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(filepath.Join(dir, catalog.LicensesFile))
		_, err := catalog.ReadLicensesCSV(f)
		f.Close()
		if err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}
