package app

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// Inject serves r in process, without a socket, and returns the response
// as a client would see it: status, headers (with Content-Length) and
// body, which is empty for HEAD and for statuses that carry none. It boots
// the server first if needed. Build r with httptest.NewRequest.
//
// Inject does not panic: a response a handler aborts with
// panic(http.ErrAbortHandler), which drops a real connection, is an error
// wrapping http.ErrAbortHandler.
func (s *Server) Inject(r *http.Request) (*http.Response, error) {
	if state(s.a.state.Load()) != stateDraining {
		if err := s.Ready(); err != nil {
			return nil, err
		}
	}
	if r.RequestURI == "" {
		r.RequestURI = r.URL.RequestURI()
	}
	rec := &recorder{header: http.Header{}, req: r}
	if err := s.serveRecovered(rec, r); err != nil {
		return nil, err
	}
	return rec.result(), nil
}

// serveRecovered serves r, returning what net/http would recover (and
// answer by dropping the connection) as an error.
func (s *Server) serveRecovered(w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				err = fmt.Errorf("the handler aborted the response: %w", http.ErrAbortHandler)
				return
			}
			err = fmt.Errorf("serving the request failed: %w", errorOf(p))
		}
	}()
	s.ServeHTTP(w, r)
	return nil
}

// recorder is the in-process ResponseWriter of Inject. It mirrors what
// net/http puts on the wire for a handler that returned: a default 200,
// and an exact Content-Length when the handler set none.
type recorder struct {
	header      http.Header
	req         *http.Request
	status      int
	wroteHeader bool
	body        bytes.Buffer
	length      int
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(status int) {
	if w.wroteHeader {
		return
	}
	w.status, w.wroteHeader = status, true
}

func (w *recorder) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.length += len(p)
	if w.req.Method != http.MethodHead && bodyAllowedStatus(w.status) {
		w.body.Write(p)
	}
	return len(p), nil
}

func (w *recorder) result() *http.Response {
	w.WriteHeader(http.StatusOK)
	h := w.header.Clone()
	if h.Get("Content-Length") == "" && bodyAllowedStatus(w.status) {
		h.Set("Content-Length", strconv.Itoa(w.length))
	}
	if h.Get("Content-Type") == "" && w.length > 0 {
		h.Set("Content-Type", http.DetectContentType(w.body.Bytes()))
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.length),
		Request:       w.req,
	}
}

func bodyAllowedStatus(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}
