package catalog

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestReadCommitmentsOldHeader: a refreshed set written before the note
// column reads, without notes; a note reads back.
func TestReadCommitmentsOldHeader(t *testing.T) {
	old := strings.Join(CommitmentColumns[:len(CommitmentColumns)-1], ",") + "\n" +
		"tencent,GN8.LARGE56,ap-guangzhou,subscription,1mo,monthly,,0,0,4400,CNY,s,2021-01-01\n"
	cs, err := ReadCommitmentsCSV(strings.NewReader(old))
	if err != nil || len(cs) != 1 || cs[0].Note != "" || !cs[0].Monthly.Equal(decimal.RequireFromString("4400")) {
		t.Fatalf("old header: %+v, %v", cs, err)
	}
	var buf strings.Builder
	cs[0].Note = "3520 - 4400 CNY a month by region, priced at the upper end"
	if err := WriteCommitmentsCSV(&buf, cs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCommitmentsCSV(strings.NewReader(buf.String()))
	if err != nil || len(back) != 1 || back[0].Note != cs[0].Note {
		t.Errorf("note read back: %+v, %v", back, err)
	}
}

// TestReadCommitmentsTerms: a capacity block has the term "block" and an
// hourly price; every other commitment a term of whole months.
func TestReadCommitmentsTerms(t *testing.T) {
	head := strings.Join(CommitmentColumns, ",") + "\n"
	for _, tc := range []struct {
		name, row, want string
	}{
		{"capacity block", "aws,p5.48xlarge,us-east-1,capacity-block,block,all-upfront,,0,41.528,0,USD,s,2026-07-22,", ""},
		{"reserved 1y", "aws,p5.48xlarge,us-east-1,reserved,1y,no-upfront,standard,0,30,0,USD,s,2026-07-22,", ""},
		{"block with a term of months", "aws,p5.48xlarge,us-east-1,capacity-block,1y,all-upfront,,0,41.528,0,USD,s,2026-07-22,", `a capacity block has term "block"`},
		{"block without a price", "aws,p5.48xlarge,us-east-1,capacity-block,block,all-upfront,,0,0,0,USD,s,2026-07-22,", "a positive hourly price"},
		{"reserved for a block", "aws,p5.48xlarge,us-east-1,reserved,block,no-upfront,standard,0,30,0,USD,s,2026-07-22,", `line 2: term "block"; want 1y, 3y or Nmo`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := ReadCommitmentsCSV(strings.NewReader(head + tc.row + "\n"))
			switch {
			case tc.want == "" && (err != nil || len(cs) != 1):
				t.Errorf("ReadCommitmentsCSV = %v, %v; want one commitment", cs, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("ReadCommitmentsCSV error %v; want %q", err, tc.want)
			}
			if err == nil && cs[0].IsScheme() != (cs[0].Model != ModelCapacityBlock) {
				t.Errorf("IsScheme() = %v for %s", cs[0].IsScheme(), cs[0].Model)
			}
		})
	}
}

// TestPaidAheadAndOfferKey: subscriptions (包年包月) are prepaid on every
// provider, other models where the scheme bills in advance (AWS RIs); a
// one-month term paid ahead keys monthly and all-upfront as one product.
func TestPaidAheadAndOfferKey(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		provider, model string
		want            bool
	}{
		{"tencent", ModelSubscription, true},
		{"alibaba", ModelSubscription, true},
		{"no-such-provider", ModelSubscription, true},
		{"aws", ModelReserved, true},
		{"gcp", ModelCommitment, false},
		{"tencent", ModelReserved, false},
		{"no-such-provider", ModelReserved, false},
	} {
		if got := c.Provider(x.provider).PaidAhead(x.model); got != x.want {
			t.Errorf("%s %s paid ahead: %v, want %v", x.provider, x.model, got, x.want)
		}
	}
	tc := c.Provider("tencent")
	if a, b := tc.OfferKey(ModelSubscription, "1mo", PayMonthly, ""), tc.OfferKey(ModelSubscription, "1mo", PayAll, ""); a != b {
		t.Errorf("tencent 1mo monthly %q and all-upfront %q differ", a, b)
	}
	if a, b := tc.OfferKey(ModelSubscription, "1y", PayMonthly, ""), tc.OfferKey(ModelSubscription, "1y", PayAll, ""); a == b {
		t.Errorf("tencent 1y monthly instalments and all-upfront share the key %q", a)
	}
	// A one-month term paid at the month's end is not an upfront payment.
	gcp := c.Provider("gcp")
	if a, b := gcp.OfferKey(ModelCommitment, "1mo", PayMonthly, ""), gcp.OfferKey(ModelCommitment, "1mo", PayAll, ""); a == b {
		t.Errorf("gcp 1mo monthly (in arrears) and all-upfront share the key %q", a)
	}
}
