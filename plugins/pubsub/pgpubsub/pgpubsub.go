// Package pgpubsub is the PostgreSQL transport of Burrow's
// publish/subscribe bus (plugins/pubsub): every instance sends its
// messages with NOTIFY on one channel and LISTENs on it, so instances
// that share a PostgreSQL database share their messages without another
// server.
//
//	pool, err := pgxpool.New(ctx, "postgres://…")
//	bus := pubsub.New(pubsub.WithTransport(pgpubsub.New(pool)))
//	s.Register(bus.Plugin())
//
// PostgreSQL's notifications are at most once for a listener that was
// disconnected, and a transaction's notifications reach the listeners in
// the order it sent them, once it commits; the transport sends each
// message in a transaction of its own, so an instance's messages arrive
// in the order it published them. A NOTIFY payload is text under 8000
// bytes: the transport encodes a message in base64 and splits one that
// does not fit into parts, sent in one transaction and put together
// again by each listener. A message is at most MaxMessage bytes.
//
// Listening holds one connection of the pool for as long as the bus
// receives; it is closed, not given back, when the bus stops.
//
// It lives in a module of its own, so that the framework's go.mod keeps
// its dependencies: github.com/jackc/pgx/v5.
package pgpubsub

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultChannel is the PostgreSQL channel the instances share.
const DefaultChannel = "burrow_pubsub"

// MaxMessage bounds a message (the bus's envelope): a larger one is not
// sent, and Publish fails with ErrTooLarge.
const MaxMessage = 1 << 20

// ErrTooLarge is Publish's error for a message over MaxMessage bytes.
var ErrTooLarge = fmt.Errorf("message over %d bytes", MaxMessage)

// partSize is the base64 text a notification carries: with its header,
// well under PostgreSQL's 8000 bytes.
const partSize = 7600

// maxParts is the number of parts of a message of MaxMessage bytes.
const maxParts = ((MaxMessage+2)/3*4 + partSize - 1) / partSize

// closeTimeout bounds closing the listening connection.
const closeTimeout = time.Second

// maxAssemblies bounds the messages in parts a listener puts together at
// once: one per sending transport is all it needs, as a transaction's
// notifications arrive together.
const maxAssemblies = 256

// Transport is the PostgreSQL transport; it implements pubsub.Transport.
type Transport struct {
	pool    *pgxpool.Pool
	channel string
	id      string        // this transport's, in the header of its parts
	seq     atomic.Uint64 // numbers its messages
}

// Option configures the transport.
type Option func(*Transport)

// Channel sets the channel the instances share (DefaultChannel):
// applications sharing a database keep apart by naming their own.
func Channel(name string) Option {
	return func(t *Transport) {
		if name != "" {
			t.channel = name
		}
	}
}

// New returns the transport of pool, which the caller closes after the
// server.
func New(pool *pgxpool.Pool, opts ...Option) *Transport {
	var id [8]byte
	_, _ = rand.Read(id[:]) // never fails (crypto/rand)
	t := &Transport{pool: pool, channel: DefaultChannel, id: hex.EncodeToString(id[:])}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Publish sends envelope on the channel: one notification, or its parts
// in one transaction.
func (t *Transport) Publish(ctx context.Context, envelope []byte) error {
	if len(envelope) > MaxMessage {
		return ErrTooLarge
	}
	text := base64.StdEncoding.EncodeToString(envelope)
	n := max(1, (len(text)+partSize-1)/partSize)
	seq := strconv.FormatUint(t.seq.Add(1), 10)
	part := func(i int) string {
		return t.id + "." + seq + "." + strconv.Itoa(i) + "." + strconv.Itoa(n) + ":" + text[i*partSize:min(len(text), (i+1)*partSize)]
	}
	const notify = "SELECT pg_notify($1, $2)"
	if n == 1 {
		_, err := t.pool.Exec(ctx, notify, t.channel, part(0))
		return err
	}
	return pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		for i := range n {
			if _, err := tx.Exec(ctx, notify, t.channel, part(i)); err != nil {
				return err
			}
		}
		return nil
	})
}

// Receive listens on the channel, on a connection of its own, and
// delivers what comes until ctx ends or the connection fails.
func (t *Transport) Receive(ctx context.Context, ready func(), deliver func([]byte)) error {
	c, err := t.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A listening connection is not given back to the pool: another
	// user of it would get the notifications.
	conn := c.Hijack()
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{t.channel}.Sanitize()); err != nil {
		return err
	}
	ready()
	parts := map[string]*assembly{}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if env, ok := put(parts, n.Payload); ok {
			deliver(env)
		}
	}
}

// assembly is a message whose parts are coming.
type assembly struct {
	seq   string
	next  int
	text  strings.Builder
	total int
}

// errPart is a notification that is not a part of ours: another
// application's on the channel, which is skipped.
var errPart = errors.New("not a part")

// put adds the part payload to parts and returns the message once it is
// whole. A part out of order drops its message.
func put(parts map[string]*assembly, payload string) ([]byte, bool) {
	from, seq, i, n, text, err := parse(payload)
	if err != nil {
		return nil, false
	}
	a := parts[from]
	if i == 0 {
		if a == nil {
			if len(parts) >= maxAssemblies {
				clear(parts) // only ever reached by a sender that stops halfway
			}
			a = &assembly{}
			parts[from] = a
		}
		a.seq, a.next, a.total = seq, 0, n
		a.text.Reset()
	}
	if a == nil || a.seq != seq || a.next != i || a.total != n {
		delete(parts, from)
		return nil, false
	}
	a.text.WriteString(text)
	a.next++
	if a.next < n {
		return nil, false
	}
	delete(parts, from)
	env, err := base64.StdEncoding.DecodeString(a.text.String())
	return env, err == nil
}

// parse reads a part: "from.seq.i.n:text".
func parse(payload string) (from, seq string, i, n int, text string, err error) {
	head, text, ok := strings.Cut(payload, ":")
	fields := strings.Split(head, ".")
	if !ok || len(fields) != 4 {
		return "", "", 0, 0, "", errPart
	}
	i, err1 := strconv.Atoi(fields[2])
	n, err2 := strconv.Atoi(fields[3])
	if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n || n > maxParts {
		return "", "", 0, 0, "", errPart
	}
	return fields[0], fields[1], i, n, text, nil
}
