package cloudmeta

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeCloud is a metadata service on loopback that speaks one cloud's
// protocol: the token flow where the cloud has one, the request header it
// demands (answering as the real one does without it), the header it answers
// with, and a body per request URI.
type fakeCloud struct {
	// tokenPath, ttlHeader, tokenHeader: PUT tokenPath with ttlHeader
	// returns a token that GETs must carry in tokenHeader.
	tokenPath, ttlHeader, tokenHeader string
	// tokenRefused: the PUT is answered 403 (Alibaba in normal mode) and
	// GETs need no token.
	tokenRefused bool
	// needKey: needValue must be on every GET.
	needKey, needValue string
	// answerKey: answerValue goes on every answer.
	answerKey, answerValue string
	contentType            string
	values                 map[string]string // request URI → 200 body
	// broken, when set, answers for the URI broken (instead of values).
	broken     string
	brokenWith http.HandlerFunc
}

const fakeToken = "AQAEAFakeTokenForTests=="

func (f *fakeCloud) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.answerKey != "" {
		w.Header().Set(f.answerKey, f.answerValue)
	}
	if f.tokenPath != "" && r.URL.Path == f.tokenPath {
		switch {
		case f.tokenRefused:
			http.Error(w, "Forbidden", http.StatusForbidden)
		case r.Method != http.MethodPut:
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		case r.Header.Get(f.ttlHeader) == "":
			http.Error(w, "Bad Request", http.StatusBadRequest)
		default:
			w.Write([]byte(fakeToken))
		}
		return
	}
	if r.Method != http.MethodGet {
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	if f.tokenPath != "" && !f.tokenRefused && r.Header.Get(f.tokenHeader) != fakeToken {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if f.needKey != "" && r.Header.Get(f.needKey) != f.needValue {
		// Azure answers 400 with a JSON error, GCP 403 with a line of text.
		http.Error(w, "Required metadata header not specified: "+f.needKey, http.StatusBadRequest)
		return
	}
	if f.broken != "" && r.URL.RequestURI() == f.broken {
		f.brokenWith(w, r)
		return
	}
	body, ok := f.values[r.URL.RequestURI()]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if f.contentType != "" {
		w.Header().Set("Content-Type", f.contentType)
	}
	w.Write([]byte(body))
}

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// closedURL is a loopback address where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// hangingURL accepts connections and never answers.
func hangingURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, never answered
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String()
}

func htmlPage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte("<!DOCTYPE html><html><head><title>Sign in to the hotel Wi-Fi</title></head><body>...</body></html>"))
}

func giantBody(w http.ResponseWriter, _ *http.Request) {
	w.Write([]byte(strings.Repeat("a", 1<<20)))
}
