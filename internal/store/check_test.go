package store

import (
	"strings"
	"testing"
)

// TestValidID: an ID is what DocumentID writes, 64 lower-case hex digits.
func TestValidID(t *testing.T) {
	id := DocumentID([]byte(`{"a":1}`))
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{id, true}, {strings.ToUpper(id), false}, {id[:63], false}, {id + "0", false},
		{strings.Repeat("g", 64), false}, {"", false}, {"'; DROP TABLE documents;--" + id[:38], false},
	} {
		if got := ValidID(tc.id); got != tc.want {
			t.Errorf("ValidID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
