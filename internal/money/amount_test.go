package money

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestParseAmount(t *testing.T) {
	for _, tc := range []struct {
		in      string
		def     Currency
		want    string // value and currency, or "" for an error
		errWant string
	}{
		{"60000USD", "", "60000 USD", ""},
		{"60000 usd", "", "60000 USD", ""},
		{"60,000USD", "", "60000 USD", ""},
		{"5e4CNY", "", "50000 CNY", ""},
		{"5EUR", "", "5 EUR", ""},
		{"12.5", USD, "12.5 USD", ""},
		{"0USD", "", "0 USD", ""},
		{"12.5", "", "12.5 ", ""},
		{"-5USD", "", "", "amount -5 USD is out of range: allowed 0 to 1,000,000,000,000 USD"},
		{"1e300USD", "", "", "out of range"},
		{"USD", "", "", "want a number"},
		{"5XX1", "", "", "ISO 4217"},
		{"", USD, "", "want a number"},
	} {
		got, err := ParseAmount(tc.in, tc.def)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), tc.errWant) {
				t.Errorf("ParseAmount(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.errWant)
			}
			continue
		}
		if err != nil || got.Value.String()+" "+string(got.Currency) != tc.want {
			t.Errorf("ParseAmount(%q) = %v %s, %v; want %s", tc.in, got.Value, got.Currency, err, tc.want)
		}
	}
}

func TestFormatting(t *testing.T) {
	d := decimal.RequireFromString
	for _, tc := range []struct{ got, want string }{
		{Format(d("12345.678"), USD), "12,345.68 USD"},
		{Format(d("-1234567.1"), CNY), "-1,234,567.10 CNY"},
		{Format(d("0.004"), ""), "0.00"},
		{Grouped(d("999.5"), 0), "1,000"},
		// Every digit of a price as its source writes it (AWS: 10 decimals),
		// and of the catalog's derived prices (15 significant digits).
		{Plain(d("21.9576420000")), "21.957642"},
		{Plain(d("21.9576421234")), "21.9576421234"},
		{Plain(d("9.5326")), "9.5326"},
		{Plain(d("0.000123")), "0.000123"},
		{Plain(d("1234567.5")), "1234567.5"},
		{Plain(d("88.4899999025753")), "88.4899999025753"},
		{string(*Number(d("0.1234567"))), "0.1234567"},
		{Plain(d("-3688.883856")), "-3688.883856"},
		// A quotient or float noise goes on: rounded to 15 significant digits.
		{Plain(d("1").Div(d("3"))), "0.333333333333333"},
		{Plain(d("88.4899999025753").Div(d("8"))), "11.0612499878219"},
		{Plain(d("0.0000123456789012345678")), "0.0000123456789012346"},
		{Plain(d("654.33773159999993")), "654.3377316"},
		{Plain(d("12345678901234567.5")), "12345678901234568"},
		{New(d("7"), EUR).String(), "7.00 EUR"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if NullNumber(decimal.NullDecimal{}) != nil {
		t.Error("NullNumber of an invalid value is not nil")
	}
}

func TestAmountArithmetic(t *testing.T) {
	a := New(decimal.NewFromInt(3), USD)
	b, err := a.Add(New(decimal.NewFromInt(4), USD))
	if err != nil || !b.Value.Equal(decimal.NewFromInt(7)) {
		t.Fatalf("3+4 USD = %v, %v", b, err)
	}
	if _, err := a.Add(New(decimal.NewFromInt(4), CNY)); err == nil {
		t.Fatal("USD + CNY did not fail")
	}
	c, err := New(decimal.RequireFromString("7.1843"), CNY).In(USD, DefaultFX())
	if err != nil || !c.Value.Equal(decimal.NewFromInt(1)) || c.Currency != USD {
		t.Fatalf("7.1843 CNY in USD = %v, %v; want 1 USD", c, err)
	}
}

func TestFXBounds(t *testing.T) {
	for _, in := range []string{"CNY=1e309", "CNY=1e-30", "CNY=1000"} {
		if _, _, err := ParseOverride(in); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("ParseOverride(%q) = %v; want an out-of-range error", in, err)
		}
	}
	if _, _, err := ParseOverride("CNY=0.138"); err != nil {
		t.Errorf("ParseOverride(CNY=0.138) = %v", err)
	}
	if err := DefaultFX().SetUSDValue(CNY, decimal.New(1, 300), "x"); err == nil {
		t.Error("SetUSDValue accepted 1e300 USD per CNY")
	}
}

// A rate written the other way round (CNY per USD) is refused with the fix.
func TestCheckDrift(t *testing.T) {
	f := DefaultFX()
	if err := f.CheckDrift(CNY, decimal.RequireFromString("0.1380")); err != nil {
		t.Errorf("0.138 USD per CNY refused: %v", err)
	}
	err := f.CheckDrift(CNY, decimal.RequireFromString("7.18"))
	if err == nil || !strings.Contains(err.Error(), "that looks like CNY per USD; write CNY=0.139276") {
		t.Errorf("7.18 USD per CNY: %v", err)
	}
	if err := f.CheckDrift(Currency("JPY"), decimal.RequireFromString("50")); err != nil {
		t.Errorf("a currency without a built-in rate is not checked: %v", err)
	}
}

// Numbers with absurd exponents are refused before any arithmetic (comparing
// 0.13e-9999999 with a bound took 2 s), and ordinary ones pass. The time is
// the fastest of five tries, which a busy machine's scheduling cannot inflate.
func TestParseDecimalBounds(t *testing.T) {
	for _, s := range []string{"0.13e-9999999", "1e999999", "1e31", "1e-60"} {
		fastest := time.Duration(math.MaxInt64)
		for range 5 {
			start := time.Now()
			if _, err := ParseDecimal(s); !errors.Is(err, ErrOutOfRange) {
				t.Errorf("ParseDecimal(%q) = %v, want out of range", s, err)
			}
			fastest = min(fastest, time.Since(start))
		}
		if fastest > 50*time.Millisecond {
			t.Errorf("ParseDecimal(%q) took %v at best", s, fastest)
		}
	}
	for _, s := range []string{"0", "0.000001", "21.957642", "1e12", "123456789012345678901234567890"} {
		if _, err := ParseDecimal(s); err != nil {
			t.Errorf("ParseDecimal(%q) = %v", s, err)
		}
	}
}

func TestSignificantDigits(t *testing.T) {
	for s, want := range map[string]int{"0": 0, "-0.0012": 2, "120.5": 4, "1000": 4, "0.10": 2, "-12345678901234567890": 20} {
		if got := significantDigits(s); got != want {
			t.Errorf("significantDigits(%q) = %d, want %d", s, got, want)
		}
	}
}
