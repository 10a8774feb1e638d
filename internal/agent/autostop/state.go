package autostop

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/renameio/v2"
)

// StateFile is the name of the persisted idle clock in Options.StateDir.
const StateFile = "autostop-state.json"

// state is what survives an agent restart: when the node was last active,
// under which boot and which options. SavedAt is the tick it was written
// at; Active says whether that tick was active.
type state struct {
	BootID      string    `json:"boot_id"`
	Options     string    `json:"options"`
	LastActive  time.Time `json:"last_active"`
	SavedAt     time.Time `json:"saved_at"`
	Active      bool      `json:"active"`
	StopStarted bool      `json:"stop_started,omitempty"`
}

// readBootID reads procRoot/sys/kernel/random/boot_id, a UUID the kernel
// makes anew at every boot.
func readBootID(procRoot string) (string, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, "sys", "kernel", "random", "boot_id"))
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if len(id) != 36 || strings.Count(id, "-") != 4 {
		return "", fmt.Errorf("boot_id %q: not a UUID", id)
	}
	return id, nil
}

// loadState reads the state file; a missing file is (nil, nil).
func loadState(dir string) (*state, error) {
	f, err := os.Open(filepath.Join(dir, StateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var s state
	dec := json.NewDecoder(io.LimitReader(f, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %v", f.Name(), err)
	}
	return &s, nil
}

// syncWrites makes saveState write atomically and fsync the file and its
// directory (off only in tests, which then write the file directly).
var syncWrites = true

// saveState writes the state atomically: a temporary file in the same
// directory, synced, then renamed over the old one, so a crash or power
// cut leaves the old state or the new, never half of one.
func saveState(dir string, s *state) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, StateFile)
	if !syncWrites {
		return os.WriteFile(path, append(b, '\n'), 0o600)
	}
	if err := renameio.WriteFile(path, append(b, '\n'), 0o600); err != nil { // a synced temporary file, then a rename
		return err
	}
	if d, err := os.Open(dir); err == nil { // make the rename itself durable
		d.Sync()
		d.Close()
	}
	return nil
}
