package cli

import (
	"strings"
	"testing"
)

// TestTencentSubscriptionAgainstPayAsYouGo: the article's comparison on
// Tencent's own China-site prices (tencent-qcloud-gpu-prices@8ec07296, row
// GT4.41XLARGE948: 114,016 CNY a month 包年包月, 237.51 CNY an hour):
// 12 × 114,016 = 1,368,192 against 8,760 × 237.51 = 2,080,587.60, break-even
// 114,016 / 237.51 = 480 h a month. 包年包月 is prepaid: the 12 payments
// fall at months 0..11, the first upfront; and a one-month term has one
// product, so no unpriced "1mo all-upfront" beside the priced monthly.
func TestTencentSubscriptionAgainstPayAsYouGo(t *testing.T) {
	out, errOut, code := run(t, "cost", "--offering", "tencent/GT4.41XLARGE948/ap-beijing", "--hours-per-month", "730", "--horizon", "1y", "--currency", "CNY", "-o", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"1,tencent,GT4.41XLARGE948,ap-beijing,subscription,1mo,monthly,1368192,114016,",
		"2,tencent,GT4.41XLARGE948,ap-beijing,on-demand,-,-,2080587.6,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("cost csv lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = run(t, "cost", "--offering", "tencent/GT4.41XLARGE948/ap-beijing", "--hours-per-month", "730", "--horizon", "1y", "--currency", "CNY")
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"114,016.00 CNY a month for 1 month, paid at its start (upfront) = 156.19 CNY/h over every term hour, used or not (tencent-qcloud-gpu-prices@8ec07296, 2021 (day unknown))",
		"1mo monthly wins above 480 h/month",
		"tencent: reserved 1y, reserved 3y, subscription 1y, subscription 3y",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("cost lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "1mo all-upfront") {
		t.Errorf("an unpriced 1mo all-upfront twin beside the priced 1mo monthly:\n%s", out)
	}
	out, _, _ = run(t, "cost", "--offering", "tencent/GT4.41XLARGE948/ap-beijing", "--hours-per-month", "730", "--horizon", "1y", "--currency", "CNY", "--cashflow")
	var months []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 5 && f[1] == "subscription" {
			months = append(months, f[4]+":"+f[5])
		}
	}
	want := "0:114,016.00 1:114,016.00 2:114,016.00 3:114,016.00 4:114,016.00 5:114,016.00 6:114,016.00 7:114,016.00 8:114,016.00 9:114,016.00 10:114,016.00 11:114,016.00"
	if got := strings.Join(months, " "); got != want {
		t.Errorf("subscription cash flow %s, want %s:\n%s", got, want, out)
	}
}

// TestTencentMainlandOneList: the user trial's commands. In mainland China
// the pay-as-you-go price a 包年包月 price is compared with is the China-site
// list's own (row GN10X.2XLARGE40: 4671 - 5190 CNY a month, 16.21 - 18.04
// CNY an hour, both at the upper end), not the international site's
// 2.68 USD: break-even 5190 / 18.04 = 287.7 h a month (was 270), and
// 5190 / 730 / 18.04 = 39.4% of on-demand, 60.6% below it (was 63.1%).
// GN7.5XLARGE80 is 13.89 CNY/h (the list's 12.5 - 13.89; was 2.01 USD ×
// 7.1843 = 14.4404 CNY) and breaks even at 4000 / 13.89 = 288 h a month in
// every mainland region (was 277 - 315 h for one region-agnostic price).
func TestTencentMainlandOneList(t *testing.T) {
	out, errOut, code := run(t, "cost", "--offering", "tencent/GN10X.2XLARGE40/ap-beijing", "--hours-per-month", "730", "--horizon", "1y")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"722.41 USD a month", "(tencent-qcloud-gpu-prices@8ec07296, 2021 (day unknown)); 60.6% below on-demand 2.51 USD/h",
		"4671 - 5190 CNY a month and pay-as-you-go 16.21 - 18.04 CNY an hour", "both priced at the upper end",
		"1mo monthly wins above 288 h/month",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("cost lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(flat, "another price list") {
		t.Errorf("cost says the prices come from two lists:\n%s", out)
	}
	out, errOut, code = run(t, "cost", "--offering", "tencent/GN7.5XLARGE80/ap-guangzhou", "--currency", "CNY")
	if flat := strings.Join(strings.Fields(out), " "); code != 0 || !strings.Contains(flat, "on-demand 13.89 CNY/h") {
		t.Errorf("exit %d, %s: cost lacks on-demand 13.89 CNY/h:\n%s", code, errOut, out)
	}
	out, errOut, code = run(t, "cost", "breakeven", "--offering", "tencent/GN7.5XLARGE80", "--currency", "CNY", "-o", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	regions := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		// PROVIDER,INSTANCE,REGION,MODEL,TERM,PAYMENT,EFFECTIVE/h,ON-DEMAND/h,BREAK-EVEN h/mo,NPV BREAK-EVEN,IMPLIED RATE,CURRENCY
		f := strings.Split(l, ",")
		regions++
		if len(f) < 12 || f[7] != "13.89" || f[8] != "288" || f[11] != "CNY" {
			t.Errorf("breakeven row %q; want on-demand 13.89 CNY and break-even 288 h/month (4000 / 13.89)", l)
		}
	}
	if regions != 6 {
		t.Errorf("%d regions; want the 6 mainland regions GN7 is sold in:\n%s", regions, out)
	}
}
