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

// TestCheckIDs: the IDs looked up are the valid ones, each once, in their
// first order; more than MaxLimit is an error.
func TestCheckIDs(t *testing.T) {
	a, b := DocumentID([]byte("a")), DocumentID([]byte("b"))
	got, err := CheckIDs([]string{b, "x", a, b, strings.ToUpper(a), ""})
	if err != nil || strings.Join(got, ",") != b+","+a {
		t.Errorf("CheckIDs = %v, %v; want [b a]", got, err)
	}
	if _, err := CheckIDs(make([]string, MaxLimit+1)); err == nil {
		t.Errorf("CheckIDs(%d ids): no error", MaxLimit+1)
	}
	docs := []Document{{ID: a}, {ID: b}}
	if got := InIDOrder([]string{b, DocumentID(nil), a}, docs); len(got) != 2 || got[0].ID != b || got[1].ID != a {
		t.Errorf("InIDOrder = %v; want b, a", got)
	}
}
