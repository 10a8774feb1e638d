package money

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestParseCurrency(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Currency
		ok   bool
	}{
		{"usd", USD, true}, {" CNY ", CNY, true}, {"RMB", CNY, true}, {"人民币", CNY, true},
		{"EURO", "", false}, {"U1D", "", false}, {"", "", false},
	} {
		got, err := ParseCurrency(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseCurrency(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestConvertDefault(t *testing.T) {
	f := DefaultFX()
	// 7.1843 CNY is one US dollar by the default fixing.
	got, err := f.Convert(decimal.RequireFromString("7.1843"), CNY, USD)
	if err != nil || !got.Equal(decimal.NewFromInt(1)) {
		t.Fatalf("7.1843 CNY -> USD = %s, %v; want 1", got, err)
	}
	got, _ = f.Convert(decimal.NewFromInt(10), USD, CNY)
	if !got.Equal(decimal.RequireFromString("71.843")) {
		t.Errorf("10 USD -> CNY = %s, want 71.843", got)
	}
	// EUR->CNY must reproduce the EUR-CNY fixing 7.6004.
	got, _ = f.Convert(decimal.NewFromInt(1), EUR, CNY)
	if !got.Round(4).Equal(decimal.RequireFromString("7.6004")) {
		t.Errorf("1 EUR -> CNY = %s, want 7.6004", got)
	}
}

func TestOverride(t *testing.T) {
	f := DefaultFX().Clone()
	c, r, err := ParseOverride("CNY=0.138")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SetUSDValue(c, r, "--fx"); err != nil {
		t.Fatal(err)
	}
	got, _ := f.Convert(decimal.NewFromInt(100), CNY, USD)
	if !got.Round(10).Equal(decimal.RequireFromString("13.8")) {
		t.Errorf("100 CNY at 0.138 = %s USD, want 13.8", got)
	}
	// The defaults are untouched.
	d, _ := DefaultFX().Convert(decimal.NewFromInt(100), CNY, USD)
	if d.Equal(got) {
		t.Error("override leaked into DefaultFX")
	}
	for _, bad := range []string{"CNY", "CNY=-1", "CNY=abc", "XX=1", "CNY=0"} {
		if _, _, err := ParseOverride(bad); err == nil {
			t.Errorf("ParseOverride(%q) accepted", bad)
		}
	}
	if _, err := f.Convert(decimal.NewFromInt(1), "JPY", USD); err == nil {
		t.Error("JPY converted without a rate")
	}
}
