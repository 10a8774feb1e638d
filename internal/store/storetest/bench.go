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
