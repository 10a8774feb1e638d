package awsprices

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The 12 Reserved Instance offer term codes (research-notes/pricing.md §2):
// 1yr/3yr × standard/convertible × No/Partial/All Upfront.
var riTerms = []struct{ code, lease, class, option string }{
	{"4NA7Y494T4", "1yr", "standard", "No Upfront"}, {"HU7G6KETJZ", "1yr", "standard", "Partial Upfront"}, {"6QCMYABX3D", "1yr", "standard", "All Upfront"},
	{"7NE97W5U4E", "1yr", "convertible", "No Upfront"}, {"CUZHX8X6JH", "1yr", "convertible", "Partial Upfront"}, {"VJWZNREJX2", "1yr", "convertible", "All Upfront"},
	{"BPH4J8HBKS", "3yr", "standard", "No Upfront"}, {"38NPMPTW36", "3yr", "standard", "Partial Upfront"}, {"NQ3QZPMQV9", "3yr", "standard", "All Upfront"},
	{"Z2E3P23VKM", "3yr", "convertible", "No Upfront"}, {"R5XV2EPZQZ", "3yr", "convertible", "Partial Upfront"}, {"MZU6U2429S", "3yr", "convertible", "All Upfront"},
}

// offerVariants are the product variants of the synthetic file: only the
// first is kept by GPUFilter (Linux, shared tenancy, no software, used, on-demand).
var offerVariants = []struct{ os, tenancy, sw, capacity, market string }{
	{"Linux", "Shared", "NA", "Used", "OnDemand"},
	{"Windows", "Shared", "NA", "Used", "OnDemand"},
	{"RHEL", "Shared", "NA", "Used", "OnDemand"},
	{"Linux", "Dedicated", "NA", "Used", "OnDemand"},
	{"Linux", "Host", "NA", "AllocatedHost", "OnDemand"},
	{"Linux", "Shared", "SQL Web", "Used", "OnDemand"},
	{"Linux", "Shared", "NA", "UnusedCapacityReservation", "OnDemand"},
	{"Linux", "Shared", "NA", "Used", "CapacityBlock"},
}

// writeSyntheticOffer writes a bulk EC2 offer file of n products in the
// layout of AWS's regional files (products, then terms.OnDemand and
// terms.Reserved with all 12 offer codes per product): one product in 16
// has GPUs, and one GPU product in 8 passes GPUFilter. It returns how many
// products GPUFilter keeps. The values are synthetic (a test of the
// parser's speed and memory, not a source of prices).
func writeSyntheticOffer(w io.Writer, n int) (kept int, err error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	sku := func(i int) string { return fmt.Sprintf("SYN%013d", i) }
	fmt.Fprint(bw, `{"formatVersion":"v1.0","disclaimer":"synthetic","offerCode":"AmazonEC2","version":"20261101000000","publicationDate":"2026-11-01T00:00:00Z","products":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		v := offerVariants[(i/16)%len(offerVariants)]
		typ, gpu := fmt.Sprintf("m%d.%dxlarge", 5+i%3, 1+i%24), ""
		if i%16 == 0 {
			typ, gpu = fmt.Sprintf("p%d.%dxlarge", 4+i%2, 1+(i/128)%48), `,"gpu":"8","gpuMemory":"80 GiB"`
			if v.os == "Linux" && v.tenancy == "Shared" && v.sw == "NA" && v.capacity == "Used" && v.market == "OnDemand" {
				kept++
			}
		}
		fmt.Fprintf(bw, `"%s":{"sku":"%s","productFamily":"Compute Instance","attributes":{"servicecode":"AmazonEC2","location":"US East (N. Virginia)","locationType":"AWS Region","instanceType":"%s","currentGeneration":"Yes","instanceFamily":"Accelerated Computing","vcpu":"192","physicalProcessor":"AMD EPYC 7R13 Processor","clockSpeed":"2.95 GHz","memory":"2048 GiB","storage":"8 x 3840 SSD","networkPerformance":"3200 Gigabit","processorArchitecture":"64-bit","tenancy":"%s","operatingSystem":"%s","licenseModel":"No License required","usagetype":"BoxUsage:%s","operation":"RunInstances","capacitystatus":"%s","dedicatedEbsThroughput":"80000 Mbps","ecu":"NA","enhancedNetworkingSupported":"Yes","intelAvxAvailable":"No","intelAvx2Available":"No","intelTurboAvailable":"No","marketoption":"%s","normalizationSizeFactor":"384","preInstalledSw":"%s","processorFeatures":"AMD Turbo","regionCode":"us-east-1","servicename":"Amazon Elastic Compute Cloud"%s}}`,
			sku(i), sku(i), typ, v.tenancy, v.os, typ, v.capacity, v.market, v.sw, gpu)
	}
	fmt.Fprint(bw, `},"terms":{"OnDemand":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		s := sku(i)
		fmt.Fprintf(bw, `"%s":{"%s.JRTCKXETXF":{"offerTermCode":"JRTCKXETXF","sku":"%s","effectiveDate":"2026-11-01T00:00:00Z","priceDimensions":{"%s.JRTCKXETXF.6YS6EN2CT7":{"rateCode":"%s.JRTCKXETXF.6YS6EN2CT7","description":"synthetic","beginRange":"0","endRange":"Inf","unit":"Hrs","pricePerUnit":{"USD":"%d.%04d"},"appliesTo":[]}},"termAttributes":{}}}`,
			s, s, s, s, s, 1+i%90, i%10000)
	}
	fmt.Fprint(bw, `},"Reserved":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		s := sku(i)
		fmt.Fprintf(bw, `"%s":{`, s)
		for j, t := range riTerms {
			if j > 0 {
				bw.WriteByte(',')
			}
			fmt.Fprintf(bw, `"%s.%s":{"offerTermCode":"%s","sku":"%s","effectiveDate":"2026-11-01T00:00:00Z","priceDimensions":{"%s.%s.6YS6EN2CT7":{"rateCode":"%s.%s.6YS6EN2CT7","description":"synthetic","beginRange":"0","endRange":"Inf","unit":"Hrs","pricePerUnit":{"USD":"%d.%03d"},"appliesTo":[]}`,
				s, t.code, t.code, s, s, t.code, s, t.code, i%40, j)
			if t.option != "No Upfront" {
				fmt.Fprintf(bw, `,"%s.%s.2TG2D8R56U":{"rateCode":"%s.%s.2TG2D8R56U","description":"Upfront Fee","unit":"Quantity","pricePerUnit":{"USD":"%d"},"appliesTo":[]}`,
					s, t.code, s, t.code, 1000+i%5000)
			}
			fmt.Fprintf(bw, `},"termAttributes":{"LeaseContractLength":"%s","OfferingClass":"%s","PurchaseOption":"%s"}}`, t.lease, t.class, t.option)
		}
		bw.WriteByte('}')
	}
	fmt.Fprint(bw, `}}}`)
	return kept, bw.Flush()
}

// TestSyntheticOfferStreamed: a generated offer file piped into the parser
// (never held whole): every kept product has its on-demand price and all
// 12 reservations; the rest are left out, counted past perReason.
func TestSyntheticOfferStreamed(t *testing.T) {
	n := 300 // about 2.5 MB: kept small (also under -race); the benchmark measures large files
	pr, pw := io.Pipe()
	var kept int
	go func() {
		var err error
		kept, err = writeSyntheticOffer(pw, n)
		pw.CloseWithError(err)
	}()
	pl, shape, err := ParsePriceList(pr, ListOptions{Origin: "syn", Keep: GPUFilter})
	if err != nil {
		t.Fatal(err)
	}
	if shape != ShapeOffer || len(pl.Products) != kept || kept != (n+127)/128 {
		t.Fatalf("shape %v, %d products kept, generator says %d", shape, len(pl.Products), kept)
	}
	for _, p := range pl.Products {
		if !p.OnDemand.Valid || len(p.Reserved) != 12 || !strings.HasPrefix(p.InstanceType, "p") {
			t.Fatalf("product %+v", p)
		}
	}
	// n − kept products left out, one by one or counted (TestLeaverCounts).
	total := 0
	for _, l := range pl.LeftOut {
		if l.Origin == "syn" {
			var more int
			fmt.Sscanf(l.What, "%d more rows", &more)
			total += more
		} else {
			total++
		}
	}
	if total != n-kept {
		t.Errorf("%d products accounted as left out, want %d", total, n-kept)
	}
}

// BenchmarkParseOffer reports the streaming parse's throughput (MB/s) and
// peak heap on a synthetic regional offer file written to a temporary
// file; sizes of about 25 and 250 MB show that time is linear in size and
// memory flat. Run with: go test -run X -bench ParseOffer -benchtime 1x ./internal/feeds/awsprices
func BenchmarkParseOffer(b *testing.B) {
	for _, n := range []int{2500, 25000} {
		path := filepath.Join(b.TempDir(), "offer.json")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		kept, err := writeSyntheticOffer(f, n)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
		st, _ := os.Stat(path)
		b.Run(fmt.Sprintf("%dMB", st.Size()>>20), func(b *testing.B) {
			b.SetBytes(st.Size())
			runtime.GC()
			var peak atomic.Uint64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // sample the live heap
				defer wg.Done()
				var ms runtime.MemStats
				for {
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
			for i := 0; i < b.N; i++ {
				fh, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				pl, _, err := ParsePriceList(fh, ListOptions{Origin: "syn", Keep: GPUFilter})
				fh.Close()
				if err != nil || len(pl.Products) != kept {
					b.Fatalf("%v, %d products, want %d", err, len(pl.Products), kept)
				}
			}
			close(stop)
			wg.Wait()
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		})
	}
}
