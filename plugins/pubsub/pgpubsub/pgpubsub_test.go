package pgpubsub_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/internal/pgtest"
	"github.com/burrow-go/burrow/plugins/pubsub"
	"github.com/burrow-go/burrow/plugins/pubsub/pgpubsub"
)

// hangLimit turns a message that never comes into a failure.
const hangLimit = 30 * time.Second

func newPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// listen runs tr's Receive until the test ends and returns what it
// delivers, once it listens.
func listen(t *testing.T, tr *pgpubsub.Transport) <-chan []byte {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan []byte, 1000)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- tr.Receive(ctx, func() { close(ready) }, func(b []byte) { got <- b }) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done, "Receive's answer once its context ended")
	})
	select {
	case <-ready:
	case err := <-done:
		done <- err
		require.FailNow(t, "Receive ended before listening", "%v", err)
	}
	return got
}

func next(t *testing.T, got <-chan []byte) []byte {
	t.Helper()
	select {
	case b := <-got:
		return b
	case <-time.After(hangLimit):
		require.FailNow(t, "no message came")
	}
	return nil
}

// TestTransportCarriesMessagesBetweenInstances: two transports on one
// database; what one publishes, both receive, in order — a message too
// long for one notification too, put together again — and another
// application's notification on the channel is skipped.
func TestTransportCarriesMessagesBetweenInstances(t *testing.T) {
	t.Parallel()
	url := pgtest.Start(t).URL("postgres")
	a, b := newPool(t, url), newPool(t, url)
	ta, tb := pgpubsub.New(a), pgpubsub.New(b)
	gotA, gotB := listen(t, ta), listen(t, tb)
	ctx := context.Background()

	big := bytes.Repeat([]byte("0123456789\n\x00\xff"), 10000) // 130 kB, binary
	msgs := [][]byte{[]byte("one"), {}, big, []byte("last")}
	for _, m := range msgs {
		require.NoError(t, ta.Publish(ctx, m))
	}
	_, err := a.Exec(ctx, "SELECT pg_notify('burrow_pubsub', 'not ours')")
	require.NoError(t, err)
	_, err = a.Exec(ctx, "SELECT pg_notify('burrow_pubsub', 'x.1.0.2:QUJD')") // a first part whose second never comes
	require.NoError(t, err)
	require.NoError(t, tb.Publish(ctx, []byte("from b")))
	for _, got := range []<-chan []byte{gotA, gotB} {
		for _, m := range msgs {
			assert.Equal(t, m, next(t, got))
		}
		assert.Equal(t, "from b", string(next(t, got)), "the others skipped")
	}

	assert.ErrorIs(t, ta.Publish(ctx, make([]byte, pgpubsub.MaxMessage+1)), pgpubsub.ErrTooLarge)
}

// TestChannelKeepsApplicationsApart: transports on other channels do
// not hear each other.
func TestChannelKeepsApplicationsApart(t *testing.T) {
	t.Parallel()
	url := pgtest.Start(t).URL("postgres")
	pool := newPool(t, url)
	one, two := pgpubsub.New(pool, pgpubsub.Channel("one")), pgpubsub.New(pool, pgpubsub.Channel("Two Words"))
	gotOne, gotTwo := listen(t, one), listen(t, two)
	ctx := context.Background()
	require.NoError(t, one.Publish(ctx, []byte("for one")))
	require.NoError(t, two.Publish(ctx, []byte("for two")))
	assert.Equal(t, "for one", string(next(t, gotOne)))
	assert.Equal(t, "for two", string(next(t, gotTwo)))
}

// TestBusesShareADatabase: buses on one database deliver each other's
// messages to their subscribers.
func TestBusesShareADatabase(t *testing.T) {
	t.Parallel()
	url := pgtest.Start(t).URL("postgres")
	var buses []*pubsub.Bus
	for range 2 {
		b := pubsub.New(pubsub.WithTransport(pgpubsub.New(newPool(t, url))))
		b.Start()
		t.Cleanup(b.Stop) // before the pool closes: cleanups run last first
		buses = append(buses, b)
	}
	sub := buses[1].Subscribe("room")
	defer sub.Close()
	// The other bus listens once it has started, which nothing shows:
	// publish until a message comes.
	deadline := time.Now().Add(hangLimit)
	for i := 0; ; i++ {
		require.True(t, time.Now().Before(deadline), "no message came")
		buses[0].Publish("room", fmt.Appendf(nil, "hello %d", i))
		select {
		case m := <-sub.C:
			assert.True(t, strings.HasPrefix(string(m.Data), "hello "), "%s", m.Data)
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}
