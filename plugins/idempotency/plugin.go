package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// Header is the request header that carries the key.
const Header = "Idempotency-Key"

// ReplayedHeader marks an answer replayed from a record.
const ReplayedHeader = "Idempotent-Replayed"

// DefaultTTL is how long a key is kept by default.
const DefaultTTL = 24 * time.Hour

// DefaultMaxBody bounds the body of a request with a key that the route
// does not read before its handler (one without a typed body), which the
// plugin reads to fingerprint it.
const DefaultMaxBody = 1 << 20

// maxKey is the longest key accepted.
const maxKey = 255

// decorator is the name of the request decorator through which the send
// hook finds the request's call.
const decorator = "idempotency"

// Option configures the plugin.
type Option func(*config)

// Identity tells whose a request is, so that two clients' identical keys
// are two keys: fn returns the authenticated identity (a user id), and
// an error refuses the request. It runs in the route's preHandler hook,
// after the context's own hooks (the authentication). Without it, every
// client shares one space of keys: set it wherever requests are
// authenticated.
func Identity(fn func(*httpx.Request) (string, error)) Option {
	return func(c *config) { c.identity, c.provide = fn, nil }
}

// IdentityOf tells whose a request is from a value of type T the route
// can see — a request value or a service, such as the authenticated
// user that the authentication provides: fn returns the identity. The
// value is taken when the route's preHandler hook runs, after the
// context's hooks.
func IdentityOf[T any](fn func(T) string) Option {
	return func(c *config) {
		c.identity = nil
		c.provide = func(s *app.Server) error {
			return s.ProvideRequest(app.Provider(func(_ context.Context, in identityIn[T]) (*call, func(bool) error, error) {
				k := &call{cfg: c, records: in.Records, req: in.Req, who: fn(in.Identity), known: true}
				return k, k.cleanup, nil
			}))
		}
	}
}

type identityIn[T any] struct {
	app.In
	Records  Records
	Req      *httpx.Request
	Identity T
}

// TTL sets how long a key is kept after its first request
// (DefaultTTL): a repeat after that runs again.
func TTL(d time.Duration) Option { return func(c *config) { c.ttl = d } }

// MaxBody bounds the body the plugin reads itself, for a route whose
// handler reads the body (DefaultMaxBody); a longer one is refused 413.
func MaxBody(n int64) Option { return func(c *config) { c.maxBody = n } }

type config struct {
	identity func(*httpx.Request) (string, error)
	// provide provides the request's call; nil for the default, which
	// takes no identity value.
	provide func(s *app.Server) error
	ttl     time.Duration
	maxBody int64
}

// Plugin returns a wrapped plugin that keeps Idempotency-Key records in
// store for the routes of its context and their descendants given
// Route. Register it where the store's inputs are visible (for SQL, the
// request's *sql.Tx: after plugins/sqldb).
func Plugin(store Store, opts ...Option) *app.Plugin {
	c := &config{ttl: DefaultTTL, maxBody: DefaultMaxBody}
	for _, o := range opts {
		o(c)
	}
	return app.Wrap(func(s *app.Server) error {
		switch {
		case store.provide == nil:
			return errors.New("the idempotency plugin needs a store: SQL, or a store package's")
		case c.ttl <= 0:
			return fmt.Errorf("idempotency TTL %v is not positive", c.ttl)
		case c.maxBody <= 0:
			return fmt.Errorf("idempotency MaxBody %d is not positive", c.maxBody)
		}
		if err := store.provide(s); err != nil {
			return err
		}
		if err := s.DecorateRequest(decorator, (*call)(nil)); err != nil {
			return err
		}
		if c.provide != nil {
			return c.provide(s)
		}
		return s.ProvideRequest(app.Provider(func(_ context.Context, in callIn) (*call, func(bool) error, error) {
			k := &call{cfg: c, records: in.Records, req: in.Req}
			return k, k.cleanup, nil
		}))
	}, app.Name("idempotency"))
}

// Route makes a route check the Idempotency-Key of its requests, with
// the plugin of its context (Ready fails when there is none). It adds
// three route-level hooks, which run after the context's: one that
// fingerprints the body as it is read (preParsing), one that claims the
// key or answers from its record (preHandler), and one that keeps the
// answer the handler sends, for the record (onSend); and it declares the
// route's answers 409 and 422 (in the error shape) for its description.
func Route() app.RouteOption {
	return joined(
		app.WithHook(app.PreParsing, fingerprintBody),
		app.WithHook(app.PreHandler, check),
		app.WithHook(app.OnSend, app.OnSendFunc(keepAnswer)),
		app.Responds(http.StatusConflict, httpx.ErrorBody{}),
		app.Responds(http.StatusUnprocessableEntity, httpx.ErrorBody{}),
	)
}

// joined is one route option of several. RouteOption is a function of a
// type only package app names; its parameter type is inferred.
func joined[O ~func(P), P any](opts ...O) O {
	return func(p P) {
		for _, o := range opts {
			o(p)
		}
	}
}

type callIn struct {
	app.In
	Records Records
	Req     *httpx.Request
}

// call is one request's dealings with its key: the request value the
// route's hooks share.
type call struct {
	cfg     *config
	records Records
	req     *httpx.Request
	rep     *httpx.Reply // set by check
	who     string       // the identity, when known (IdentityOf)
	known   bool

	fp    *fingerprint // set by fingerprintBody when the request has a key
	key   string       // the stored key: the client's, hashed with its identity
	owned bool         // the request claimed the key: its answer is to be recorded

	kept   bool // keepAnswer saw the answer
	status int
	header http.Header
	body   []byte
}

// fingerprintBody is the preParsing hook: for a request with a key, it
// hashes the body as the route reads it.
func fingerprintBody(req *httpx.Request) {
	if _, ok := req.Headers()[Header]; !ok {
		return
	}
	fp := newFingerprint(req)
	req.SetBodyReader(fp)
	_ = req.SetDecorator(decorator, &call{fp: fp})
}

type checkIn struct {
	app.In
	Call *call
	Req  *httpx.Request
	Rep  *httpx.Reply
}

// check is the preHandler hook: it claims the request's key, or answers
// from its record.
func check(ctx context.Context, in checkIn) error {
	req, k := in.Req, in.Call
	k.rep = in.Rep
	values, ok := req.Headers()[Header]
	if !ok {
		return nil
	}
	key, err := validKey(values)
	if err != nil {
		return err
	}
	id := k.who
	if !k.known && k.cfg.identity != nil {
		if id, err = k.cfg.identity(req); err != nil {
			return err
		}
	}
	early, _ := req.Decorator(decorator)
	if c, _ := early.(*call); c != nil {
		k.fp = c.fp
	} else {
		k.fp = newFingerprint(req) // the preParsing hook did not run
	}
	if err := k.fp.finish(req, k.cfg.maxBody); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(id + "\x00" + key))
	k.key = hex.EncodeToString(sum[:])
	rec, err := k.records.Claim(ctx, k.key, k.fp.String(), k.cfg.ttl)
	switch {
	case errors.Is(err, ErrInFlight):
		return httpx.NewError(http.StatusConflict, "IDEMPOTENCY_KEY_IN_USE", ErrInFlight.Error())
	case err != nil:
		return fmt.Errorf("claiming the Idempotency-Key: %w", err)
	case rec == nil:
		k.owned = true
		return req.SetDecorator(decorator, k)
	case rec.Fingerprint != k.fp.String():
		return httpx.NewError(http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED",
			"this Idempotency-Key was used with another request")
	case !rec.Done:
		return httpx.NewError(http.StatusConflict, "IDEMPOTENCY_KEY_IN_USE", ErrInFlight.Error())
	}
	return replay(in.Rep, rec)
}

// validKey is the key of a request's Idempotency-Key values: one value
// of 1 to 255 visible ASCII characters.
func validKey(values []string) (string, error) {
	if len(values) != 1 {
		return "", httpx.NewError(http.StatusBadRequest, "INVALID_IDEMPOTENCY_KEY", "send one Idempotency-Key header")
	}
	key := values[0]
	if key == "" || len(key) > maxKey {
		return "", httpx.NewError(http.StatusBadRequest, "INVALID_IDEMPOTENCY_KEY",
			"an Idempotency-Key is 1 to 255 visible ASCII characters")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return "", httpx.NewError(http.StatusBadRequest, "INVALID_IDEMPOTENCY_KEY",
				"an Idempotency-Key is 1 to 255 visible ASCII characters")
		}
	}
	return key, nil
}

// replay answers with a recorded answer. A header the reply has already
// is this request's (its request id, a header a hook set) and stays.
func replay(rep *httpx.Reply, rec *Record) error {
	h := rep.Header()
	for name, values := range rec.Header {
		if _, set := h[name]; !set {
			h[name] = values
		}
	}
	h.Set(ReplayedHeader, "true")
	rep.Code(rec.Status)
	return rep.Send(rec.Body)
}

// unrecorded are the headers an answer is recorded without: those of the
// connection and of the one response, and cookies, which a record must
// not hand out again.
var unrecorded = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Transfer-Encoding": true, "Trailer": true, "Upgrade": true,
	"Content-Length": true, "Date": true, "Set-Cookie": true, ReplayedHeader: true,
}

// keepAnswer is the onSend hook: it keeps the answer of a request that
// claimed its key, for the cleanup to record.
func keepAnswer(req *httpx.Request, rep *httpx.Reply, body []byte) ([]byte, error) {
	v, _ := req.Decorator(decorator)
	k, _ := v.(*call)
	if k == nil || !k.owned || k.kept {
		return body, nil
	}
	k.kept, k.status, k.body = true, rep.Status(), body
	k.header = make(http.Header)
	for name, values := range rep.Header() {
		if !unrecorded[name] {
			k.header[name] = append([]string(nil), values...)
		}
	}
	return body, nil
}

// cleanup is the call's cleanup, which runs before the request's
// transaction ends: it records the answer of a request that claimed its
// key and succeeded, and gives the key up for one that failed.
func (k *call) cleanup(failed bool) error {
	if !k.owned {
		return nil
	}
	ctx := context.WithoutCancel(k.req.Context())
	if failed {
		return k.records.Release(ctx, k.key)
	}
	rec := &Record{Fingerprint: k.fp.String(), Done: true, Status: k.status, Header: k.header, Body: k.body}
	if !k.kept {
		// An answer the send hooks do not see (a stream): its status and
		// headers are all there is to record.
		rec.Status, rec.Header = k.rep.Status(), nil
	}
	if err := k.records.Complete(ctx, k.key, rec); err != nil {
		return fmt.Errorf("recording the answer of the Idempotency-Key: %w", err)
	}
	return nil
}
