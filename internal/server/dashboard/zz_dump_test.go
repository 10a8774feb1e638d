package dashboard

import (
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	f := newFixture(t)
	for name, p := range map[string]string{"plan": "/plans/" + f.plan, "lb": "/leaderboard", "cat": "/catalog?gpu=H100", "rep": "/reports/" + f.onAWS} {
		_, b := get(t, f.h, p)
		os.WriteFile("/tmp/dash-"+name+".html", []byte(b), 0o644)
	}
}
