package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// The agents' hourly summaries have a page (the overview counted them and
// showed none): each hour as sent, and per node over the hours listed.
// Node gpu-a sent two hours on aws/p5.48xlarge/us-east-1: utilisation
// 0.25 and 0.75 (mean 50.0%), 2e9 and 1e9 bytes (3.000 GB), spend 55.04
// and 55.04 USD (110.08 USD). Node gpu-b sent one hour without a price:
// its spend is unknown, never zero.
func TestAgentSummariesPage(t *testing.T) {
	f := newFixture(t)
	sums := []struct {
		at   time.Time
		body string
	}{
		{time.Date(2026, 12, 1, 1, 0, 5, 0, time.UTC), `{"schema_version":1,"kind":"agent_hourly","hour_start":"2026-12-01T00:00:00Z","hour_end":"2026-12-01T01:00:00Z","host":"gpu-a","provider":"aws","instance_type":"p5.48xlarge","region":"us-east-1","gpu":"H100-SXM5-80GB","samples":3600,"gpu_utilization_mean":0.25,"gpu_utilization_max":0.9,"egress_bytes":2e9,"spend":55.04,"currency":"USD"}`},
		{time.Date(2026, 12, 1, 2, 0, 5, 0, time.UTC), `{"schema_version":1,"kind":"agent_hourly","hour_start":"2026-12-01T01:00:00Z","hour_end":"2026-12-01T02:00:00Z","host":"gpu-a","provider":"aws","instance_type":"p5.48xlarge","region":"us-east-1","gpu":"H100-SXM5-80GB","samples":3600,"gpu_utilization_mean":0.75,"gpu_utilization_max":1,"egress_bytes":1e9,"spend":55.04,"currency":"USD"}`},
		{time.Date(2026, 12, 1, 2, 0, 6, 0, time.UTC), `{"schema_version":1,"kind":"agent_hourly","hour_start":"2026-12-01T01:00:00Z","hour_end":"2026-12-01T02:00:00Z","host":"gpu-b","samples":3599,"gpu_utilization_mean":null,"gpu_utilization_max":null,"egress_bytes":5e8,"spend":null}`},
	}
	for _, s := range sums {
		put(t, f.st, store.KindAgent, []byte(s.body), s.at)
	}
	res, body := get(t, f.h, "/agents")
	if res.StatusCode != 200 {
		t.Fatalf("/agents: got %d", res.StatusCode)
	}
	i := strings.Index(body, "<h2>Per node</h2>")
	j := strings.Index(body, "<h2>Hours 1 to 3</h2>")
	if i < 0 || j < i {
		t.Fatalf("want a per-node table, then the hours 1 to 3:\n%s", body)
	}
	for _, tc := range []struct {
		table, row string
		want       []string
	}{
		{body[i:j], "gpu-a", []string{"gpu-a", "50.0%", "110.08 USD", "2", "3.000", "aws/p5.48xlarge/us-east-1"}},
		{body[i:j], "gpu-b", []string{"gpu-b", "?", "?", "1", "0.500", "?"}},
		{body[j:], "2026-12-01 00:00–01:00", []string{"2026-12-01 00:00–01:00", "gpu-a", "25.0%", "55.04 USD", "90.0%", "2.000", "aws/p5.48xlarge/us-east-1", "H100-SXM5-80GB", "3600"}},
		{body[j:], "gpu-b", []string{"2026-12-01 01:00–02:00", "gpu-b", "?", "?", "?", "0.500", "?", "?", "3599"}},
	} {
		if got := cells(rowOf(tc.table, tc.row)); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("row %s:\n got %q\nwant %q", tc.row, got, tc.want)
		}
	}
	// Newest first: gpu-b's hour, then gpu-a's second, then its first.
	if a, b := strings.Index(body[j:], "gpu-b"), strings.Index(body[j:], "00:00–01:00"); a < 0 || b < a {
		t.Errorf("the hours are not newest first")
	}
	_, over := get(t, f.h, "/")
	if !strings.Contains(over, `href="/agents"`) {
		t.Errorf("the overview does not link the agent summaries")
	}
}
