package agentsummary

import (
	"encoding/json"
	"strings"
	"testing"
)

const good = `{"schema_version":1,"kind":"agent_hourly","created_at":"2026-12-01T01:00:00Z","hour_start":"2026-12-01T00:00:00Z","hour_end":"2026-12-01T01:00:00Z","host":"gpu-a","provider":"aws","instance_type":"p5.48xlarge","region":"us-east-1","gpu":"H100-SXM5-80GB","samples":3600,"gpu_utilization_mean":0.25,"gpu_utilization_max":0.9,"egress_bytes":2e9,"spend":55.04,"currency":"USD"}`

func TestRead(t *testing.T) {
	s, err := Read([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	spend, ok := s.SpendDecimal()
	if !ok || spend.StringFixed(2) != "55.04" || s.Start().Hour() != 0 || s.End().Hour() != 1 || s.Created().IsZero() || *s.GPUUtilizationMax != 0.9 {
		t.Errorf("got %+v", s)
	}
	// What the agent writes reads back.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(b); err != nil {
		t.Errorf("re-encoded: %v", err)
	}
	noPrice := strings.Replace(good, `"spend":55.04,"currency":"USD"`, `"spend":null`, 1)
	if s, err := Read([]byte(noPrice)); err != nil {
		t.Errorf("no price: %v", err)
	} else if _, ok := s.SpendDecimal(); ok {
		t.Error("no price: a spend")
	}
}

// Any JSON object was stored as an agent summary, numbers like 1e3000000
// with it (the agents page stalled formatting it), data after it and keys
// given twice too: each is refused, naming the field and what is allowed.
func TestReadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"not a summary", `{"hello":"world"}`, "field hello at byte 1: unknown field; allowed: created_at, currency, egress_bytes"},
		{"huge spend", strings.Replace(good, `"spend":55.04`, `"spend":1e3000000`, 1), "field spend at byte"},
		{"huge spend beyond money", strings.Replace(good, `"spend":55.04`, `"spend":1e14`, 1), "field spend = 1e14 is outside the allowed range: want an amount from 0 to 1000000000000"},
		{"negative spend", strings.Replace(good, `"spend":55.04`, `"spend":-1`, 1), "field spend = -1 is outside the allowed range"},
		{"spend without currency", strings.Replace(good, `,"currency":"USD"`, ``, 1), "field currency (of the spend)"},
		{"utilisation", strings.Replace(good, `"gpu_utilization_max":0.9`, `"gpu_utilization_max":90`, 1), "field gpu_utilization_max = 90 is outside the allowed range: want a ratio from 0 to 1"},
		{"egress", strings.Replace(good, `"egress_bytes":2e9`, `"egress_bytes":-2`, 1), "field egress_bytes = -2 is outside the allowed range"},
		{"samples", strings.Replace(good, `"samples":3600`, `"samples":-1`, 1), "field samples = -1 is outside the allowed range"},
		{"version", strings.Replace(good, `"schema_version":1`, `"schema_version":2`, 1), "field schema_version = 2: this gpuscout reads version 1"},
		{"kind", strings.Replace(good, `"kind":"agent_hourly"`, `"kind":"daily"`, 1), `field kind = "daily": want "agent_hourly"`},
		{"no start", strings.Replace(good, `"hour_start":"2026-12-01T00:00:00Z",`, ``, 1), "field hour_start is missing"},
		{"bad start", strings.Replace(good, `"hour_start":"2026-12-01T00:00:00Z"`, `"hour_start":"midnight"`, 1), `field hour_start = "midnight": want an RFC 3339 time`},
		{"two hours", strings.Replace(good, `"hour_end":"2026-12-01T01:00:00Z"`, `"hour_end":"2026-12-01T02:00:00Z"`, 1), "want an end from the start to an hour after it"},
		{"long host", strings.Replace(good, `"host":"gpu-a"`, `"host":"`+strings.Repeat("a", 300)+`"`, 1), "field host is 300 bytes long; want at most 256"},
		{"trailing", good + ` {"host":"b"}`, "data after the JSON value"},
		{"twice", strings.Replace(good, `"host":"gpu-a"`, `"host":"gpu-a","host":"gpu-b"`, 1), "field host at byte"},
		{"too large", `{"host":"` + strings.Repeat("a", 70<<10) + `"}`, "over the limit of 65536 bytes"},
	} {
		_, err := Read([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// FuzzRead: no input panics the summary reader; what it accepts is valid
// JSON with its times readable and its spend a bounded decimal.
func FuzzRead(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(`{"schema_version":1,"kind":"agent_hourly","hour_start":"2026-12-01T01:00:00Z","hour_end":"2026-12-01T01:20:00Z","partial":true,"host":"b","samples":2,"gpu_utilization_mean":null,"gpu_utilization_max":null,"egress_bytes":5e8,"spend":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Read(b)
		if err != nil {
			return
		}
		if !json.Valid(b) || s.Start().IsZero() || s.End().Before(s.Start()) {
			t.Fatalf("accepted %q", b)
		}
		if s.Spend != nil {
			if v, ok := s.SpendDecimal(); !ok || len(v.StringFixed(2)) > 20 {
				t.Fatalf("accepted the spend %s", *s.Spend)
			}
		}
	})
}
