package dashboard

import (
	"context"
	"log/slog"
	"sync"

	"github.com/gpuscout/gpuscout/internal/store"
)

// decodedDocs keeps documents of one kind decoded, by document ID: a
// stored document never changes, so each is read from the store and
// decoded once, at most maxDecoded of them (then the map starts again).
type decodedDocs[T any] struct {
	mu   sync.Mutex
	m    map[string]T
	what string // "plan", "agent summary": for the log
}

// keep keeps v as id's decoded document (the server's copy of an upload,
// or one just read).
func (c *decodedDocs[T]) keep(id string, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keepLocked(id, v)
}

func (c *decodedDocs[T]) keepLocked(id string, v T) {
	if c.m == nil || len(c.m) >= maxDecoded {
		c.m = map[string]T{}
	}
	c.m[id] = v
}

// get returns the documents with the ids, decoded: those kept at once,
// the bodies of the others from st in one query, decoded by decode and
// kept. A body that does not decode is logged and maps to the zero value;
// an id not stored is absent.
func (c *decodedDocs[T]) get(ctx context.Context, st store.Store, log *slog.Logger, ids []string, decode func([]byte) (T, error)) (map[string]T, error) {
	out := make(map[string]T, len(ids))
	var missing []string
	c.mu.Lock()
	for _, id := range ids {
		if v, ok := c.m[id]; ok {
			out[id] = v
		} else {
			missing = append(missing, id)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	docs, err := st.GetDocuments(ctx, missing)
	if err != nil {
		return nil, err
	}
	read := make(map[string]T, len(docs))
	for _, doc := range docs {
		v, err := decode(doc.Body)
		if err != nil {
			log.Warn("dashboard: stored "+c.what+" does not decode", "id", doc.ID, "err", err)
			var zero T
			out[doc.ID] = zero
			continue
		}
		out[doc.ID], read[doc.ID] = v, v
	}
	c.mu.Lock()
	for id, v := range read {
		c.keepLocked(id, v)
	}
	c.mu.Unlock()
	return out, nil
}
