package catalog

import (
	"errors"
	"strings"
	"testing"
)

// One provider lookup for every input: any case finds the provider; an
// unknown name says so, lists the known ones and suggests one within two edits.
func TestLookupProvider(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if p, err := c.LookupProvider(" AWS "); err != nil || p.Name != "aws" {
		t.Errorf("AWS: %v, %v", p, err)
	}
	for _, tc := range []struct{ name, suggest string }{{"awz", "aws"}, {"tencnet", "tencent"}, {"oracle", ""}} {
		_, err := c.LookupProvider(tc.name)
		var u *UnknownProviderError
		if !errors.As(err, &u) || u.Suggestion != tc.suggest || !strings.Contains(err.Error(), `"`+tc.name+`" is not a known provider`) ||
			!strings.Contains(err.Error(), "known: aws, ") {
			t.Errorf("%s: %v (suggestion %q); want %q", tc.name, err, u.Suggestion, tc.suggest)
		}
	}
}
