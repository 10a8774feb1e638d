// Package dashboard serves the team server's web pages: an overview, the
// catalog browser, the price/performance scatter, the leaderboard of price
// per measured unit of work, the uploaded bench reports and their
// comparison, uploaded plans and spot risk. Pages are rendered on the
// server with html/template (every text escaped), their charts are the
// render package's SVG (the same code as the CLI's --chart and --report),
// and they need no script: a strict Content-Security-Policy forbids any.
//
// The package does not import internal/server: the server mounts New's
// handler under "/".
package dashboard
