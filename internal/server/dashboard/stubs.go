package dashboard

import "net/http"

func (d *dash) spotPage(r *http.Request) (*page, error) { return &page{Title: "Spot risk"}, nil }
