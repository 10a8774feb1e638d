package dashboard

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

// readCountingStore counts the documents read by GetDocuments.
type readCountingStore struct {
	store.Store
	read int
}

func (s *readCountingStore) GetDocuments(ctx context.Context, ids []string) ([]store.Document, error) {
	s.read += len(ids)
	return s.Store.GetDocuments(ctx, ids)
}

// Each stored document is read and decoded once; one kept by keep (an
// upload) is never read; one that does not decode maps to the zero value,
// logged; an id not stored is absent.
func TestDecodedDocs(t *testing.T) {
	ctx := context.Background()
	st := &readCountingStore{Store: storetest.Memory()}
	id := map[string]string{}
	for _, body := range []string{"good-1", "good-2", "bad"} {
		sum := sha256.Sum256([]byte(body))
		id[body] = hex.EncodeToString(sum[:])
		if _, err := st.PutDocument(ctx, &store.Document{ID: id[body], Kind: store.KindPlan, Body: []byte(body), ReceivedAt: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	decode := func(b []byte) (*string, error) {
		if !bytes.HasPrefix(b, []byte("good")) {
			return nil, errors.New("not good")
		}
		s := string(b)
		return &s, nil
	}
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	c := decodedDocs[*string]{what: "plan"}
	uploaded := "kept"
	c.keep("up", &uploaded)
	for round := range 2 {
		got, err := c.get(ctx, st, log, []string{id["good-1"], id["good-2"], id["bad"], "up", "absent"}, decode)
		if err != nil {
			t.Fatal(err)
		}
		if g1, g2 := got[id["good-1"]], got[id["good-2"]]; g1 == nil || *g1 != "good-1" || g2 == nil || *g2 != "good-2" || got[id["bad"]] != nil || *got["up"] != "kept" {
			t.Errorf("round %d: %v", round, got)
		}
		if _, ok := got["absent"]; ok {
			t.Errorf("round %d: an id not stored is in the answer", round)
		}
	}
	// good-1, good-2 once; bad and absent are not kept, so read each round.
	if st.read != 2+2+2 {
		t.Errorf("%d documents read from the store; want good-1 and good-2 once, bad and absent each round (6)", st.read)
	}
	if !bytes.Contains(logged.Bytes(), []byte("stored plan does not decode")) {
		t.Errorf("the bad body was not logged: %s", logged.String())
	}
}
