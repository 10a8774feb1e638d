package dashboard

import "net/http"

func (d *dash) pricePerf(r *http.Request) (*page, error) {
	return &page{Title: "Price/performance"}, nil
}
func (d *dash) spotPage(r *http.Request) (*page, error) { return &page{Title: "Spot risk"}, nil }
