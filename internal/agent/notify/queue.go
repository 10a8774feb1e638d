package notify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/renameio/v2"
)

// queue keeps pending notifications on disk, one JSON file each, written
// to a temporary name, synced and renamed, so a crash leaves either the
// whole file or none. Delivered keys leave an empty marker in sent/, so the
// same notification is never queued twice, also after a restart.
type queue struct {
	dir     string // <dir>/queue and <dir>/sent
	max     int
	maxSent int
}

// item is one pending notification.
type item struct {
	Key      string    `json:"key"`
	Receiver string    `json:"receiver"`
	Created  time.Time `json:"created"`
	// Seq orders the queue: increasing, also across restarts.
	Seq   int64 `json:"seq"`
	Alert Alert `json:"alert"`
	file  string
}

func openQueue(dir string, max, maxSent int) (*queue, error) {
	q := &queue{dir: dir, max: max, maxSent: maxSent}
	for _, d := range []string{q.pending(), q.sentDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("notify queue: %v", err)
		}
	}
	// Temporary files of a write that crashed are not notifications.
	tmp, _ := filepath.Glob(filepath.Join(q.pending(), ".tmp-*"))
	for _, f := range tmp {
		os.Remove(f)
	}
	return q, nil
}

func (q *queue) pending() string { return filepath.Join(q.dir, "queue") }
func (q *queue) sentDir() string { return filepath.Join(q.dir, "sent") }

func fileName(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:16])
}

// known reports whether key is queued or was delivered.
func (q *queue) known(key string) bool {
	n := fileName(key)
	for _, p := range []string{filepath.Join(q.pending(), n+".json"), filepath.Join(q.sentDir(), n)} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// add writes it atomically unless its key is known. When the queue is full
// the oldest notifications are dropped; it returns how many.
func (q *queue) add(it item) (added bool, dropped int, err error) {
	if q.known(it.Key) {
		return false, 0, nil
	}
	// Counting the names is enough unless the queue is full; then the
	// oldest (by Seq) go.
	ents, err := os.ReadDir(q.pending())
	if err != nil {
		return false, 0, fmt.Errorf("notify queue: %v", err)
	}
	if len(ents) >= q.max {
		items, err := q.list()
		if err != nil {
			return false, 0, err
		}
		for i := 0; len(items)-i >= q.max; i++ {
			if os.Remove(items[i].file) == nil {
				dropped++
			}
		}
	}
	b, err := json.Marshal(it)
	if err != nil {
		return false, dropped, err
	}
	return true, dropped, writeAtomic(filepath.Join(q.pending(), fileName(it.Key)+".json"), b)
}

// list returns the pending notifications, oldest first. An unreadable file
// is moved aside (name.bad) rather than retried for ever.
func (q *queue) list() ([]item, error) {
	ents, err := os.ReadDir(q.pending())
	if err != nil {
		return nil, fmt.Errorf("notify queue: %v", err)
	}
	var items []item
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(q.pending(), e.Name())
		b, err := os.ReadFile(p)
		var it item
		if err == nil {
			err = json.Unmarshal(b, &it)
		}
		if err != nil || it.Key == "" {
			if !errors.Is(err, fs.ErrNotExist) {
				os.Rename(p, p+".bad")
			}
			continue
		}
		it.file = p
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Seq < items[j].Seq })
	return items, nil
}

// done marks it delivered (the marker first, so a crash in between leaves
// a delivered key that is not sent again) and removes it from the queue.
func (q *queue) done(it item) error {
	if err := q.markSent(it.Key); err != nil {
		return err
	}
	return os.Remove(it.file)
}

// markSent records key as delivered, keeping at most maxSent markers.
func (q *queue) markSent(key string) error {
	if err := writeAtomic(filepath.Join(q.sentDir(), fileName(key)), nil); err != nil {
		return err
	}
	ents, err := os.ReadDir(q.sentDir())
	if err != nil || len(ents) <= q.maxSent {
		return err
	}
	type marker struct {
		name string
		mod  time.Time
	}
	var ms []marker
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			ms = append(ms, marker{e.Name(), info.ModTime()})
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].mod.Before(ms[j].mod) })
	for _, m := range ms[:len(ms)-q.maxSent] {
		os.Remove(filepath.Join(q.sentDir(), m.name))
	}
	return nil
}

// writeAtomic writes path through a synced temporary file and a rename
// (renameio): a crash leaves the old file or the new, never half of one.
func writeAtomic(path string, b []byte) error {
	if err := renameio.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("notify queue: %v", err)
	}
	return nil
}
