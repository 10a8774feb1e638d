// Package tencentdocs prices Tencent Cloud's GPU instances from Tencent's
// own published price pages, kept in shared/data/price-sources:
//
//   - the China site's GPU price overview (价格总览), a transcription of
//     tencentyun/qcloud-documents at one commit: pay-as-you-go (按量计费)
//     CNY per hour and 包年包月 CNY per month, for mainland China, some as
//     ranges where the price differs by region (ParseList);
//   - the international site's CVM Linux price page: USD per hour, one
//     section per region (ParseCVMPage);
//   - the international site's GPU price overview: USD per hour, for one
//     zone (Guangzhou Zone 3) (ParseOverview).
//
// The parsers are pure functions over an io.Reader. Feed.Read joins them
// into one offering per instance type and region (and zone), by one rule
// (ChinaListPrices): in a mainland China region, the China site's list
// prices every type it lists, in each mainland region that Tencent's
// instance documentation says sells the type or a page prices it in: the
// pay-as-you-go price per hour and the 包年包月 price (a one-month
// subscription commitment) of the same row, both at the same end of a
// range (Quote.Priced: the upper end), so the two compare on one list; the
// international pages' USD prices for those regions are set aside. Outside
// mainland China, and for a mainland type the list does not give, a
// region's own price from the international pages prices it (the later
// page first), with no 包年包月 price. Offers keeps both ends of every
// range and the quotes set aside. The feed yields prices only; the catalog
// build joins them with the curated specs (data/curated/tencent.yaml).
package tencentdocs
