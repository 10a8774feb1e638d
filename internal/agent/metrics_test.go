package agent

import (
	"regexp"
	"strings"
	"testing"
)

// Every name follows Prometheus's conventions: the prefix, snake case, _total
// exactly on counters, a base unit, gpu and uuid on per-GPU series.
func TestMetricNames(t *testing.T) {
	nameRE := regexp.MustCompile(`^gpuscout_[a-z][a-z0-9_]*[a-z0-9]$`)
	units := []string{"_ratio", "_errors_total", "_bytes", "_watts", "_joules_total", "_celsius", "_hertz", "_active", "_bytes_total", "_bytes_per_second",
		"_cost", "_per_hour", "_spend_total", "_up", "_seconds", "_info", "_processes", "_armed"}
	seen := map[string]bool{}
	for _, m := range Metrics {
		if !nameRE.MatchString(m.Name) {
			t.Errorf("%s: not gpuscout_snake_case", m.Name)
		}
		if seen[m.Name] {
			t.Errorf("%s: registered twice", m.Name)
		}
		seen[m.Name] = true
		if (m.Type == Counter) != strings.HasSuffix(m.Name, "_total") {
			t.Errorf("%s: type %s; counters and only counters end in _total", m.Name, m.Type)
		}
		unit := false
		for _, u := range units {
			unit = unit || strings.HasSuffix(m.Name, u)
		}
		if !unit {
			t.Errorf("%s: no base-unit suffix", m.Name)
		}
		if strings.HasPrefix(m.Name, "gpuscout_gpu_") && (len(m.Labels) < 2 || m.Labels[0] != "gpu" || m.Labels[1] != "uuid") {
			t.Errorf("%s: labels %v; per-GPU series start with gpu, uuid", m.Name, m.Labels)
		}
		if m.Help == "" || !strings.HasSuffix(m.Help, ".") {
			t.Errorf("%s: help %q; want a sentence", m.Name, m.Help)
		}
		if (m.DCGM == "") != (m.DCGMScale == 0) {
			t.Errorf("%s: DCGM name %q with scale %v", m.Name, m.DCGM, m.DCGMScale)
		}
	}
	if l, ok := MetricLabels(GPUUtilization); !ok || strings.Join(l, ",") != "gpu,uuid" {
		t.Errorf("MetricLabels(%s) = %v, %v", GPUUtilization, l, ok)
	}
	if _, ok := MetricLabels("gpu_util"); ok {
		t.Error("an unknown metric is known")
	}
}

func TestBatch(t *testing.T) {
	var b Batch
	b.Add(GPUUtilization, 0.98, "0", "GPU-1")
	b.Add(GPUUtilization, 0.5, "0")
	b.Add("gpuscout_nope", 1)
	if got := len(b.Series()); got != 1 {
		t.Errorf("%d series kept, want 1", got)
	}
	if b.Err() == nil || !strings.Contains(b.Err().Error(), "1 label values for labels [gpu uuid]") {
		t.Errorf("err = %v", b.Err())
	}
	s := b.Series()[0]
	if v, ok := s.Label("uuid"); !ok || v != "GPU-1" {
		t.Errorf("Label(uuid) = %q, %v", v, ok)
	}
	snap := &Snapshot{Series: b.Series()}
	if got := snap.Get(GPUUtilization); len(got) != 1 || got[0].Value != 0.98 {
		t.Errorf("Get = %+v", got)
	}
}
