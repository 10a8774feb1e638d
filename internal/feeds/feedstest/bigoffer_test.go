package feedstest

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

func TestBigOffer(t *testing.T) {
	var buf bytes.Buffer
	st, err := BigOffer(&buf, BigOfferOptions{Products: 350})
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(buf.Len()) {
		t.Errorf("Bytes %d, wrote %d", st.Bytes, buf.Len())
	}
	var f struct {
		OfferCode string `json:"offerCode"`
		Products  map[string]struct {
			SKU        string            `json:"sku"`
			Attributes map[string]string `json:"attributes"`
		} `json:"products"`
		Terms map[string]map[string]map[string]struct {
			SKU             string `json:"sku"`
			PriceDimensions map[string]struct {
				Unit         string            `json:"unit"`
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
			TermAttributes map[string]string `json:"termAttributes"`
		} `json:"terms"`
	}
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if f.OfferCode != "AmazonEC2" || len(f.Products) != 350 || len(f.Terms["OnDemand"]) != 350 {
		t.Fatalf("offer %q, %d products, %d on-demand SKUs; want AmazonEC2, 350, 350", f.OfferCode, len(f.Products), len(f.Terms["OnDemand"]))
	}
	// Count, independently of the generator, what AWS's own filter keeps.
	kept, gpus := 0, 0
	for sku, p := range f.Products {
		if p.SKU != sku {
			t.Fatalf("product %s has sku %s", sku, p.SKU)
		}
		a := p.Attributes
		if a["gpu"] == "" {
			continue
		}
		gpus++
		if a["operatingSystem"] == "Linux" && a["tenancy"] == "Shared" && a["capacitystatus"] == "Used" && a["preInstalledSw"] == "NA" {
			kept++
		}
	}
	reserved := 0
	for _, terms := range f.Terms["Reserved"] {
		for _, term := range terms {
			reserved++
			units := map[string]bool{}
			for _, d := range term.PriceDimensions {
				units[d.Unit] = true
				if d.PricePerUnit["USD"] == "" {
					t.Fatalf("reserved term of %s without a USD price", term.SKU)
				}
			}
			if !units["Quantity"] || !units["Hrs"] || term.TermAttributes["PurchaseOption"] == "" {
				t.Fatalf("reserved term %+v: want an upfront fee, an hourly rate and a purchase option", term)
			}
		}
	}
	if gpus != 14 || kept != st.GPUOnDemand || kept == 0 || reserved != st.Reserved || reserved != 14*12 {
		t.Errorf("%d GPU products, %d kept (stats %d), %d reserved terms (stats %d); want 14 GPU products, 168 reserved terms", gpus, kept, st.GPUOnDemand, reserved, st.Reserved)
	}
	// Linear in size: ten times the products, ten times the bytes (±3%).
	big, err := BigOffer(io.Discard, BigOfferOptions{Products: 3500})
	if err != nil {
		t.Fatal(err)
	}
	if r := float64(big.Bytes) / float64(st.Bytes); r < 9.7 || r > 10.3 {
		t.Errorf("3500 products: %d bytes, %.2f× 350 products'; want about 10×", big.Bytes, r)
	}
}

// BenchmarkBigOffer: the generator's own speed, so an importer's benchmark
// can tell its parsing time from the file's writing (about 2.2 KB a product:
// 140,000 products make a 300 MB file, the size of a large regional offer file).
func BenchmarkBigOffer(b *testing.B) {
	st, _ := BigOffer(io.Discard, BigOfferOptions{Products: 20000})
	b.SetBytes(st.Bytes)
	for b.Loop() {
		if _, err := BigOffer(io.Discard, BigOfferOptions{Products: 20000}); err != nil {
			b.Fatal(err)
		}
	}
}
