// Package awsprices reads AWS's own price feeds, each format in one place:
// the Price List bulk offer file and the Pricing API's GetProducts
// responses (on-demand and Reserved Instance prices, keeping the upfront
// fee and the hourly fee apart), the Savings Plans price file, Spot
// Advisor's interruption bands and EC2 DescribeSpotPriceHistory. It offers
// them as feeds.Sources over shared/data (the catalog build) and as a
// feeds.Importer: offline files (`catalog refresh --from-file F --format
// aws-offer`) and live fetches signed with the user's own credentials.
package awsprices
