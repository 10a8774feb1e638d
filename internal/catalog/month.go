package catalog

// HoursPerMonth is the month every provider bills by and AWS's Spot Advisor
// counts its monthly interruption bands in: 8760 hours a year / 12. It is the
// one definition; cost and spot use it.
const HoursPerMonth = 730
