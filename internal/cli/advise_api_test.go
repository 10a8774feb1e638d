package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/form"
	"github.com/gpuscout/gpuscout/internal/server"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

// The API's advise and offerings read the CLI's inputs through the same
// form: the same command line, as a JSON body or a query, gives the same
// answer, and a bad value the same words.

func apiServer(t *testing.T) *server.Server {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: storetest.Memory(), Catalog: cat, ReadOpen: true, Now: clock, ExpensiveRate: server.MaxRate}) // many calls from one address under a frozen clock // the CLI's clock: prices age alike
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func apiDo(srv *server.Server, method, path, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader(body)))
	return w
}

// argsToInputs reads a command line of form inputs into name → values, in
// order; a switch (no-spot) has the value "true".
func argsToInputs(t *testing.T, f *form.Form, args []string) (names []string, values map[string][]string) {
	t.Helper()
	values = map[string][]string{}
	for i := 0; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		if !ok {
			t.Fatalf("%q: want --name", args[i])
		}
		val := "true"
		if fl := f.Flags().Lookup(name); name == "currency" || fl != nil && fl.Value.Type() != "bool" {
			i++
			val = args[i]
		}
		if _, seen := values[name]; !seen {
			names = append(names, name)
		}
		values[name] = append(values[name], val)
	}
	return names, values
}

// adviseBody writes the command line as the API's body: a string per flag,
// a boolean per switch, a list per repeated flag.
func adviseBody(t *testing.T, args []string) string {
	f := form.NewAdvise()
	names, values := argsToInputs(t, &f.Form, args)
	obj := map[string]any{}
	for _, n := range names {
		vs := values[n]
		switch {
		case len(vs) > 1:
			obj[n] = vs
		case n != "currency" && f.Flags().Lookup(n).Value.Type() == "bool":
			obj[n] = vs[0] == "true"
		default:
			obj[n] = vs[0]
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// canonical re-encodes JSON compactly (numbers as written), so that the
// CLI's indented output and the server's compact answer compare byte for byte.
func canonical(t *testing.T, b []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v in %.300s", err, b)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestAdviseAPIMatchesCLI: each command line and its JSON body (generated
// from it, or written by hand with JSON numbers, booleans and lists) give
// the same advise JSON; together the lines use every input.
func TestAdviseAPIMatchesCLI(t *testing.T) {
	srv := apiServer(t)
	used := map[string]bool{}
	spotPlans := false // the simulated spot plans compare too
	for _, tc := range []struct {
		name  string
		args  []string
		typed string // a body by hand (JSON numbers, booleans, lists), besides adviseBody(args)
	}{
		{"the ask", []string{"--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--objective", "balanced", "--max-nodes", "8", "--no-spot", "--provider", "gcp"},
			`{"scenario":"cv-training","gpu":"A100:4","for":"7d","objective":"balanced","max-nodes":8,"no-spot":true,"provider":"gcp"}`},
		{"work with deadline, budget and constraints", []string{"--scenario", "llm-pretraining", "--work", "20000gpu-h@A100", "--deadline", "30d", "--budget", "60000USD",
			"--provider", "gcp", "--provider", "lambda", "--no-china", "--allow-slow-network", "--accelerators", "any", "--spot-band", "10-15%"}, ""},
		{"steady load in China in CNY", []string{"--scenario", "inference-online", "--hours-per-month", "730", "--china", "--currency", "CNY", "--horizon", "3y",
			"--discount-rate", "8%", "--license", "linux", "--egress", "internet-china=200", "--egress", "cross-zone=50"}, ""},
		{"steady load in two regions", []string{"--scenario", "inference-online", "--hours-per-month", "730", "--region", "us-east-1", "--region", "华东1", "--no-spot", "--all-regions"},
			`{"scenario":"inference-online","hours-per-month":730,"region":["us-east-1","华东1"],"no-spot":true,"all-regions":true}`},
		{"lora by the model", []string{"--scenario", "llm-finetuning", "--model", "llama-3-70b", "--method", "lora", "--lora-rank", "64", "--tokens", "2e9", "--context", "8k", "--deadline", "10d", "--budget", "20000USD", "--no-spot"}, ""},
		{"qlora without recompute", []string{"--scenario", "llm-finetuning", "--model", "llama-3-8b", "--method", "qlora", "--recompute", "none", "--tokens", "1e9", "--deadline", "3d", "--no-spot"},
			`{"scenario":"llm-finetuning","model":"llama-3-8b","method":"qlora","recompute":"none","tokens":1e9,"deadline":"3d","no-spot":true}`},
		{"serving by the model", []string{"--scenario", "inference-online", "--model", "qwen2.5-72b", "--weights", "fp8", "--context", "32k", "--concurrency", "32", "--hours-per-month", "730"},
			`{"scenario":"inference-online","model":"qwen2.5-72b","weights":"fp8","context":"32k","concurrency":32,"hours-per-month":"730"}`},
		{"spot across regions", []string{"--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--deadline", "9d", "--spot-regions", "3", "--checkpoint-gb", "50", "--spot-outage", "2h", "--spot-restart", "20m", "--provider", "aws"},
			`{"scenario":"cv-training","gpu":"A100:4","for":"7d","deadline":"9d","spot-regions":3,"checkpoint-gb":50,"spot-outage":"2h","spot-restart":"20m","provider":"aws"}`},
		{"bursty with credits", []string{"--scenario", "llm-finetuning", "--pattern", "bursty", "--peak", "16", "--base", "2", "--peak-hours", "100", "--credits", "1000USD@aws", "--credits", "500USD:6mo", "--provider", "aws"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"advise", "-o", "json", "--no-user-catalog"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("CLI exit %d: %s", code, errOut)
			}
			cli := canonical(t, []byte(out))
			for _, body := range []string{adviseBody(t, tc.args), tc.typed} {
				if body == "" {
					continue
				}
				w := apiDo(srv, "POST", "/api/v1/advise", body)
				if w.Code != 200 {
					t.Fatalf("API %s: %d %s", body, w.Code, w.Body)
				}
				if api := canonical(t, w.Body.Bytes()); cli != api {
					t.Errorf("body %s: the API's answer differs from the CLI's\nCLI %.400s\nAPI %.400s", body, cli, api)
				}
			}
			if !strings.Contains(cli, `"rank":1`) {
				t.Errorf("no plan: %.300s", cli)
			}
			spotPlans = spotPlans || strings.Contains(cli, `"pricing_model":"spot`)
			names, _ := argsToInputs(t, &form.NewAdvise().Form, tc.args)
			for _, n := range names {
				used[n] = true
			}
		})
	}
	want := append(form.NewAdvise().Names(), "currency")
	var missing []string
	for _, n := range want {
		if !used[n] {
			missing = append(missing, n)
		}
	}
	if missing != nil {
		t.Errorf("inputs no case uses: %v", missing)
	}
	if !spotPlans {
		t.Error("no case has a spot plan")
	}
}

// TestAdviseAPIErrorsMatchCLI: a bad value gives exit code 2 with the same
// words on the CLI as the API's 400 names its field with.
func TestAdviseAPIErrorsMatchCLI(t *testing.T) {
	srv := apiServer(t)
	base := []string{"--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d"}
	for _, tc := range []struct {
		field string
		args  []string // replace or extend base
	}{
		{"for", []string{"--scenario", "cv-training", "--gpu", "A100:4", "--for", "forever"}},
		{"scenario", []string{"--scenario", "cooking", "--work", "10gpu-h@A100"}},
		{"discount-rate", append(slices.Clone(base), "--discount-rate", "8")},
		{"pattern", []string{"--scenario", "cv-training", "--pattern", "wavy"}},
		{"model", []string{"--scenario", "llm-pretraining", "--model", "gpt-9", "--for", "1d"}},
		{"credits", append(slices.Clone(base), "--credits", "100XYZ")},
		{"credits", append(slices.Clone(base), "--credits", "lots")},
		{"region", append(slices.Clone(base), "--region", "atlantis-1")},
		{"egress", append(slices.Clone(base), "--egress", "moon=5")},
		{"max-nodes", append(slices.Clone(base), "--max-nodes", "0")},
		{"context", []string{"--scenario", "inference-online", "--model", "8B", "--context", "0.5", "--hours-per-month", "730"}},
		{"spot-band", append(slices.Clone(base), "--spot-band", "often")},
		{"budget", append(slices.Clone(base), "--budget", "-5USD")},
		{"deadline", []string{"--scenario", "inference-online", "--hours-per-month", "100", "--deadline", "3d"}},
		{"tokens", []string{"--scenario", "llm-pretraining", "--tokens", "1e9"}},
		{"currency", append(slices.Clone(base), "--currency", "XYZ")},
		{"for", []string{"--scenario", "cv-training", "--for", "7d", "--hours-per-month", "100"}},
	} {
		t.Run(tc.field+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, code := run(t, append([]string{"advise", "-o", "json", "--no-user-catalog"}, tc.args...)...)
			w := apiDo(srv, "POST", "/api/v1/advise", adviseBody(t, tc.args))
			var e struct {
				Error struct {
					Fields []struct{ Field, Problem string }
				}
			}
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != 400 || len(e.Error.Fields) == 0 {
				t.Fatalf("API: %d %s, want 400", w.Code, w.Body)
			}
			f := e.Error.Fields[0]
			if code != 2 || f.Field != tc.field || f.Problem == "" || !strings.Contains(errOut, f.Problem) {
				t.Errorf("CLI exit %d: %q\nAPI field %s: %q\nwant exit 2, field %s, the API's problem in the CLI's message", code, errOut, f.Field, f.Problem, tc.field)
			}
		})
	}
}

// TestOfferingsAPIMatchesCLI: offers' flags as the query of GET
// /api/v1/offerings give the same rows, in order, at the same prices.
func TestOfferingsAPIMatchesCLI(t *testing.T) {
	srv := apiServer(t)
	for _, args := range [][]string{
		{"--gpu", "A100:8", "--spot", "--sort", "gpu-hour"},
		{"--min-gpu-memory", "80GB", "--max-price", "30", "--currency", "CNY", "--limit", "5"},
		{"--provider", "阿里云", "--region", "华东1", "--include-retired"},
		{"--gpu", "H100", "--interconnect", "nvswitch,pcie", "--no-china", "--all-regions", "--limit", "20"},
		{"--china", "--provider", "aws,alibaba"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"offers", "-o", "json", "--no-user-catalog"}, args...)...)
			if code != 0 {
				t.Fatalf("CLI exit %d: %s", code, errOut)
			}
			f := form.NewOffers()
			names, values := argsToInputs(t, &f.Form, args)
			q := url.Values{"limit": {"0"}} // the CLI's default: all rows
			for _, n := range names {
				q[n] = values[n]
			}
			w := apiDo(srv, "GET", "/api/v1/offerings?"+q.Encode(), "")
			if w.Code != 200 {
				t.Fatalf("API ?%s: %d %s", q.Encode(), w.Code, w.Body)
			}
			// The rows are the same, field for field: the API writes what offers -o json writes.
			var api struct{ Offerings json.RawMessage }
			if err := json.Unmarshal(w.Body.Bytes(), &api); err != nil {
				t.Fatal(err)
			}
			if c, a := canonical(t, []byte(out)), canonical(t, api.Offerings); c != a || !strings.Contains(c, `"price_source"`) {
				t.Errorf("?%s: the API's rows differ from the CLI's:\nCLI %.500s\nAPI %.500s", q.Encode(), c, a)
			}
		})
	}
}

// TestAdviseAPIBenchFromStore: "bench" names stored reports; the answer is
// the CLI's with --bench FILE, the source named by its API path.
func TestAdviseAPIBenchFromStore(t *testing.T) {
	const file = "testdata/bench-a10g-v1.json"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Memory()
	id := store.DocumentID(b)
	if _, err := st.PutDocument(context.Background(), &store.Document{ID: id, Kind: store.KindBench, Body: b, ReceivedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: st, Catalog: cat, ReadOpen: true, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws"}
	out, errOut, code := run(t, append([]string{"advise", "-o", "json", "--no-user-catalog", "--bench", file}, args...)...)
	if code != 0 {
		t.Fatalf("CLI exit %d: %s", code, errOut)
	}
	body := strings.Replace(adviseBody(t, args), "{", `{"bench":["`+id+`"],`, 1)
	w := apiDo(srv, "POST", "/api/v1/advise", body)
	if w.Code != 200 {
		t.Fatalf("API %s: %d %s", body, w.Code, w.Body)
	}
	cli := strings.ReplaceAll(canonical(t, []byte(out)), file, "/api/v1/reports/"+id)
	if api := canonical(t, w.Body.Bytes()); cli != api || !strings.Contains(api, "(measured, /api/v1/reports/"+id+")") {
		t.Errorf("the API's answer with the stored report differs from the CLI's with the file\nCLI %.600s\nAPI %.600s", cli, api)
	}
	w = apiDo(srv, "POST", "/api/v1/advise", strings.Replace(body, id, strings.Repeat("0", 64), 1))
	if w.Code != 400 || !strings.Contains(w.Body.String(), `"field":"bench"`) {
		t.Errorf("an unknown report id: got %d %s, want 400 naming bench", w.Code, w.Body)
	}
}
