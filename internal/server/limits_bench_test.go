package server

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

// BenchmarkMiddleware measures what every request pays before its handler
// (the token's lookup, cached; the failed sign-in check; the rate limit;
// the headers), on a cheap route over the memory store, from 2 goroutines
// per CPU: "read" is GET /api/v1/plans with a read token, "healthz" the
// health check (a ping and the cached write probe), "bad-token" a wrong
// token (a store lookup and a failure counted; its address is let through
// each time by a rate of failures no test reaches).
func BenchmarkMiddleware(b *testing.B) {
	st := storetest.Memory()
	srv, err := New(Config{Store: st, Catalog: testCatalog(&testing.T{}), RatePerToken: MaxRate, AuthFailures: MaxAuthFailures})
	if err != nil {
		b.Fatal(err)
	}
	secret, tok, err := NewToken("bench", []string{ScopeRead}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if err := st.CreateToken(context.Background(), tok); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, path, auth string
		want             int
	}{
		{"read", "/api/v1/plans", "Bearer " + secret, 200},
		{"healthz", "/healthz", "", 200},
		{"bad-token", "/api/v1/plans", "Bearer gps_wrong", 401},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetParallelism(2)
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					req := httptest.NewRequest("GET", c.path, nil)
					if c.name == "bad-token" { // many addresses: the failures' buckets stay open
						i++
						req.RemoteAddr = "198.51.100." + string(rune('0'+i%10)) + ":1"
					}
					if c.auth != "" {
						req.Header.Set("Authorization", c.auth)
					}
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, req)
					if rec.Code != c.want {
						b.Errorf("GET %s: %d, want %d", c.path, rec.Code, c.want)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}
