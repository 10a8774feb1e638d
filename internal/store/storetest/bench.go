package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// BenchBodySize is the size of the documents BenchPut stores: about a
// `gpuscout bench` report's JSON.
const BenchBodySize = 4 << 10

// BenchPut measures PutDocument on s with new documents of BenchBodySize
// bytes: one at a time ("serial") and from GOMAXPROCS×8 goroutines at once
// ("parallel", as concurrent uploads reach the server), each reporting
// puts/s. Every put is a committed, durable write.
func BenchPut(b *testing.B, open func() store.Store) {
	pad := strings.Repeat("x", BenchBodySize-64)
	var n atomic.Int64
	next := func() *store.Document {
		body := fmt.Appendf(nil, `{"n":%d,"pad":%q}`, n.Add(1), pad)
		return &store.Document{ID: store.DocumentID(body), Kind: store.KindBench, Body: body,
			ReceivedAt: time.Now(), TokenName: "bench", GPU: "H100-SXM5-80GB", Provider: "aws", Host: "n1"}
	}
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		s := open()
		defer s.Close()
		b.SetBytes(BenchBodySize)
		for b.Loop() {
			if _, err := s.PutDocument(ctx, next()); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
	})
	b.Run("parallel", func(b *testing.B) {
		s := open()
		defer s.Close()
		b.SetBytes(BenchBodySize)
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.PutDocument(ctx, next()); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
	})
}

// BenchList measures ListDocuments on a store holding 1000 documents of
// BenchBodySize bytes: a page of 100 and all 1000 without bodies (listings),
// and all 1000 with their bodies (the dashboard's leaderboard reads that many);
// and the 1000 bodies by ID, with GetDocuments (one query) and with
// GetDocument (one query each).
func BenchList(b *testing.B, open func() store.Store) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	pad := strings.Repeat("x", BenchBodySize-64)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var all []string
	for i := range store.MaxLimit {
		body := fmt.Appendf(nil, `{"n":%d,"pad":%q}`, i, pad)
		d := &store.Document{ID: store.DocumentID(body), Kind: store.KindBench, Body: body,
			ReceivedAt: at.Add(time.Duration(i) * time.Minute), GPU: "H100-SXM5-80GB", Provider: "aws"}
		if _, err := s.PutDocument(ctx, d); err != nil {
			b.Fatal(err)
		}
		all = append(all, d.ID)
	}
	b.Run("get1000bodies", func(b *testing.B) {
		for b.Loop() {
			got, err := s.GetDocuments(ctx, all)
			if err != nil || len(got) != len(all) {
				b.Fatalf("%d documents, %v; want %d", len(got), err, len(all))
			}
		}
	})
	b.Run("get1000bodies1by1", func(b *testing.B) {
		for b.Loop() {
			for _, id := range all {
				if _, err := s.GetDocument(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, c := range []struct {
		name     string
		f        store.Filter
		withBody bool
		want     int
	}{
		{"page100", store.Filter{Kind: store.KindBench, Limit: 100, Offset: 400}, false, 100},
		{"all1000", store.Filter{Kind: store.KindBench, Limit: store.MaxLimit}, false, store.MaxLimit}, // the leaderboard's listing
		{"all1000bodies", store.Filter{Kind: store.KindBench, Limit: store.MaxLimit}, true, store.MaxLimit},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				got, err := s.ListDocuments(ctx, c.f, c.withBody)
				if err != nil || len(got) != c.want {
					b.Fatalf("%d documents, %v; want %d", len(got), err, c.want)
				}
			}
		})
	}
}
