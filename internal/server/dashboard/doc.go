// Package dashboard serves the team server's web pages: an overview, the
// catalog browser, the price/performance scatter, the leaderboard of price
// per measured unit of work, the uploaded bench reports and their
// comparison, uploaded plans and spot risk. Pages are rendered on the
// server with html/template (every text escaped), their charts are the
// render package's SVG (the same code as the CLI's --chart and --report),
// and they need no script: a strict Content-Security-Policy forbids any.
//
// Pages are cached. Those that depend only on their URL, the catalog and
// the day (the catalog browser, spot risk, a plan: a document never
// changes) are kept for the day. Those built from the store (the overview,
// the reports, a report, the comparison, the leaderboard, price/performance)
// are kept, final bytes and headers with the CSP's hashes, by method, path
// and sorted query, until a document of a kind the page reads is uploaded
// (the server calls Handler.InvalidateKind after each upload that created a
// document: a bench report makes the overview, the report list, the
// leaderboard and price/performance stale, a plan the overview and the plan
// list, an agent summary the overview and the agent list; a page of one
// report or a comparison reads only documents that never change), until
// Handler.Invalidate is called, or until Config.CacheTTL
// (DefaultCacheTTL, 2 s) has passed: with several server replicas on one
// PostgreSQL, another replica's upload shows within that time plus one
// render (a page past its TTL is served once more while a background
// render refreshes it). Concurrent requests for a page not cached render it
// once; the cache is bounded.
//
// The package does not import internal/server: the server mounts New's
// handler under "/".
package dashboard
