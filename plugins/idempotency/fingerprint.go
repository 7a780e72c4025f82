package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"

	"github.com/burrow-go/burrow/httpx"
)

// fingerprint hashes what makes two requests the same request: method,
// path and query, body. It reads the body as the route's parser reads
// it, through SetBodyReader, so that the body is read once.
type fingerprint struct {
	h   hash.Hash
	r   io.Reader // the body, as it was before the fingerprint read it
	eof bool      // r is read to its end
	sum string
}

func newFingerprint(req *httpx.Request) *fingerprint {
	f := &fingerprint{h: sha256.New(), r: req.BodyReader()}
	if f.r == nil {
		f.r = http.NoBody
	}
	io.WriteString(f.h, req.Method())
	f.h.Write([]byte{0})
	io.WriteString(f.h, req.URL().RequestURI())
	f.h.Write([]byte{0})
	return f
}

// Read reads the body, hashing what it reads.
func (f *fingerprint) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.h.Write(p[:n])
	if errors.Is(err, io.EOF) {
		f.eof = true
	}
	return n, err
}

// finish hashes what the route left unread of the body (a route whose
// handler reads the body itself), at most limit bytes, and hands it on
// to the handler.
func (f *fingerprint) finish(req *httpx.Request, limit int64) error {
	if !f.eof {
		rest, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return err
		}
		if int64(len(rest)) > limit {
			return httpx.NewError(http.StatusRequestEntityTooLarge, "FST_ERR_CTP_BODY_TOO_LARGE",
				"the body of a request with an Idempotency-Key is too large")
		}
		req.SetBodyReader(bytes.NewReader(rest))
		req.Raw().Body = io.NopCloser(bytes.NewReader(rest))
	}
	f.sum = hex.EncodeToString(f.h.Sum(nil))
	return nil
}

// String is the fingerprint, once finished.
func (f *fingerprint) String() string { return f.sum }
