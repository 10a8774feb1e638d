package tencentcvm

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// ItemPrice is the CVM API's price object (InstancePrice, BandwidthPrice,
// InstanceTypeQuotaItem.Price), in yuan. A field the answer leaves out or
// sets to null is not Valid.
//
// The API's discounts are percent PAID, not percent off: Discount 20.0 is
// "2折", paying 20% of the original price (the SDK's field docs: "折扣，如
// 20.0代表2折"; the documented InquiryPriceRunInstances example pays
// DiscountPrice 1804.9 of OriginalPrice 8884.5 with Discount 20).
type ItemPrice struct {
	// Pay-as-you-go and spot, per ChargeUnit: UnitPrice is the original
	// price, UnitPriceDiscount what the account pays. Where the Second and
	// Third steps are given, UnitPrice is for the first 96 hours, the second
	// step for hours 96–360 and the third beyond.
	UnitPrice                   decimal.NullDecimal
	UnitPriceDiscount           decimal.NullDecimal
	UnitPriceSecondStep         decimal.NullDecimal
	UnitPriceDiscountSecondStep decimal.NullDecimal
	UnitPriceThirdStep          decimal.NullDecimal
	UnitPriceDiscountThirdStep  decimal.NullDecimal
	ChargeUnit                  string // HOUR (instances, bandwidth by hour) or GB (traffic)
	// Prepaid totals: for the period asked (InquiryPriceRunInstances) or for
	// one month (DescribeZoneInstanceConfigInfos, whose documented example
	// has OriginalPriceOneYear 708 = 12 × OriginalPrice 59).
	OriginalPrice decimal.NullDecimal
	DiscountPrice decimal.NullDecimal
	Discount      decimal.NullDecimal // percent paid
	// Prepaid totals for one and three years, with their own discounts.
	OriginalPriceOneYear   decimal.NullDecimal
	DiscountPriceOneYear   decimal.NullDecimal
	DiscountOneYear        decimal.NullDecimal
	OriginalPriceThreeYear decimal.NullDecimal
	DiscountPriceThreeYear decimal.NullDecimal
	DiscountThreeYear      decimal.NullDecimal
	// OriginalInstanceTypePrice is the instance type's own original price
	// (InquiryPriceRunInstances; the other prices include disks asked for).
	OriginalInstanceTypePrice decimal.NullDecimal
}

// hundred is 100 percent.
var hundred = decimal.NewFromInt(100)

// discountSlack is how many percentage points the discount a price pair
// implies may differ from the stated Discount: the documented examples state
// whole percents (20, 21) of prices that include disks discounted apart
// (1804.9 / 8884.5 = 20.3%, 3.33 / 16.09 = 20.7%). Reading Discount as percent
// off instead would miss by 60 points there.
var discountSlack = decimal.NewFromInt(2)

// maxAmount bounds a price or discount: no CVM price comes near a
// trillion yuan.
var maxAmount = decimal.New(1, 12)

// inRange refuses a number too large, or with more digits or a larger
// exponent than any price has, before any arithmetic: a JSON number such as
// 1e-40000000 decodes at once but takes seconds to multiply.
func inRange(name string, d decimal.NullDecimal) error {
	if !d.Valid {
		return nil
	}
	if e := d.Decimal.Exponent(); e < -20 || e > 20 || d.Decimal.Coefficient().BitLen() > 128 {
		return fmt.Errorf("%s out of range (more than 38 digits, or an exponent beyond ±20)", name)
	}
	if d.Decimal.Abs().GreaterThan(maxAmount) {
		return fmt.Errorf("%s %s above %s", name, d.Decimal, maxAmount)
	}
	return nil
}

// paid returns what the account pays, from a discounted price, an original
// price and the percent paid: the discounted price where the answer gives a
// positive one; else original × discount / 100. ok is false where the
// answer gives neither (zeros are how the API says "not given": the
// documented examples fill every field it does not price with 0). An error
// says the row cannot be used: a negative amount, a discount outside
// (0, 100], or a discounted price that contradicts original × discount.
func paid(discounted, original, discount decimal.NullDecimal) (decimal.Decimal, bool, error) {
	for _, v := range []struct {
		name string
		d    decimal.NullDecimal
	}{{"discounted price", discounted}, {"original price", original}, {"discount", discount}} {
		if err := inRange(v.name, v.d); err != nil {
			return decimal.Zero, false, err
		}
		if v.d.Valid && v.d.Decimal.IsNegative() {
			return decimal.Zero, false, fmt.Errorf("negative %s %s", v.name, v.d.Decimal)
		}
	}
	hasDisc := discount.Valid && discount.Decimal.IsPositive()
	if hasDisc && discount.Decimal.GreaterThan(hundred) {
		return decimal.Zero, false, fmt.Errorf("discount %s%% paid is above 100", discount.Decimal)
	}
	hasOrig := original.Valid && original.Decimal.IsPositive()
	if discounted.Valid && discounted.Decimal.IsPositive() {
		if hasOrig && hasDisc {
			implied := discounted.Decimal.Mul(hundred).Div(original.Decimal)
			if implied.Sub(discount.Decimal).Abs().GreaterThan(discountSlack) {
				return decimal.Zero, false, fmt.Errorf("discounted price %s is %s%% of original %s, but Discount says %s%% paid",
					discounted.Decimal, implied.Round(1), original.Decimal, discount.Decimal)
			}
		}
		return discounted.Decimal, true, nil
	}
	if hasOrig && hasDisc {
		return original.Decimal.Mul(discount.Decimal).Div(hundred), true, nil
	}
	return decimal.Zero, false, nil
}

// Hourly is the pay-as-you-go (or spot) price per hour the account pays for
// the first hours (the first step where the answer gives steps). ok is false
// where the answer prices nothing hourly.
func (p ItemPrice) Hourly() (decimal.Decimal, bool, error) {
	v, ok, err := paid(p.UnitPriceDiscount, p.UnitPrice, p.Discount)
	if err != nil || !ok {
		return v, ok, err
	}
	if p.ChargeUnit != "HOUR" {
		return decimal.Zero, false, fmt.Errorf("charge unit %q; want HOUR", p.ChargeUnit)
	}
	return v, true, nil
}

// Prepaid is the prepaid total the account pays for the base period (one
// month in DescribeZoneInstanceConfigInfos, the asked period in
// InquiryPriceRunInstances).
func (p ItemPrice) Prepaid() (decimal.Decimal, bool, error) {
	return paid(p.DiscountPrice, p.OriginalPrice, p.Discount)
}

// PrepaidYears is the prepaid total the account pays for one or three years.
func (p ItemPrice) PrepaidYears(years int) (decimal.Decimal, bool, error) {
	switch years {
	case 1:
		return paid(p.DiscountPriceOneYear, p.OriginalPriceOneYear, p.DiscountOneYear)
	case 3:
		return paid(p.DiscountPriceThreeYear, p.OriginalPriceThreeYear, p.DiscountThreeYear)
	}
	return decimal.Zero, false, fmt.Errorf("prepaid for %d years: the API prices 1 and 3", years)
}
