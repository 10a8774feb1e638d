package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/server"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

// uploadServer is an API server over a memory store and a write token.
func uploadServer(t *testing.T) (url, token string, st store.Store) {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	st = storetest.Memory()
	srv, err := server.New(server.Config{Store: st, Catalog: cat, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	secret, tok, _ := server.NewToken("ci", nil, time.Now())
	st.CreateToken(context.Background(), tok)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts.URL, secret, st
}

func TestBenchAndAdviseUpload(t *testing.T) {
	smallBench(t)
	url, token, st := uploadServer(t)
	_, errOut, code := run(t, "bench", "--device", "cpu", "--quick", "--only", "gemm", "--dtypes", "fp32", "--out", "", "--upload", url, "--token", token)
	if code != 0 || !strings.Contains(errOut, "uploaded bench ") {
		t.Fatalf("bench --upload: exit %d %q", code, errOut)
	}
	adv, errOut, code := run(t, "advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws", "-o", "json", "--upload", url, "--token", token)
	if code != 0 || !strings.Contains(errOut, "uploaded plan ") {
		t.Fatalf("advise --upload: exit %d %q", code, errOut)
	}
	docs, _ := st.ListDocuments(context.Background(), store.Filter{}, true)
	kinds := map[string]*store.Document{}
	for i := range docs {
		kinds[docs[i].Kind] = &docs[i]
	}
	if len(docs) != 2 || kinds["bench"] == nil || kinds["plan"] == nil || kinds["bench"].TokenName != "ci" {
		t.Fatalf("stored: got %d documents %v", len(docs), kinds)
	}
	// The plan is the -o json result.
	var a, b any
	json.Unmarshal([]byte(adv), &a)
	json.Unmarshal(kinds["plan"].Body, &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("uploaded plan differs from advise -o json")
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--upload", "ftp://x", "--token", "t"}, "--upload: upload URL \"ftp://x\""},
		{[]string{"advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--upload", url}, "--upload: no token"},
		{[]string{"bench", "--device", "cpu", "--token", "t"}, "--token without --upload"},
	} {
		if _, errOut, code := run(t, tc.args...); code != ExitUsage || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d %q, want 2 with %q", tc.args, code, errOut, tc.msg)
		}
	}
	if _, errOut, code := run(t, "advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--upload", url, "--token", "gps_wrong"); code != ExitFailure || !strings.Contains(errOut, "401") {
		t.Errorf("wrong token: exit %d %q, want 1 naming the 401", code, errOut)
	}
}

// POST /api/v1/advise answers exactly what advise -o json prints.
func TestServerAdviseIsTheCLIs(t *testing.T) {
	url, token, _ := uploadServer(t)
	cli, errOut, code := run(t, "advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	req, _ := http.NewRequest("POST", url+"/api/v1/advise", strings.NewReader(`{"scenario":"inference-batch","work":"100gpu-h@A100","provider":["aws"]}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var a, b any
	json.Unmarshal([]byte(cli), &a)
	json.Unmarshal(body, &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if resp.StatusCode != 200 || string(ja) != string(jb) {
		t.Fatalf("server %d:\n%.600s\ncli:\n%.600s", resp.StatusCode, jb, ja)
	}
}

// POST /api/v1/cost with a usage file's content answers what cost --usage
// FILE -o json prints.
func TestServerCostIsTheCLIs(t *testing.T) {
	url, token, _ := uploadServer(t)
	usage := `{"gpu": "A100:8", "duration": "7d", "discount_rate": "8%", "egress": {"internet": 1000}, "currency": "USD"}`
	path := t.TempDir() + "/usage.yaml"
	if err := os.WriteFile(path, []byte(usage), 0o644); err != nil {
		t.Fatal(err)
	}
	cli, errOut, code := run(t, "cost", "--usage", path, "--no-user-catalog", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	req, _ := http.NewRequest("POST", url+"/api/v1/cost?limit=10000", strings.NewReader(usage))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var a any
	var b struct{ Options any }
	json.Unmarshal([]byte(cli), &a)
	json.Unmarshal(body, &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b.Options)
	if resp.StatusCode != 200 || string(ja) != string(jb) || len(ja) < 100 {
		t.Fatalf("server %d:\n%.600s\ncli:\n%.600s", resp.StatusCode, jb, ja)
	}
}

// GPUSCOUT_NODE_KEY signs uploads; the server verifies them with its keys.
func TestSignedUpload(t *testing.T) {
	cat, _ := catalog.Default()
	st := storetest.Memory()
	key := strings.Repeat("ab", 32)
	keys, _ := server.ParseKeys("k", strings.NewReader("node-7 "+key))
	srv, _ := server.New(server.Config{Store: st, Catalog: cat, Keys: keys, Now: clock})
	secret, tok, _ := server.NewToken("ci", nil, time.Now())
	st.CreateToken(context.Background(), tok)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	args := []string{"advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws", "--upload", ts.URL, "--token", secret}
	t.Setenv("GPUSCOUT_NODE_KEY", "node-7:"+key)
	if _, errOut, code := run(t, args...); code != 0 {
		t.Fatalf("signed upload: exit %d %s", code, errOut)
	}
	docs, _ := st.ListDocuments(context.Background(), store.Filter{}, false)
	if len(docs) != 1 || docs[0].SignedBy != "node-7" {
		t.Fatalf("stored: %+v, want signed by node-7", docs)
	}
	t.Setenv("GPUSCOUT_NODE_KEY", "node-7:"+strings.Repeat("cd", 32))
	if _, errOut, code := run(t, append(args, "--budget", "1000000USD")...); code != ExitFailure || !strings.Contains(errOut, "401 bad_signature") {
		t.Fatalf("wrong key: exit %d %q, want 1 with the 401", code, errOut)
	}
	t.Setenv("GPUSCOUT_NODE_KEY", "node-7")
	if _, errOut, code := run(t, args...); code != ExitUsage || !strings.Contains(errOut, "GPUSCOUT_NODE_KEY: want KEY-ID:HEX-KEY") {
		t.Fatalf("bad env: exit %d %q", code, errOut)
	}
}

// GPUSCOUT_UPLOAD_URL and GPUSCOUT_TOKEN stand for --upload and --token.
func TestUploadFromEnv(t *testing.T) {
	url, token, st := uploadServer(t)
	t.Setenv("GPUSCOUT_UPLOAD_URL", url)
	t.Setenv("GPUSCOUT_TOKEN", token)
	if _, errOut, code := run(t, "advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws"); code != 0 || !strings.Contains(errOut, "uploaded plan") {
		t.Fatalf("exit %d %q", code, errOut)
	}
	if docs, _ := st.ListDocuments(context.Background(), store.Filter{Kind: store.KindPlan}, false); len(docs) != 1 {
		t.Fatalf("stored %d plans, want 1", len(docs))
	}
}
