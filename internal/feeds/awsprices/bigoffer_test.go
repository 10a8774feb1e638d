package awsprices

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
)

// TestSyntheticOfferStreamed: feedstest.BigOffer's synthetic offer file
// piped into the parser (never held whole): every kept product has its
// on-demand price and all 12 reservations; the rest are left out, counted
// past perReason.
func TestSyntheticOfferStreamed(t *testing.T) {
	n := 700 // about 1.5 MB: kept small (also under -race); the benchmark measures large files
	pr, pw := io.Pipe()
	var st feedstest.BigOfferStats
	go func() {
		var err error
		st, err = feedstest.BigOffer(pw, feedstest.BigOfferOptions{Products: n})
		pw.CloseWithError(err)
	}()
	pl, shape, err := ParsePriceList(pr, ListOptions{Origin: "syn", Keep: GPUFilter})
	if err != nil {
		t.Fatal(err)
	}
	kept := st.GPUOnDemand
	if shape != ShapeOffer || len(pl.Products) != kept || kept == 0 {
		t.Fatalf("shape %v, %d products kept, generator says %d", shape, len(pl.Products), kept)
	}
	for _, p := range pl.Products {
		if !p.OnDemand.Valid || len(p.Reserved) != 12 || p.GPUs == "" || p.GPUs == "0" {
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
// peak heap on feedstest.BigOffer's synthetic regional offer file written
// to a temporary file; sizes of about 20 and 200 MB show that time is
// linear in size and memory flat. Run with:
// go test -run X -bench ParseOffer -benchtime 1x ./internal/feeds/awsprices
func BenchmarkParseOffer(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		path := filepath.Join(b.TempDir(), "offer.json")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		st, err := feedstest.BigOffer(f, feedstest.BigOfferOptions{Products: n})
		kept := st.GPUOnDemand
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
		b.Run(fmt.Sprintf("%dMB", st.Bytes>>20), func(b *testing.B) {
			b.SetBytes(st.Bytes)
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
