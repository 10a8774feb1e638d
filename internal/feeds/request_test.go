package feeds

import (
	"net/http"
	"testing"
	"time"
)

// TestFetchRequestDefaults: what a request leaves unset takes the one
// default every importer uses; what it sets wins.
func TestFetchRequestDefaults(t *testing.T) {
	var r FetchRequest
	if b, p := r.Limits(16, 5); b != 16 || p != 5 {
		t.Errorf("unset limits: %d, %d; want the importer's 16, 5", b, p)
	}
	if c, ok := r.Client().(*http.Client); !ok || c.Timeout != DefaultTimeout {
		t.Errorf("no client: got %#v, want an http.Client with a %s timeout", r.Client(), DefaultTimeout)
	}
	if d := time.Since(r.Clock()()); d < 0 || d > time.Minute {
		t.Errorf("no clock: %s from now", d)
	}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	c := &http.Client{}
	r = FetchRequest{MaxBody: 1, MaxPages: 2, HTTP: c, Now: func() time.Time { return at }}
	if b, p := r.Limits(16, 5); b != 1 || p != 2 || r.Client() != c || !r.Clock()().Equal(at) {
		t.Errorf("set: limits %d, %d, client %p, clock %s; want the request's", b, p, r.Client(), r.Clock()())
	}
}
