package server

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// FieldError names one bad field of a request and what is wrong with it.
type FieldError struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

// apiError is the body of every error answer:
// {"error": {"code", "message", "fields": [{"field","problem"}]}}.
type apiError struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code    string       `json:"code"`
	Message string       `json:"message"`
	Fields  []FieldError `json:"fields,omitempty"`
}

func writeError(w http.ResponseWriter, status int, code, msg string, fields []FieldError) {
	writeJSON(w, status, apiError{errorBody{Code: code, Message: msg, Fields: fields}})
}

// badRequest answers 400 with field-level problems.
func badRequest(w http.ResponseWriter, fields ...FieldError) {
	msg := "invalid request"
	if len(fields) > 0 {
		msg = fields[0].Field + ": " + fields[0].Problem
	}
	writeError(w, http.StatusBadRequest, "invalid", msg, fields)
}

// writeJSON writes v as JSON; encoding/json escapes <, > and & in strings,
// so uploaded text cannot become markup in a browser that sniffs.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}

// tooLarge answers 413 for a body over limit bytes, and closes the
// connection after it (the rest of the body is never read).
func tooLarge(w http.ResponseWriter, limit int64) {
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("body over the server's limit of %d bytes (its Content-Length says more)", limit), nil)
}
