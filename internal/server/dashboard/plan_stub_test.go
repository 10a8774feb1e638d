package dashboard

import "testing"

func planJSON(t *testing.T) []byte { return []byte(`{"plans":[],"inputs":{}}`) }
