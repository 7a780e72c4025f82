package redispubsub_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/internal/redistest"
	"github.com/burrow-go/burrow/plugins/pubsub"
	"github.com/burrow-go/burrow/plugins/pubsub/redispubsub"
)

const hangLimit = 10 * time.Second

// instance is one server's bus on the shared Redis, with its logs.
type instance struct {
	bus  *pubsub.Bus
	logs *observer.ObservedLogs
}

func newInstance(t *testing.T, addr string) *instance {
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second})
	core, logs := observer.New(zapcore.InfoLevel)
	b := pubsub.New(pubsub.WithTransport(redispubsub.New(rdb)), pubsub.Logger(zap.New(core)))
	b.Start()
	t.Cleanup(func() { b.Stop(); rdb.Close() })
	return &instance{bus: b, logs: logs}
}

// reaches reports whether a message published on from comes to a
// subscriber on to within a short wait; Eventually polls it.
func reaches(from, to *pubsub.Bus) bool {
	sub := to.Subscribe("probe")
	defer sub.Close()
	from.Publish("probe", nil)
	select {
	case <-sub.C:
		return true
	case <-time.After(20 * time.Millisecond): // polled again
		return false
	}
}

func next(t *testing.T, sub *pubsub.Subscription) string {
	t.Helper()
	select {
	case m, ok := <-sub.C:
		require.True(t, ok, "the subscription ended: %v", sub.Err())
		return string(m.Data)
	case <-time.After(hangLimit):
		t.Fatal("no message came")
	}
	return ""
}

func warnings(i *instance) int { return i.logs.FilterLevelExact(zapcore.WarnLevel).Len() }

func TestAMessageReachesEveryInstanceInOrder(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	one, two := newInstance(t, srv.Addr), newInstance(t, srv.Addr)
	require.Eventually(t, func() bool { return reaches(one.bus, two.bus) && reaches(two.bus, one.bus) }, hangLimit, time.Millisecond)
	local, remote := one.bus.Subscribe("todos"), two.bus.Subscribe("todos")
	for i := range 20 {
		one.bus.Publish("todos", fmt.Appendf(nil, "%d", i))
	}
	for i := range 20 {
		assert.Equal(t, fmt.Sprint(i), next(t, local))
		assert.Equal(t, fmt.Sprint(i), next(t, remote))
	}
	assert.Empty(t, local.C, "no echo of its own messages")
}

// TestARedisOutageStopsCrossInstanceDeliveryOnly: with Redis gone, each
// instance still delivers its own messages, and says once that the
// others are cut off; when Redis is back, delivery between them resumes.
func TestARedisOutageStopsCrossInstanceDeliveryOnly(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	one, two := newInstance(t, srv.Addr), newInstance(t, srv.Addr)
	require.Eventually(t, func() bool { return reaches(one.bus, two.bus) }, hangLimit, time.Millisecond)

	srv.Kill(t)
	local, remote := one.bus.Subscribe("todos"), two.bus.Subscribe("todos")
	for i := range 50 {
		one.bus.Publish("todos", fmt.Appendf(nil, "%d", i))
		assert.Equal(t, fmt.Sprint(i), next(t, local), "local delivery goes on")
	}
	require.Eventually(t, func() bool { return warnings(one) == 1 && warnings(two) == 1 }, hangLimit, time.Millisecond)
	assert.Equal(t, "publish/subscribe: cross-instance delivery stopped; local delivery goes on",
		one.logs.FilterLevelExact(zapcore.WarnLevel).All()[0].Message)
	require.Eventually(t, func() bool { return one.bus.Stats().Lost > 0 }, hangLimit, time.Millisecond)
	assert.Empty(t, remote.C, "nothing crossed while Redis was down")

	srv.Restart(t)
	require.Eventually(t, func() bool { return reaches(one.bus, two.bus) && reaches(two.bus, one.bus) }, 3*hangLimit, 10*time.Millisecond)
	assert.Equal(t, 1, warnings(one), "one warning for the outage, not one a message")
	assert.Equal(t, 1, warnings(two))
	assert.Equal(t, 1, one.logs.FilterMessage("publish/subscribe: cross-instance delivery resumed").Len())
}
