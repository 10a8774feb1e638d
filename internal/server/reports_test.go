package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// A gpu filter means what the catalog queries take: a family or alias
// selects every variant (the stored reports carry canonical names, so
// ?gpu=H200 answered an empty list for an H200 report); a name the catalog
// does not know matches exactly, as before.
func TestListFilterGPUByFamily(t *testing.T) {
	f := newFixture(t, nil)
	a10g, err := os.ReadFile("../cli/testdata/bench-a10g-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range [][]byte{report(t), a10g} { // H200-SXM-141GB, A10G
		if w := f.do(t, "POST", "/api/v1/reports", f.write, body); w.Code != 201 {
			t.Fatalf("upload: got %d %s", w.Code, w.Body)
		}
	}
	for _, tc := range []struct {
		query string
		want  []string // the GPUs of the reports listed
	}{
		{"gpu=H200", []string{"H200-SXM-141GB"}},
		{"gpu=h200", []string{"H200-SXM-141GB"}},
		{"gpu=H200-SXM-141GB", []string{"H200-SXM-141GB"}},
		{"gpu=A10G", []string{"A10G"}},
		{"gpu=H100", nil},
		{"gpu=H200&kind=plan", nil},
		{"gpu=NVIDIA%20Z9", nil},
		{"gpu=%27%29%20OR%20%28%271%27%3D%271", nil},
	} {
		w := f.do(t, "GET", "/api/v1/reports?"+tc.query, f.read, nil)
		var got struct{ Reports []docSummary }
		decode(t, w, &got)
		var gpus []string
		for _, r := range got.Reports {
			gpus = append(gpus, r.GPU)
		}
		if w.Code != 200 || len(gpus) != len(tc.want) || (len(gpus) > 0 && gpus[0] != tc.want[0]) {
			t.Errorf("?%s: got %d %v, want 200 %v", tc.query, w.Code, gpus, tc.want)
		}
	}
}

// An upload with a figure no machine measures is refused with the field
// named: 1e308 TFLOP/s passed the schema (finite, ≥ 0) and then ranked
// first on the leaderboard. The bounds' edges pass.
func TestUploadRefusesImplausibleFigures(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name, measurement, field string
		value                    float64
		want                     int
		problem                  string
	}{
		// Past any number the schema reads (1e15): refused as it is read.
		{"1e308 TFLOP/s", "gemm_bf16", "value", 1e308, 400, "field measurements[0].value at byte 582: number 1e+308 is outside the allowed range: want a number from -1e+15 to 1e+15"},
		{"100001 TFLOP/s", "gemm_bf16", "value", 100001, 400, "want at most 100000 TFLOP/s"},
		// Within the unit's bound, 100000 TFLOP/s is 101× the H200's
		// datasheet: refused by the datasheet's check (advise --bench's).
		{"100000 TFLOP/s", "gemm_bf16", "value", 100000, 400, "measurements[0] (gemm_bf16 on gpu0) = 100000 TFLOP/s is 101× the H200-SXM-141GB datasheet's 989 TFLOP/s; want at most 2× it"},
		{"100000 GB/s of the CPU", "cpu_mem_copy", "value", 100000, 201, ""}, // no datasheet figure: the unit's bound
		{"100001 GB/s of the CPU", "cpu_mem_copy", "value", 100001, 400, "(cpu_mem_copy): value = 100001 GB/s; want at most 100000 GB/s"},
		{"2e5 GB/s", "hbm_copy", "value", 2e5, 400, "(hbm_copy): value = 200000 GB/s; want at most 100000 GB/s"},
		{"efficiency 11", "gemm_bf16", "efficiency", 11, 400, "(gemm_bf16): efficiency = 11; want at most 10"},
	} {
		var doc map[string]any
		if err := json.Unmarshal(report(t), &doc); err != nil {
			t.Fatal(err)
		}
		for _, m := range doc["measurements"].([]any) {
			if mm := m.(map[string]any); mm["name"] == tc.measurement {
				mm[tc.field] = tc.value
			}
		}
		body, _ := json.Marshal(doc)
		w := f.do(t, "POST", "/api/v1/reports", f.write, body)
		var e apiError
		if w.Code == 400 {
			decode(t, w, &e)
		}
		if w.Code != tc.want || (tc.problem != "" && (len(e.Error.Fields) == 0 || e.Error.Fields[0].Field != "body" || !strings.Contains(e.Error.Fields[0].Problem, tc.problem))) {
			t.Errorf("%s: got %d %s, want %d saying %q", tc.name, w.Code, w.Body, tc.want, tc.problem)
		}
	}
}

// upload posts body as kind and returns the answer's status and problem.
func (f *fixture) upload(t *testing.T, kind string, body []byte) (int, string, map[string]any) {
	t.Helper()
	w := f.do(t, "POST", "/api/v1/reports?kind="+kind, f.write, body)
	if w.Code == 400 || w.Code == 413 {
		var e apiError
		decode(t, w, &e)
		if len(e.Error.Fields) > 0 {
			return w.Code, e.Error.Fields[0].Field + ": " + e.Error.Fields[0].Problem, nil
		}
		return w.Code, e.Error.Message, nil
	}
	var ok map[string]any
	decode(t, w, &ok)
	return w.Code, "", ok
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const agentSummary = `{"schema_version":1,"kind":"agent_hourly","created_at":"2026-12-01T01:00:00Z","hour_start":"2026-12-01T00:00:00Z","hour_end":"2026-12-01T01:00:00Z","host":"gpu-a","provider":"aws","instance_type":"p5.48xlarge","region":"us-east-1","gpu":"H100-SXM5-80GB","samples":3600,"gpu_utilization_mean":0.25,"gpu_utilization_max":0.9,"egress_bytes":2e9,"spend":55.04,"currency":"USD"}`

// Every kind is read with its schema, strictly. Today's code stored any
// JSON object as a plan or an agent summary ({"hello":"world"} → 201),
// numbers like 1e3000000 in them (the pages that render one then stalled),
// data after the JSON (read back as an empty 200) and keys given twice
// (last-wins): each is refused with 400 naming the field.
func TestUploadIsStrict(t *testing.T) {
	f := newFixture(t, nil)
	plan := string(readFile(t, "dashboard/testdata/plan-a100.json"))
	bench := string(report(t))
	for _, tc := range []struct {
		name, kind, body, want string
	}{
		{"hello plan", "plan", `{"hello":"world"}`, "body: not the JSON of 'gpuscout advise -o json': field hello at byte 1: unknown field; allowed: closest, excluded, inputs, plans, summary, violation"},
		{"hello agent", "agent", `{"hello":"world"}`, "body: not an agent summary ('gpuscout agent --upload'): field hello at byte 1: unknown field"},
		{"empty plan", "plan", `{}`, "body: field plans is missing"},
		{"huge plan total", "plan", strings.Replace(plan, `"total_cost": 278.873269`, `"total_cost": 1e3000000`, 1), "body: not the JSON of 'gpuscout advise -o json': field plans[0].total_cost at byte"},
		{"huge agent spend", "agent", strings.Replace(agentSummary, `"spend":55.04`, `"spend":1e3000000`, 1), "number 1e3000000 is outside the allowed range: want a number from -1e+15 to 1e+15"},
		{"agent spend beyond money", "agent", strings.Replace(agentSummary, `"spend":55.04`, `"spend":1e13`, 1), "body: field spend = 1e13 is outside the allowed range: want an amount from 0 to 1000000000000"},
		{"trailing bench", "bench", bench + "junk", "body: not a bench report: at byte"},
		{"trailing plan", "plan", plan + `{"plans":[]}`, "data after the JSON value"},
		{"trailing agent", "agent", agentSummary + "]", "data after the JSON value"},
		{"bench key twice", "bench", strings.Replace(bench, `"schema_version": 1,`, `"schema_version": 1, "schema_version": 1,`, 1), "body: not a bench report: field schema_version at byte"},
		{"agent key twice", "agent", strings.Replace(agentSummary, `"host":"gpu-a"`, `"host":"gpu-a","host":"evil"`, 1), "field host at byte"},
		{"bench unknown field deep", "bench", strings.Replace(bench, `"hostname": "node-1"`, `"hostname": "node-1", "hostnme": "x"`, 1), "field host.hostnme at byte"},
	} {
		code, problem, _ := f.upload(t, tc.kind, []byte(tc.body))
		if code != 400 || !strings.Contains(problem, tc.want) {
			t.Errorf("%s: got %d %q, want 400 saying %q", tc.name, code, problem, tc.want)
		}
	}
	// Real documents of each kind are stored, an agent summary with its
	// index fields, and read back whole.
	for kind, body := range map[string]string{"plan": plan, "agent": agentSummary, "bench": bench + "\n"} {
		code, problem, ok := f.upload(t, kind, []byte(body))
		if code != 201 {
			t.Fatalf("%s: got %d %q, want 201", kind, code, problem)
		}
		w := f.do(t, "GET", "/api/v1/reports/"+ok["id"].(string), f.read, nil)
		var got struct {
			Report   docSummary
			Document json.RawMessage
		}
		decode(t, w, &got)
		if w.Code != 200 || len(got.Document) == 0 {
			t.Errorf("%s: read back %d %s", kind, w.Code, w.Body)
		}
		if kind == "agent" && (got.Report.Host != "gpu-a" || got.Report.Provider != "aws" || got.Report.CreatedAt != "2026-12-01T01:00:00Z") {
			t.Errorf("agent index fields: %+v", got.Report)
		}
	}
}

// A document stored before uploads were read strictly, with data after
// its JSON, was answered as an empty 200; now a 500 that says so.
func TestGetStoredDocumentNotOneValue(t *testing.T) {
	f := newFixture(t, nil)
	body := []byte(`{"hello":"world"} junk`)
	id := store.DocumentID(body)
	if _, err := f.st.PutDocument(context.Background(), &store.Document{ID: id, Kind: store.KindPlan, Body: body, ReceivedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	w := f.do(t, "GET", "/api/v1/reports/"+id, f.read, nil)
	if w.Code != 500 || !strings.Contains(w.Body.String(), "is not one JSON value") {
		t.Errorf("got %d %q, want 500 saying the stored document is not one JSON value", w.Code, w.Body)
	}
}

// An upload is checked against its GPU's datasheet as advise --bench
// checks a file (benchreport): the H200's dense bf16 peak is 989 TFLOP/s;
// 2500 is refused, 1100 stored with a warning in the answer.
func TestUploadChecksDatasheet(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		value   float64
		code    int
		problem string
		warning string
	}{
		{2500, 400, "body: measurements[0] (gemm_bf16 on gpu0) = 2500 TFLOP/s is 2.53× the H200-SXM-141GB datasheet's 989 TFLOP/s; want at most 2× it", ""},
		{1100, 201, "", "measurements[0] (gemm_bf16 on gpu0) = 1100 TFLOP/s is 111% of the H200-SXM-141GB datasheet's 989 TFLOP/s"},
		{769, 201, "", ""},
	} {
		var doc map[string]any
		if err := json.Unmarshal(reportWith(t, fmt.Sprint(tc.value)), &doc); err != nil {
			t.Fatal(err)
		}
		doc["measurements"].([]any)[0].(map[string]any)["value"] = tc.value
		body, _ := json.Marshal(doc)
		code, problem, ok := f.upload(t, "bench", body)
		warnings, _ := ok["warnings"].([]any)
		switch {
		case code != tc.code || !strings.Contains(problem, tc.problem):
			t.Errorf("%g: got %d %q, want %d %q", tc.value, code, problem, tc.code, tc.problem)
		case tc.warning == "" && len(warnings) > 0, tc.warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0].(string), tc.warning)):
			t.Errorf("%g: warnings %v, want %q", tc.value, warnings, tc.warning)
		}
	}
}

// putBench stores a bench report directly (the store, not the upload).
func putBench(t *testing.T, f *fixture, body []byte) string {
	t.Helper()
	id := store.DocumentID(body)
	if _, err := f.st.PutDocument(context.Background(), &store.Document{ID: id, Kind: store.KindBench, Body: body, ReceivedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return id
}

// benchWith is the test report with n extra measurements on devices named
// by tag (distinct rows of a comparison), padded with detail of pad bytes each.
func benchWith(t *testing.T, tag string, n, pad int) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(report(t), &doc); err != nil {
		t.Fatal(err)
	}
	ms := doc["measurements"].([]any)
	for i := range n {
		ms = append(ms, map[string]any{"name": "h2d", "device": fmt.Sprintf("%s%d", tag, i), "value": nil, "unit": "GB/s", "efficiency": nil,
			"samples": 0, "status": "failed", "detail": strings.Repeat("x", pad)})
	}
	doc["measurements"] = ms
	b, _ := json.Marshal(doc)
	return b
}

// GET /api/v1/reports/compare?ids=X,X,X,X,X,X,X,X with one 8 MB report
// answered 79 MB (1 GB of memory): an id given twice is refused naming it,
// and a comparison is bounded by the reports' bytes together and by its
// cells, each a 413 that states the limit.
func TestCompareBounds(t *testing.T) {
	f := newFixture(t, nil)
	a, b := putBench(t, f, report(t)), putBench(t, f, reportWith(t, "node-2"))
	w := f.do(t, "GET", "/api/v1/reports/compare?ids="+a+","+b+","+a, f.read, nil)
	if w.Code != 400 || !strings.Contains(w.Body.String(), a+" is given twice; want distinct report ids") {
		t.Errorf("an id twice: got %d %s, want 400 naming it", w.Code, w.Body)
	}
	big1, big2 := putBench(t, f, benchWith(t, "x", 1, 5<<20)), putBench(t, f, benchWith(t, "y", 1, 5<<20))
	w = f.do(t, "GET", "/api/v1/reports/compare?ids="+big1+","+big2, f.read, nil)
	if w.Code != 413 || !strings.Contains(w.Body.String(), "more than 8388608 bytes together (the limit)") {
		t.Errorf("two 5 MB reports: got %d %.300s, want 413 stating the limit", w.Code, w.Body)
	}
	wide1, wide2 := putBench(t, f, benchWith(t, "p", 25001, 0)), putBench(t, f, benchWith(t, "q", 25001, 0))
	w = f.do(t, "GET", "/api/v1/reports/compare?ids="+wide1+","+wide2, f.read, nil)
	if w.Code != 413 || !strings.Contains(w.Body.String(), "the limit is 100000") {
		t.Errorf("50,000 rows × 2: got %d %.300s, want 413 stating the limit", w.Code, w.Body)
	}
	w = f.do(t, "GET", "/api/v1/reports/compare?ids="+a+","+b, f.read, nil)
	if w.Code != 200 {
		t.Errorf("two reports: got %d %.300s", w.Code, w.Body)
	}
}
