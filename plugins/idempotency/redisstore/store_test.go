package redisstore_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/redistest"
	"github.com/burrow-go/burrow/plugins/idempotency"
	"github.com/burrow-go/burrow/plugins/idempotency/redisstore"
)

func TestMain(m *testing.M) { apptest.Main(m) }

type mail struct {
	To string `json:"to" validate:"required"`
}

// outbox is a server whose handler "sends" mail: it counts what it sent,
// fails for "bounce…" addresses, and holds "slow…" ones until gate
// closes.
type outbox struct {
	s             *app.Server
	sent          *atomic.Int64
	gate, started chan struct{}
}

func newOutbox(t *testing.T, client *redis.Client, sent *atomic.Int64) *outbox {
	t.Helper()
	o := &outbox{s: apptest.New(t, app.WithoutRequestLogging()), sent: sent,
		gate: make(chan struct{}), started: make(chan struct{}, 1)}
	o.s.Register(idempotency.Plugin(redisstore.New(client)))
	type in struct {
		app.In
		Body mail `body:""`
	}
	app.Post(o.s, "/mail", func(_ context.Context, in in) (string, error) {
		if strings.HasPrefix(in.Body.To, "bounce") {
			return "", httpx.NewError(http.StatusBadGateway, "BOUNCED", "the mail bounced")
		}
		if strings.HasPrefix(in.Body.To, "slow") {
			o.started <- struct{}{}
			<-o.gate
		}
		return fmt.Sprintf("mail %d sent to %s", o.sent.Add(1), in.Body.To), nil
	}, app.Status(http.StatusAccepted), idempotency.Route())
	require.NoError(t, o.s.Ready())
	return o
}

func (o *outbox) post(t *testing.T, key, to string) *apptest.Response {
	return apptest.Do(t, o.s, "POST", "/mail", strings.NewReader(`{"to":"`+to+`"}`),
		"Content-Type", "application/json", idempotency.Header, key)
}

func client(t *testing.T) *redis.Client {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { c.Close() })
	return c
}

// The same key and body are replayed, another body is 422, a repeat
// while the first runs is 409, and a failure gives the key up.
func TestRecordsInRedis(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	o := newOutbox(t, client(t), &sent)

	first := o.post(t, "k1", "ann@example.com")
	require.Equal(t, http.StatusAccepted, first.StatusCode, first.Body)
	again := o.post(t, "k1", "ann@example.com")
	assert.Equal(t, http.StatusAccepted, again.StatusCode)
	assert.Equal(t, first.Body, again.Body)
	assert.Equal(t, "true", again.Header.Get(idempotency.ReplayedHeader))
	assert.Equal(t, first.Header.Get("Content-Type"), again.Header.Get("Content-Type"))
	assert.Equal(t, http.StatusUnprocessableEntity, o.post(t, "k1", "bob@example.com").StatusCode)

	assert.Equal(t, http.StatusBadGateway, o.post(t, "k2", "bounce@example.com").StatusCode)
	assert.Equal(t, http.StatusBadGateway, o.post(t, "k2", "bounce@example.com").StatusCode, "run again, not replayed")

	done := make(chan *apptest.Response, 1)
	go func() { done <- o.post(t, "k3", "slow@example.com") }()
	<-o.started
	busy := o.post(t, "k3", "slow@example.com")
	assert.Equal(t, http.StatusConflict, busy.StatusCode)
	assert.Contains(t, busy.Body, "IDEMPOTENCY_KEY_IN_USE")
	close(o.gate)
	assert.Equal(t, http.StatusAccepted, (<-done).StatusCode)
	assert.Equal(t, int64(2), sent.Load())
}

// Two instances on one Redis, the same key sent to both at once: one
// sends.
func TestTwoInstancesOneEffect(t *testing.T) {
	t.Parallel()
	c := client(t)
	var sent atomic.Int64
	a, b := newOutbox(t, c, &sent), newOutbox(t, c, &sent)
	const keys = 20
	var wg sync.WaitGroup
	for i := range keys {
		for _, o := range []*outbox{a, b} {
			wg.Go(func() {
				res := o.post(t, fmt.Sprintf("key-%d", i), fmt.Sprintf("n%d@example.com", i))
				assert.Contains(t, []int{http.StatusAccepted, http.StatusConflict}, res.StatusCode, res.Body)
			})
		}
	}
	wg.Wait()
	assert.Equal(t, int64(keys), sent.Load())
}
