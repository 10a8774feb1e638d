package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// Run holds the store that open returns to the conformance suite: every
// subtest gets a fresh, empty store from open and closes it at its end.
func Run(t *testing.T, open func() store.Store) {
	t.Helper()
	for _, c := range []struct {
		name string
		fn   func(*testing.T, store.Store)
	}{
		{"PutGet", testPutGet},
		{"IdempotentPut", testIdempotentPut},
		{"BadDocument", testBadDocument},
		{"BodyByteExact", testBodyByteExact},
		{"TimesUTC", testTimesUTC},
		{"ListFilters", testListFilters},
		{"ListNewestFirst", testListNewestFirst},
		{"ListLimitOffset", testListLimitOffset},
		{"ListWithBody", testListWithBody},
		{"Count", testCount},
		{"GetDocuments", testGetDocuments},
		{"GetDocumentsMany", testGetDocumentsMany},
		{"NotFound", testNotFound},
		{"Tokens", testTokens},
		{"TokenErrors", testTokenErrors},
		{"ConcurrentPuts", testConcurrentPuts},
		{"Ping", testPing},
		{"ProbeWrite", testProbeWrite},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := open()
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			c.fn(t, s)
		})
	}
}

// base is the suite's clock: a fixed instant with a microsecond part.
var base = time.Date(2026, 11, 30, 12, 0, 0, 123456000, time.UTC)

// doc returns a document whose body is the JSON {"n": n} plus extra.
func doc(kind string, n int, at time.Time) *store.Document {
	body := fmt.Appendf(nil, `{"n":%d,"kind":%q}`, n, kind)
	return &store.Document{
		ID: store.DocumentID(body), Kind: kind, Body: body,
		ReceivedAt: at, TokenName: "ci", CreatedAt: at.Add(-time.Minute),
	}
}

func put(t *testing.T, s store.Store, d *store.Document) {
	t.Helper()
	created, err := s.PutDocument(context.Background(), d)
	if err != nil || !created {
		t.Fatalf("PutDocument(%s) = %v, %v; want true, nil", d.ID[:8], created, err)
	}
}

func ids(ds []store.Document) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

func testPutGet(t *testing.T, s store.Store) {
	ctx := context.Background()
	d := doc(store.KindBench, 1, base)
	d.SignedBy = "node-a"
	d.GPU, d.Provider, d.InstanceType, d.Region = "H100-SXM5-80GB", "aws", "p5.48xlarge", "us-east-1"
	d.MatchedOffering, d.Host = "aws/p5.48xlarge/us-east-1", "gpu-node-1"
	put(t, s, d)
	got, err := s.GetDocument(ctx, d.ID)
	if err != nil {
		t.Fatalf("GetDocument: %v", err)
	}
	want := *d
	if !equalDoc(*got, want) {
		t.Errorf("GetDocument =\n%+v\nwant\n%+v", *got, want)
	}
}

func equalDoc(a, b store.Document) bool {
	ab, bb := a.Body, b.Body
	a.Body, b.Body = nil, nil
	return bytes.Equal(ab, bb) && a.ReceivedAt.Equal(b.ReceivedAt) && a.CreatedAt.Equal(b.CreatedAt) &&
		a.ReceivedAt.Location() == b.ReceivedAt.Location() &&
		fmt.Sprint(a.ID, a.Kind, a.TokenName, a.SignedBy, a.GPU, a.Provider, a.InstanceType, a.Region,
			a.MatchedOffering, a.Host) ==
			fmt.Sprint(b.ID, b.Kind, b.TokenName, b.SignedBy, b.GPU, b.Provider, b.InstanceType, b.Region,
				b.MatchedOffering, b.Host)
}

func testIdempotentPut(t *testing.T, s store.Store) {
	ctx := context.Background()
	d := doc(store.KindPlan, 1, base)
	put(t, s, d)
	again := *d
	again.ReceivedAt = base.Add(time.Hour) // a retry arrives later
	again.TokenName = "other"
	created, err := s.PutDocument(ctx, &again)
	if err != nil || created {
		t.Fatalf("second PutDocument = %v, %v; want false, nil", created, err)
	}
	got, err := s.GetDocument(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.ReceivedAt.Equal(base) || got.TokenName != "ci" {
		t.Errorf("after a repeated put: received %v by %q; want the first, %v by ci", got.ReceivedAt, got.TokenName, base)
	}
	list, err := s.ListDocuments(ctx, store.Filter{}, false)
	if err != nil || len(list) != 1 {
		t.Errorf("ListDocuments after two puts of one body: %d documents, %v; want 1", len(list), err)
	}
}

func testBadDocument(t *testing.T, s store.Store) {
	ctx := context.Background()
	good := doc(store.KindBench, 1, base)
	for _, c := range []struct {
		name string
		mod  func(d *store.Document)
	}{
		{"wrong id", func(d *store.Document) { d.ID = store.DocumentID([]byte("other")) }},
		{"empty id", func(d *store.Document) { d.ID = "" }},
		{"unknown kind", func(d *store.Document) { d.Kind = "report" }},
		{"empty body", func(d *store.Document) { d.Body = nil; d.ID = store.DocumentID(nil) }},
	} {
		d := *good
		c.mod(&d)
		if created, err := s.PutDocument(ctx, &d); err == nil || created {
			t.Errorf("%s: PutDocument = %v, %v; want an error", c.name, created, err)
		}
	}
	if list, _ := s.ListDocuments(ctx, store.Filter{}, false); len(list) != 0 {
		t.Errorf("after rejected puts: %d documents stored; want 0", len(list))
	}
}

func testBodyByteExact(t *testing.T, s store.Store) {
	ctx := context.Background()
	// Whitespace, key order, escapes, non-ASCII, a NUL escape and SQL
	// metacharacters must all come back as sent.
	body := []byte("{ \"b\":1,\n\t\"a\" : \"x'; DROP TABLE documents; --\\u0000 华东1 \\\"q\\\" \xe2\x82\xac\" }  \n")
	d := &store.Document{ID: store.DocumentID(body), Kind: store.KindAgent, Body: body, ReceivedAt: base}
	put(t, s, d)
	got, err := s.GetDocument(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Body, body) {
		t.Errorf("body =\n%q\nwant\n%q", got.Body, body)
	}
	if sum := sha256.Sum256(got.Body); fmt.Sprintf("%x", sum) != d.ID {
		t.Errorf("stored body hashes to %x; want %s", sum, d.ID)
	}
}

func testTimesUTC(t *testing.T, s store.Store) {
	ctx := context.Background()
	tokyo := time.FixedZone("JST", 9*3600)
	at := time.Date(2026, 12, 1, 9, 30, 15, 987654321, tokyo) // nanoseconds beyond the precision
	d := doc(store.KindBench, 7, at)
	d.CreatedAt = time.Date(2026, 11, 30, 23, 0, 0, 5000, tokyo)
	put(t, s, d)
	noCreated := doc(store.KindBench, 8, at)
	noCreated.CreatedAt = time.Time{}
	put(t, s, noCreated)
	got, err := s.GetDocument(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantRecv := time.Date(2026, 12, 1, 0, 30, 15, 987654000, time.UTC)
	wantCreated := time.Date(2026, 11, 30, 14, 0, 0, 5000, time.UTC)
	for _, c := range []struct {
		name      string
		got, want time.Time
	}{{"ReceivedAt", got.ReceivedAt, wantRecv}, {"CreatedAt", got.CreatedAt, wantCreated}} {
		if !c.got.Equal(c.want) || c.got.Location() != time.UTC {
			t.Errorf("%s = %v (%v); want %v in UTC", c.name, c.got, c.got.Location(), c.want)
		}
	}
	got2, err := s.GetDocument(ctx, noCreated.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got2.CreatedAt.IsZero() {
		t.Errorf("unknown CreatedAt came back as %v; want the zero time", got2.CreatedAt)
	}
}

func testListFilters(t *testing.T, s store.Store) {
	ctx := context.Background()
	type row struct {
		kind, gpu, provider, region, host string
		at                                time.Duration
	}
	rows := []row{
		{store.KindBench, "H100-SXM5-80GB", "aws", "us-east-1", "n1", 0},
		{store.KindBench, "A100-SXM4-80GB", "gcp", "us-central1", "n2", time.Minute},
		{store.KindPlan, "H100-SXM5-80GB", "gcp", "us-east-1", "", 2 * time.Minute},
		{store.KindAgent, "", "aws", "eu-west-1", "n1", 3 * time.Minute},
		{store.KindAgent, "L4", "azure", "eastus", "n3", 4 * time.Minute},
	}
	var all []*store.Document
	for i, r := range rows {
		d := doc(r.kind, i, base.Add(r.at))
		d.GPU, d.Provider, d.Region, d.Host = r.gpu, r.provider, r.region, r.host
		put(t, s, d)
		all = append(all, d)
	}
	pick := func(is ...int) []string {
		var out []string
		for _, i := range is {
			out = append(out, all[i].ID)
		}
		return out
	}
	for _, c := range []struct {
		name string
		f    store.Filter
		want []string
	}{
		{"none", store.Filter{}, pick(4, 3, 2, 1, 0)},
		{"kind", store.Filter{Kind: store.KindBench}, pick(1, 0)},
		{"gpu", store.Filter{GPU: "H100-SXM5-80GB"}, pick(2, 0)},
		{"provider", store.Filter{Provider: "aws"}, pick(3, 0)},
		{"region", store.Filter{Region: "us-east-1"}, pick(2, 0)},
		{"host", store.Filter{Host: "n1"}, pick(3, 0)},
		{"since", store.Filter{Since: base.Add(2 * time.Minute)}, pick(4, 3, 2)},
		{"since in another zone", store.Filter{Since: base.Add(3 * time.Minute).In(time.FixedZone("X", -5*3600))}, pick(4, 3)},
		{"combined", store.Filter{Kind: store.KindAgent, Provider: "aws", Host: "n1"}, pick(3)},
		{"no match", store.Filter{GPU: "B200"}, nil},
		{"any of GPUs", store.Filter{GPUs: []string{"H100-SXM5-80GB", "L4", "B200"}}, pick(4, 2, 0)},
		{"any of GPUs and kind", store.Filter{GPUs: []string{"H100-SXM5-80GB", "A100-SXM4-80GB"}, Kind: store.KindBench}, pick(1, 0)},
		{"any of GPUs, SQL metacharacters", store.Filter{GPUs: []string{"x') OR ('1'='1", "%"}}, nil},
		{"SQL metacharacters", store.Filter{GPU: "x' OR '1'='1", Provider: "%", Region: "_"}, nil},
		{"case-sensitive", store.Filter{Provider: "AWS"}, nil},
	} {
		got, err := s.ListDocuments(ctx, c.f, false)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(ids(got), c.want) {
			t.Errorf("%s: got %d documents %v; want %d %v", c.name, len(got), short(ids(got)), len(c.want), short(c.want))
		}
	}
}

func short(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id[:8]
	}
	return out
}

func testListNewestFirst(t *testing.T, s store.Store) {
	ctx := context.Background()
	// Put out of order; two share an instant (the later put lists first).
	ats := []time.Duration{5 * time.Second, time.Second, 9 * time.Second, time.Second}
	var ds []*store.Document
	for i, a := range ats {
		d := doc(store.KindBench, i, base.Add(a))
		put(t, s, d)
		ds = append(ds, d)
	}
	got, err := s.ListDocuments(ctx, store.Filter{}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ds[2].ID, ds[0].ID, ds[3].ID, ds[1].ID}
	if !slices.Equal(ids(got), want) {
		t.Errorf("order %v; want %v", short(ids(got)), short(want))
	}
}

func testListLimitOffset(t *testing.T, s store.Store) {
	ctx := context.Background()
	const n = 105
	var want []string
	for i := range n {
		d := doc(store.KindBench, i, base.Add(time.Duration(i)*time.Second))
		put(t, s, d)
		want = append([]string{d.ID}, want...)
	}
	for _, c := range []struct {
		limit, offset int
		from, to      int // want[from:to]
	}{
		{0, 0, 0, store.DefaultLimit},
		{10, 0, 0, 10},
		{10, 100, 100, 105},
		{1, 104, 104, 105},
		{5, 105, 0, 0},
		{store.MaxLimit, 0, 0, n},
		{3, store.MaxOffset, 0, 0},
	} {
		got, err := s.ListDocuments(ctx, store.Filter{Limit: c.limit, Offset: c.offset}, false)
		if err != nil {
			t.Errorf("limit %d offset %d: %v", c.limit, c.offset, err)
			continue
		}
		if w := want[c.from:c.to]; !slices.Equal(ids(got), w) {
			t.Errorf("limit %d offset %d: %d documents; want %d (want[%d:%d])", c.limit, c.offset, len(got), len(w), c.from, c.to)
		}
	}
	for _, f := range []store.Filter{
		{Limit: -1}, {Limit: store.MaxLimit + 1}, {Offset: -1}, {Offset: store.MaxOffset + 1}, {GPUs: make([]string, store.MaxGPUs+1)},
	} {
		if got, err := s.ListDocuments(ctx, f, false); err == nil {
			t.Errorf("limit %d offset %d gpus %d: %d documents, no error; want an error", f.Limit, f.Offset, len(f.GPUs), len(got))
		}
	}
}

// testCount: 3 bench reports, 2 plans and no agent summary give counts
// 3, 2, 0 and 5 in all; a document put twice counts once.
func testCount(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i, kind := range []string{store.KindBench, store.KindPlan, store.KindBench, store.KindPlan, store.KindBench} {
		put(t, s, doc(kind, i, base.Add(time.Duration(i)*time.Second)))
	}
	if _, err := s.PutDocument(ctx, doc(store.KindBench, 0, base)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind string
		want int
	}{{store.KindBench, 3}, {store.KindPlan, 2}, {store.KindAgent, 0}, {"", 5}} {
		if got, err := s.CountDocuments(ctx, c.kind); err != nil || got != c.want {
			t.Errorf("CountDocuments(%q) = %d, %v; want %d", c.kind, got, err, c.want)
		}
	}
}

func testListWithBody(t *testing.T, s store.Store) {
	ctx := context.Background()
	d := doc(store.KindPlan, 3, base)
	put(t, s, d)
	for _, withBody := range []bool{false, true} {
		got, err := s.ListDocuments(ctx, store.Filter{}, withBody)
		if err != nil || len(got) != 1 {
			t.Fatalf("withBody %v: %d documents, %v", withBody, len(got), err)
		}
		want := *d
		if !withBody {
			want.Body = nil
		}
		if !equalDoc(got[0], want) {
			t.Errorf("withBody %v: got\n%+v\nwant\n%+v", withBody, got[0], want)
		}
	}
}

// testGetDocuments: documents of every kind come back whole (bodies byte
// for byte, index fields, times in UTC), in the order asked; IDs not
// stored, not valid or named twice are left out or answered once.
func testGetDocuments(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b, c := doc(store.KindBench, 1, base), doc(store.KindPlan, 2, base.Add(time.Second)), doc(store.KindAgent, 3, base.Add(2*time.Second))
	a.SignedBy, a.GPU, a.Provider, a.InstanceType, a.Region = "node-a", "H100-SXM5-80GB", "aws", "p5.48xlarge", "us-east-1"
	a.MatchedOffering, a.Host = "aws/p5.48xlarge/us-east-1", "gpu-node-1"
	c.CreatedAt = time.Time{}
	for _, d := range []*store.Document{a, b, c} {
		put(t, s, d)
	}
	missing := store.DocumentID([]byte("not stored"))
	for _, tc := range []struct {
		name string
		ids  []string
		want []*store.Document
	}{
		{"none", nil, nil},
		{"empty", []string{}, nil},
		{"one", []string{b.ID}, []*store.Document{b}},
		{"in the order asked", []string{c.ID, a.ID, b.ID}, []*store.Document{c, a, b}},
		{"missing left out", []string{missing, b.ID, missing}, []*store.Document{b}},
		{"twice answered once", []string{a.ID, c.ID, a.ID}, []*store.Document{a, c}},
		{"only missing", []string{missing}, nil},
		{"not IDs", []string{"", "x' OR '1'='1", strings.ToUpper(a.ID), a.ID + "0", `"]`, "%"}, nil},
		{"SQL metacharacters beside an ID", []string{"') OR 1=1 --", b.ID}, []*store.Document{b}},
	} {
		got, err := s.GetDocuments(ctx, tc.ids)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d documents %v; want %d", tc.name, len(got), short(ids(got)), len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !equalDoc(got[i], *w) || got[i].ReceivedAt.Location() != time.UTC {
				t.Errorf("%s: [%d] =\n%+v\nwant\n%+v", tc.name, i, got[i], *w)
			}
		}
	}
	// The answer is the caller's: changing it changes nothing stored.
	got, err := s.GetDocuments(ctx, []string{a.ID})
	if err != nil || len(got) != 1 {
		t.Fatalf("GetDocuments(a) = %d documents, %v", len(got), err)
	}
	got[0].Body[0] = 'X'
	if again, err := s.GetDocument(ctx, a.ID); err != nil || !bytes.Equal(again.Body, a.Body) {
		t.Errorf("after changing an answer's body: stored body %q, %v; want %q", again.Body, err, a.Body)
	}
}

// testGetDocumentsMany: MaxLimit IDs are answered in one call, in order;
// more is an error.
func testGetDocumentsMany(t *testing.T, s store.Store) {
	ctx := context.Background()
	const n = 300
	var stored []string
	for i := range n {
		d := doc(store.KindBench, i, base.Add(time.Duration(i)*time.Millisecond))
		put(t, s, d)
		stored = append(stored, d.ID)
	}
	// Every stored ID, newest first, among IDs not stored, up to MaxLimit.
	var ask, want []string
	for i := n - 1; i >= 0; i-- {
		ask = append(ask, stored[i])
		want = append(want, stored[i])
	}
	for i := 0; len(ask) < store.MaxLimit; i++ {
		ask = append(ask, store.DocumentID(fmt.Appendf(nil, "missing %d", i)))
	}
	got, err := s.GetDocuments(ctx, ask)
	if err != nil {
		t.Fatalf("GetDocuments(%d ids): %v", len(ask), err)
	}
	if !slices.Equal(ids(got), want) {
		t.Errorf("GetDocuments(%d ids): %d documents, not the %d stored in the order asked", len(ask), len(got), len(want))
	}
	for _, d := range got {
		if sum := sha256.Sum256(d.Body); fmt.Sprintf("%x", sum) != d.ID {
			t.Errorf("document %s: body hashes to %x", d.ID[:8], sum)
			break
		}
	}
	if got, err := s.GetDocuments(ctx, append(ask, stored[0])); err == nil {
		t.Errorf("GetDocuments(%d ids): %d documents, no error; want an error", len(ask)+1, len(got))
	}
}

func testNotFound(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, err := s.GetDocument(ctx, store.DocumentID([]byte("nothing"))); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetDocument(unknown) error %v; want ErrNotFound", err)
	}
	if _, err := s.TokenByHash(ctx, []byte("nothing")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TokenByHash(unknown) error %v; want ErrNotFound", err)
	}
	if err := s.TouchToken(ctx, "nobody", base); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TouchToken(unknown) error %v; want ErrNotFound", err)
	}
	if err := s.RevokeToken(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeToken(unknown) error %v; want ErrNotFound", err)
	}
	if list, err := s.ListTokens(ctx); err != nil || len(list) != 0 {
		t.Errorf("ListTokens on an empty store = %d tokens, %v; want none", len(list), err)
	}
}

func token(name string, scopes ...string) *store.Token {
	h := sha256.Sum256([]byte("secret-" + name))
	return &store.Token{ID: "id-" + name, Name: name, Hash: h[:], Scopes: scopes, CreatedAt: base}
}

func equalToken(a, b store.Token) bool {
	return a.ID == b.ID && a.Name == b.Name && bytes.Equal(a.Hash, b.Hash) && slices.Equal(a.Scopes, b.Scopes) &&
		a.CreatedAt.Equal(b.CreatedAt) && a.LastUsed.Equal(b.LastUsed) && a.Revoked == b.Revoked &&
		a.ExpiresAt.Equal(b.ExpiresAt) && a.CreatedAt.Location() == time.UTC &&
		(a.ExpiresAt.IsZero() || a.ExpiresAt.Location() == time.UTC)
}

func testTokens(t *testing.T, s store.Store) {
	ctx := context.Background()
	ci, admin := token("ci-uploader", "read", "write"), token("admin", "admin")
	// ci expires (kept to the microsecond, read back in UTC); admin never does.
	ci.ExpiresAt = base.Add(90 * 24 * time.Hour).Truncate(store.TimePrecision)
	for _, tk := range []*store.Token{ci, admin} {
		if err := s.CreateToken(ctx, tk); err != nil {
			t.Fatalf("CreateToken(%s): %v", tk.Name, err)
		}
	}
	got, err := s.TokenByHash(ctx, ci.Hash)
	if err != nil || !equalToken(*got, *ci) {
		t.Fatalf("TokenByHash = %+v, %v; want %+v", got, err, *ci)
	}
	if !got.LastUsed.IsZero() {
		t.Errorf("a new token's LastUsed = %v; want zero (never)", got.LastUsed)
	}
	if got, err := s.TokenByHash(ctx, admin.Hash); err != nil || !got.ExpiresAt.IsZero() {
		t.Errorf("TokenByHash(no expiry) = %+v, %v; want ExpiresAt zero (never)", got, err)
	}
	used := base.Add(90*time.Minute + 7*time.Microsecond).In(time.FixedZone("X", 3600))
	if err := s.TouchToken(ctx, ci.ID, used); err != nil {
		t.Fatalf("TouchToken: %v", err)
	}
	if err := s.RevokeToken(ctx, admin.Name); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	list, err := s.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantCI, wantAdmin := *ci, *admin
	wantCI.LastUsed = used.UTC()
	wantAdmin.Revoked = true
	if len(list) != 2 || !equalToken(list[0], wantAdmin) || !equalToken(list[1], wantCI) {
		t.Errorf("ListTokens (by name) =\n%+v\nwant\n%+v", list, []store.Token{wantAdmin, wantCI})
	}
	if list[1].LastUsed.Location() != time.UTC && !list[1].LastUsed.IsZero() {
		t.Errorf("LastUsed in %v; want UTC", list[1].LastUsed.Location())
	}
	// A revoked token is still found by its hash (the server answers 401
	// for it), and revoking twice is not an error.
	if got, err := s.TokenByHash(ctx, admin.Hash); err != nil || !got.Revoked {
		t.Errorf("TokenByHash(revoked) = %+v, %v; want Revoked", got, err)
	}
	if err := s.RevokeToken(ctx, admin.Name); err != nil {
		t.Errorf("second RevokeToken: %v", err)
	}
}

func testTokenErrors(t *testing.T, s store.Store) {
	ctx := context.Background()
	ci := token("ci", "write")
	if err := s.CreateToken(ctx, ci); err != nil {
		t.Fatal(err)
	}
	dup := token("other", "read")
	dup.Name = "ci"
	if err := s.CreateToken(ctx, dup); !errors.Is(err, store.ErrExists) {
		t.Errorf("CreateToken(taken name) error %v; want ErrExists", err)
	}
	for _, c := range []struct {
		name string
		tk   *store.Token
	}{
		{"no name", &store.Token{ID: "x", Hash: []byte{1}}},
		{"no hash", &store.Token{ID: "x", Name: "x"}},
		{"no id", &store.Token{Name: "x", Hash: []byte{1}}},
		{"bad scope", &store.Token{ID: "x", Name: "x", Hash: []byte{1}, Scopes: []string{"root"}}},
	} {
		if err := s.CreateToken(ctx, c.tk); err == nil || errors.Is(err, store.ErrExists) {
			t.Errorf("CreateToken(%s) error %v; want a validation error", c.name, err)
		}
	}
	if list, _ := s.ListTokens(ctx); len(list) != 1 {
		t.Errorf("after rejected tokens: %d stored; want 1", len(list))
	}
}

func testConcurrentPuts(t *testing.T, s store.Store) {
	ctx := context.Background()
	const workers, distinct = 8, 20
	same := doc(store.KindBench, -1, base)
	var (
		wg         sync.WaitGroup
		mu         sync.Mutex
		sameNew    int
		errs       []error
		distinctOK int
	)
	for w := range workers {
		wg.Go(func() {
			for i := range distinct {
				c := *same
				created, err := s.PutDocument(ctx, &c)
				d := doc(store.KindPlan, w*distinct+i, base.Add(time.Duration(i)*time.Millisecond))
				created2, err2 := s.PutDocument(ctx, d)
				mu.Lock()
				if created {
					sameNew++
				}
				if created2 {
					distinctOK++
				}
				errs = append(errs, err, err2)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent puts: %v", err)
	}
	if sameNew != 1 {
		t.Errorf("%d puts of one body reported created; want exactly 1", sameNew)
	}
	if distinctOK != workers*distinct {
		t.Errorf("%d distinct puts created; want %d", distinctOK, workers*distinct)
	}
	all, err := s.ListDocuments(ctx, store.Filter{Limit: store.MaxLimit}, false)
	if err != nil || len(all) != workers*distinct+1 {
		t.Errorf("stored %d documents, %v; want %d", len(all), err, workers*distinct+1)
	}
}

func testPing(t *testing.T, s store.Store) {
	if err := s.Ping(context.Background()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

// testProbeWrite: the health probe's write commits, again and again (its
// one row is updated), and leaves the documents and tokens alone.
func testProbeWrite(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i := range 3 {
		if err := s.ProbeWrite(ctx); err != nil {
			t.Fatalf("ProbeWrite #%d: %v", i+1, err)
		}
	}
	if n, err := s.CountDocuments(ctx, ""); err != nil || n != 0 {
		t.Errorf("after probes: %d documents, %v; want none", n, err)
	}
	if list, err := s.ListTokens(ctx); err != nil || len(list) != 0 {
		t.Errorf("after probes: %d tokens, %v; want none", len(list), err)
	}
}
