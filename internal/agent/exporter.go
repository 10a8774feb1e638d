package agent

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Exporter is a prometheus.Collector serving the stored snapshot: a scrape
// reads the last sample and never samples, so its cost does not depend on
// the collectors.
type Exporter struct {
	store *Store
	descs map[*Metric]*prometheus.Desc
	// dcgm holds the dcgm-exporter-named descriptions, when enabled.
	dcgm map[*Metric]*prometheus.Desc
}

// NewExporter describes every registered metric once; with dcgmNames the
// GPU series are also served under dcgm-exporter's names, units and labels
// (gpu, UUID, modelName), for dashboards built on dcgm-exporter.
func NewExporter(store *Store, dcgmNames bool) *Exporter {
	e := &Exporter{store: store, descs: map[*Metric]*prometheus.Desc{}}
	for i := range Metrics {
		m := &Metrics[i]
		e.descs[m] = prometheus.NewDesc(m.Name, m.Help, m.Labels, nil)
		if dcgmNames && m.DCGM != "" {
			if e.dcgm == nil {
				e.dcgm = map[*Metric]*prometheus.Desc{}
			}
			e.dcgm[m] = prometheus.NewDesc(m.DCGM, m.Help+" (dcgm-exporter's name and unit)", dcgmLabels, nil)
		}
	}
	return e
}

// Describe sends every metric's description.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range e.descs {
		ch <- d
	}
	for _, d := range e.dcgm {
		ch <- d
	}
}

func valueType(m *Metric) prometheus.ValueType {
	if m.Type == Counter {
		return prometheus.CounterValue
	}
	return prometheus.GaugeValue
}

// dcgmLabels are dcgm-exporter's labels of a GPU series.
var dcgmLabels = []string{"gpu", "UUID", "modelName"}

// Collect sends the last snapshot's series.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	snap := e.store.Load()
	if snap == nil {
		return
	}
	var models map[string]string // uuid → model, for dcgm-exporter's modelName
	if e.dcgm != nil {
		models = map[string]string{}
		for i := range snap.Series {
			if s := &snap.Series[i]; s.Metric.Name == GPUInfo {
				uuid, _ := s.Label(labelUUID)
				models[uuid], _ = s.Label(labelModel)
			}
		}
	}
	for i := range snap.Series {
		s := &snap.Series[i]
		if m, err := prometheus.NewConstMetric(e.descs[s.Metric], valueType(s.Metric), s.Value, s.Values...); err == nil {
			ch <- m
		}
		if d, ok := e.dcgm[s.Metric]; ok {
			gpu, _ := s.Label(labelGPU)
			uuid, _ := s.Label(labelUUID)
			if m, err := prometheus.NewConstMetric(d, valueType(s.Metric), s.Value*s.Metric.DCGMScale, gpu, uuid, models[uuid]); err == nil {
				ch <- m
			}
		}
	}
}

// Endpoint is the agent's HTTP endpoint: /metrics (Prometheus exposition),
// /healthz (200 while the last sample is fresh, 503 otherwise) and a
// landing page at /. As a TickHandler it encodes each new sample's
// exposition ahead of frequent scrapes, so that none of them pays for it.
type Endpoint struct {
	metrics  *cachedMetrics
	mux      *http.ServeMux
	interval time.Duration
}

// NewEndpoint serves store; see Endpoint.
func NewEndpoint(store *Store, dcgmNames bool, interval time.Duration, landing string) *Endpoint {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewExporter(store, dcgmNames), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	e := &Endpoint{metrics: &cachedMetrics{store: store, reg: reg}, mux: http.NewServeMux(), interval: interval}
	mux := e.mux
	mux.Handle("/metrics", e.metrics)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		snap := store.Load()
		switch {
		case snap == nil:
			http.Error(w, "no sample yet", http.StatusServiceUnavailable)
		case time.Since(snap.At) > 3*interval+time.Second:
			http.Error(w, fmt.Sprintf("last sample %s ago; sampling every %s", time.Since(snap.At).Round(time.Millisecond), interval), http.StatusServiceUnavailable)
		default:
			fmt.Fprintln(w, "ok")
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><meta charset="utf-8"><title>gpuscout agent</title></head><body>
<h1>gpuscout agent</h1><p>%s</p><ul><li><a href="/metrics">/metrics</a>: Prometheus metrics</li><li><a href="/healthz">/healthz</a>: health</li></ul>
<h2>Metrics</h2><ul>%s</ul></body></html>
`, html.EscapeString(landing), metricList())
	})
	return e
}

// ServeHTTP serves the endpoint's paths.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) { e.mux.ServeHTTP(w, r) }

// Tick encodes the new sample before any scrape asks, in the encoding the
// last scrape took, while scrapes come at least once every two intervals
// (then most samples are scraped; at Prometheus's usual 15 s the encoding
// waits for the scrape and most samples are never encoded).
func (e *Endpoint) Tick(now time.Time, s *Snapshot) {
	last := e.metrics.lastScrape.Load()
	if last != 0 && time.Since(time.Unix(0, last)) < 2*e.interval {
		e.metrics.body(e.metrics.lastGzip.Load())
	}
}

// Handler is NewEndpoint as an http.Handler.
func Handler(store *Store, dcgmNames bool, interval time.Duration, landing string) http.Handler {
	return NewEndpoint(store, dcgmNames, interval, landing)
}

func metricList() string {
	var b strings.Builder
	for _, m := range Metrics {
		fmt.Fprintf(&b, "<li><code>%s</code> (%s; %s): %s</li>", m.Name, m.Type, strings.Join(m.Labels, ", "), html.EscapeString(m.Help))
	}
	return b.String()
}
