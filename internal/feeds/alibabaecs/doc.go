// Package alibabaecs imports Alibaba Cloud ECS prices from the ECS API
// (version 2014-05-26, RPC style) with the user's own AccessKey:
// DescribePrice for pay-as-you-go (PostPaid, per hour) and subscription
// (PrePaid: 1 month, 1 year, 3 years, paid upfront) prices of each GPU
// instance type and region, and DescribeSpotPriceHistory for the spot price
// of each zone. Requests are signed with the V3 signature (ACS3-HMAC-SHA256)
// the API documentation asks for, or the older RPC signature (HMAC-SHA1,
// SignatureVersion 1.0); both are tested byte-identical against the
// documentation's worked examples. Offline, it reads the same responses
// from files (formats alibaba-describeprice and alibaba-spothistory).
package alibabaecs
