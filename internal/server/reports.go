package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/agentsummary"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/plandoc"
	"github.com/gpuscout/gpuscout/internal/store"
)

// Signature headers of a signed upload: the hex HMAC-SHA256 of the body
// with the node's key, and the key's id.
const (
	SignatureHeader = "X-Gpuscout-Signature"
	KeyIDHeader     = "X-Gpuscout-Key-Id"
)

// Sign returns the X-Gpuscout-Signature value for body under key.
func Sign(key, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return "hmac-sha256=" + hex.EncodeToString(m.Sum(nil))
}

// docSummary is a stored document without its body.
type docSummary struct {
	ID              string `json:"id"`
	Kind            string `json:"kind"`
	ReceivedAt      string `json:"received_at"`
	CreatedAt       string `json:"created_at,omitempty"`
	Uploader        string `json:"uploader"`
	SignedBy        string `json:"signed_by,omitempty"`
	GPU             string `json:"gpu,omitempty"`
	Provider        string `json:"provider,omitempty"`
	InstanceType    string `json:"instance_type,omitempty"`
	Region          string `json:"region,omitempty"`
	MatchedOffering string `json:"matched_offering,omitempty"`
	Host            string `json:"host,omitempty"`
}

func summary(d *store.Document) docSummary {
	s := docSummary{ID: d.ID, Kind: d.Kind, ReceivedAt: d.ReceivedAt.UTC().Format(time.RFC3339), Uploader: d.TokenName, SignedBy: d.SignedBy,
		GPU: d.GPU, Provider: d.Provider, InstanceType: d.InstanceType, Region: d.Region, MatchedOffering: d.MatchedOffering, Host: d.Host}
	if !d.CreatedAt.IsZero() {
		s.CreatedAt = d.CreatedAt.UTC().Format(time.RFC3339)
	}
	return s
}

// readBody reads the whole (limited) body; false: it answered 413 or 400.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	b, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("body over the server's limit of %d bytes", tooBig.Limit), nil)
		return nil, false
	}
	if err != nil {
		badRequest(w, FieldError{"body", "unreadable: " + err.Error()})
		return nil, false
	}
	return b, true
}

func (s *Server) postReport(w http.ResponseWriter, r *http.Request) {
	if bad := unknownParams(r, []string{"kind"}); bad != nil {
		badRequest(w, bad...)
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	kind := r.URL.Query().Get("kind")
	if kind == "" {
		kind = store.KindBench
	}
	d := &store.Document{Kind: kind, Body: body, ReceivedAt: s.cfg.Now().UTC()}
	if t := caller(r.Context()); t != nil {
		d.TokenName = t.Name
	}
	// Each kind is read with its schema package, strictly: one JSON value
	// and nothing after it, each key once, no field the schema does not
	// have, every number within its range.
	var (
		err      error
		warnings []string
		decoded  any // the body as its schema package reads it, for the dashboard
	)
	switch kind {
	case store.KindBench:
		decoded, warnings, err = indexBench(d, s.cfg.Catalog)
	case store.KindPlan:
		decoded, err = indexPlan(d)
	case store.KindAgent:
		decoded, err = indexAgent(d)
	default:
		badRequest(w, FieldError{"kind", fmt.Sprintf("%q: want bench, plan or agent", kind)})
		return
	}
	if err != nil {
		badRequest(w, FieldError{"body", err.Error()})
		return
	}
	if sig := r.Header.Get(SignatureHeader); sig != "" {
		keyID := r.Header.Get(KeyIDHeader)
		if !strings.HasPrefix(sig, "hmac-sha256=") || keyID == "" {
			badRequest(w, FieldError{SignatureHeader, "want hmac-sha256=<hex> with " + KeyIDHeader + " naming the key"})
			return
		}
		if key, known := s.cfg.Keys[keyID]; known {
			if !hmac.Equal([]byte(Sign(key, body)), []byte(sig)) {
				writeError(w, http.StatusUnauthorized, "bad_signature", "the signature does not match the body under key "+strconv.Quote(keyID), nil)
				return
			}
			d.SignedBy = keyID
		}
	}
	d.ID = store.DocumentID(body)
	created, err := s.cfg.Store.PutDocument(r.Context(), d)
	if err != nil {
		s.cfg.Logger.Error("put document", "id", d.ID, "err", err)
		writeError(w, http.StatusServiceUnavailable, "store", "the document was not stored; retry", nil)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		// The dashboard's cached pages built from documents of this kind
		// are now stale; the others are not. Stored returns once the pages
		// read since their last render show the document: a page read after
		// this answer shows it.
		switch inv := s.cfg.Dashboard.(type) {
		case interface {
			Stored(ctx context.Context, d *store.Document, decoded any)
		}:
			inv.Stored(r.Context(), d, decoded)
		case interface{ InvalidateKind(kind string) }:
			inv.InvalidateKind(d.Kind)
		case interface{ Invalidate() }:
			inv.Invalidate()
		}
	}
	w.Header().Set("Location", "/api/v1/reports/"+d.ID)
	answer := map[string]any{"id": d.ID, "kind": d.Kind, "created": created}
	if len(warnings) > 0 {
		answer["warnings"] = warnings
	}
	writeJSON(w, status, answer)
}

// indexBench validates a bench report and takes its index fields; it
// returns the report decoded, and warnings naming figures above their
// GPU's datasheet (more than benchreport.MaxOverDatasheet times it is
// refused).
func indexBench(d *store.Document, c *catalog.Catalog) (*benchreport.Document, []string, error) {
	doc, err := benchreport.DecodeDocument(bytes.NewReader(d.Body))
	if err != nil {
		return nil, nil, err
	}
	if err := checkBounds(doc); err != nil {
		return nil, nil, err
	}
	warnings, err := doc.CheckDatasheet(c)
	if err != nil {
		return nil, nil, err
	}
	if len(doc.GPUs) > 0 {
		d.GPU = doc.GPUs[0].Name
		if c := doc.GPUs[0].CanonicalGPU; c != nil {
			d.GPU = *c
		}
	}
	if c := doc.Cloud; c != nil {
		d.Provider, d.InstanceType, d.Region, d.MatchedOffering = c.Provider, c.InstanceType, c.Region, c.MatchedOffering
	}
	d.Host, d.CreatedAt = doc.Host.Hostname, doc.CreatedAt.UTC()
	return doc, warnings, nil
}

// Upload bounds: the most a measured figure may be, by unit (a finite
// number the schema allows but no machine measures: one such report, at
// 1e308 TFLOP/s, took the top of the leaderboard and squashed the
// price/performance chart); other units maxOtherValue. Efficiency (measured
// over datasheet) at most maxEfficiency.
var maxValue = map[string]float64{
	"TFLOP/s":   1e5, // 100 PFLOP/s on one device; today's largest is about 10
	"GB/s":      1e5, // 100 TB/s; HBM3e is about 8
	"%":         100,
	"W":         1e5,
	"MHz":       1e5,
	"samples/s": 1e9,
}

const (
	maxOtherValue = 1e12
	maxEfficiency = 10
)

// checkBounds refuses a bench report with a figure beyond maxValue or an
// efficiency beyond maxEfficiency, naming it.
func checkBounds(doc *benchreport.Document) error {
	limit := func(unit string) float64 {
		if v, ok := maxValue[unit]; ok {
			return v
		}
		return maxOtherValue
	}
	for i, m := range doc.Measurements {
		if m.Value != nil && *m.Value > limit(m.Unit) {
			return fmt.Errorf("measurements[%d] (%s): value = %g %s; want at most %g %s", i, m.Name, *m.Value, m.Unit, limit(m.Unit), m.Unit)
		}
		if m.Efficiency != nil && *m.Efficiency > maxEfficiency {
			return fmt.Errorf("measurements[%d] (%s): efficiency = %g; want at most %d (measured over datasheet)", i, m.Name, *m.Efficiency, maxEfficiency)
		}
	}
	for i, w := range doc.Workloads {
		if w.Value > limit(w.Unit) {
			return fmt.Errorf("workloads[%d] (%s): value = %g %s; want at most %g %s", i, w.Name, w.Value, w.Unit, limit(w.Unit), w.Unit)
		}
	}
	return nil
}

// indexPlan validates a plan (the JSON of advise -o json, plandoc's
// schema) and returns it decoded. A plan has no index fields: no host,
// GPU or time of its own.
func indexPlan(d *store.Document) (*plandoc.Document, error) {
	return plandoc.Read(d.Body)
}

// indexAgent validates an agent's hourly summary (agentsummary's schema)
// and takes its index fields; it returns the summary decoded.
func indexAgent(d *store.Document) (*agentsummary.Summary, error) {
	sum, err := agentsummary.Read(d.Body)
	if err != nil {
		return nil, err
	}
	d.Host, d.GPU, d.Provider, d.InstanceType, d.Region = sum.Host, sum.GPU, sum.Provider, sum.InstanceType, sum.Region
	if t := sum.Created(); !t.IsZero() {
		d.CreatedAt = t.UTC()
	}
	return sum, nil
}

var listParams = []string{"kind", "gpu", "provider", "region", "host", "since", "limit", "offset"}

// listFilter reads the list filters. A gpu the catalog knows is taken as
// the user means it, as the catalog queries do: a family or alias ("H100",
// "H200") selects every variant it names (stored reports carry canonical
// names such as H200-SXM-141GB); any other name must match exactly.
func (s *Server) listFilter(r *http.Request) (store.Filter, []FieldError) {
	v := r.URL.Query()
	f := store.Filter{Kind: v.Get("kind"), GPU: v.Get("gpu"), Provider: v.Get("provider"), Region: v.Get("region"), Host: v.Get("host")}
	if f.GPU != "" {
		if gs, err := s.cfg.Catalog.LookupGPU(f.GPU); err == nil && len(gs) > 0 && len(gs) < store.MaxGPUs {
			f.GPUs = []string{f.GPU} // a stored name that is itself an alias stays matched
			for _, g := range gs {
				if g.Name != f.GPU {
					f.GPUs = append(f.GPUs, g.Name)
				}
			}
			f.GPU = ""
		}
	}
	bad := unknownParams(r, listParams)
	if f.Kind != "" && f.Kind != store.KindBench && f.Kind != store.KindPlan && f.Kind != store.KindAgent {
		bad = append(bad, FieldError{"kind", fmt.Sprintf("%q: want bench, plan or agent", f.Kind)})
	}
	if s := v.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			bad = append(bad, FieldError{"since", fmt.Sprintf("%q: want an RFC 3339 time such as 2026-11-30T00:00:00Z", s)})
		}
		f.Since = t
	}
	for _, p := range []struct {
		name string
		to   *int
		max  int
	}{{"limit", &f.Limit, store.MaxLimit}, {"offset", &f.Offset, store.MaxOffset}} {
		if s := v.Get(p.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n > p.max {
				bad = append(bad, FieldError{p.name, fmt.Sprintf("%q: want a number from 0 to %d", s, p.max)})
			}
			*p.to = n
		}
	}
	return f, bad
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, kind string) {
	f, bad := s.listFilter(r)
	if kind != "" {
		if f.Kind != "" && f.Kind != kind {
			bad = append(bad, FieldError{"kind", "plans are kind plan"})
		}
		f.Kind = kind
	}
	if bad != nil {
		badRequest(w, bad...)
		return
	}
	docs, err := s.cfg.Store.ListDocuments(r.Context(), f, false)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", "listing failed", nil)
		return
	}
	out := make([]docSummary, 0, len(docs))
	for i := range docs {
		out = append(out, summary(&docs[i]))
	}
	key := "reports"
	if kind == store.KindPlan {
		key = "plans"
	}
	writeJSON(w, http.StatusOK, map[string]any{key: out})
}

func (s *Server) listReports(w http.ResponseWriter, r *http.Request) { s.list(w, r, "") }
func (s *Server) listPlans(w http.ResponseWriter, r *http.Request)   { s.list(w, r, store.KindPlan) }

func (s *Server) getReport(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !store.ValidID(id) {
		badRequest(w, FieldError{"id", fmt.Sprintf("%q: want the 64 hex digits of a report's SHA-256", id)})
		return
	}
	d, err := s.cfg.Store.GetDocument(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", "no report "+id, nil)
		return
	}
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", "lookup failed", nil)
		return
	}
	// A document stored before uploads were read strictly may not be one
	// JSON value (trailing data): said, not answered as an empty 200.
	if !json.Valid(d.Body) {
		writeError(w, http.StatusInternalServerError, "corrupt", "stored document "+id+" is not one JSON value (stored before uploads were checked); delete it and upload it again", nil)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"report": summary(d), "document": json.RawMessage(d.Body)})
}

// Bounds of a comparison: the reports' stored bytes together, and its
// cells (rows × reports). Eight ids of one 8 MB report answered 79 MB and
// took 1 GB of memory; a real report is well under 1 MiB.
const (
	maxCompareBytes = 8 << 20
	maxCompareCells = 100000
)

// compareReports is `bench compare` over stored bench reports: 2 to 20
// distinct ids, at most maxCompareBytes of reports together and
// maxCompareCells cells (413 beyond either).
func (s *Server) compareReports(w http.ResponseWriter, r *http.Request) {
	if bad := unknownParams(r, []string{"ids"}); bad != nil {
		badRequest(w, bad...)
		return
	}
	ids := strings.Split(r.URL.Query().Get("ids"), ",")
	if len(ids) < 2 || len(ids) > 20 {
		badRequest(w, FieldError{"ids", "want 2 to 20 report ids, comma-separated"})
		return
	}
	for i, id := range ids {
		if !store.ValidID(id) {
			badRequest(w, FieldError{"ids", fmt.Sprintf("%q: want the 64 hex digits of a report's SHA-256", id)})
			return
		}
		if slices.Contains(ids[:i], id) {
			badRequest(w, FieldError{"ids", id + " is given twice; want distinct report ids"})
			return
		}
	}
	bodies := make([][]byte, len(ids))
	total := 0
	for i, id := range ids {
		d, err := s.cfg.Store.GetDocument(r.Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			writeError(w, http.StatusNotFound, "not_found", "no report "+id, nil)
			return
		}
		if err != nil {
			writeError(w, http.StatusServiceUnavailable, "store", "lookup failed", nil)
			return
		}
		if d.Kind != store.KindBench {
			badRequest(w, FieldError{"ids", id + " is a " + d.Kind + ", not a bench report"})
			return
		}
		if total += len(d.Body); total > maxCompareBytes {
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the reports compared hold more than %d bytes together (the limit); compare fewer or smaller reports", maxCompareBytes), nil)
			return
		}
		bodies[i] = d.Body
	}
	docs := make([]*benchreport.Document, len(ids))
	for i, id := range ids {
		var err error
		if docs[i], err = benchreport.DecodeDocument(bytes.NewReader(bodies[i])); err != nil {
			writeError(w, http.StatusInternalServerError, "corrupt", "stored report "+id+" no longer decodes: "+err.Error(), nil)
			return
		}
	}
	if cells := benchreport.CompareRows(docs) * len(docs); cells > maxCompareCells {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the comparison would have %d cells (measurements × reports); the limit is %d: compare fewer reports", cells, maxCompareCells), nil)
		return
	}
	writeJSON(w, http.StatusOK, benchreport.Compare(ids, docs, s.cfg.Catalog))
}
