package pubsub_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/plugins/pubsub"
)

const hangLimit = 10 * time.Second

// next receives the next message of sub, failing when none comes.
func next(t *testing.T, sub *pubsub.Subscription) pubsub.Message {
	t.Helper()
	select {
	case m, ok := <-sub.C:
		require.True(t, ok, "the subscription ended: %v", sub.Err())
		return m
	case <-time.After(hangLimit):
		t.Fatal("no message came")
	}
	return pubsub.Message{}
}

func TestLocalDeliveryIsInOrderToEverySubscriberOfTheTopic(t *testing.T) {
	t.Parallel()
	b := pubsub.New()
	a1, a2, other := b.Subscribe("a"), b.Subscribe("a"), b.Subscribe("b")
	for i := range 10 {
		b.Publish("a", fmt.Appendf(nil, "%d", i))
	}
	for _, sub := range []*pubsub.Subscription{a1, a2} {
		for i := range 10 {
			assert.Equal(t, fmt.Sprint(i), string(next(t, sub).Data))
		}
	}
	assert.Empty(t, other.C)
	a1.Close()
	_, open := <-a1.C
	assert.False(t, open)
	assert.NoError(t, a1.Err())
	b.Publish("a", []byte("after"))
	assert.Equal(t, "after", string(next(t, a2).Data))
	assert.Equal(t, pubsub.Stats{Published: 11, Delivered: 21}, b.Stats())
}

func TestASlowSubscriberIsDroppedAndCounted(t *testing.T) {
	t.Parallel()
	b := pubsub.New(pubsub.Buffer(2))
	slow, fast := b.Subscribe("t"), b.Subscribe("t")
	for i := range 3 {
		b.Publish("t", []byte{byte('0' + i)})
		assert.Equal(t, string(rune('0'+i)), string(next(t, fast).Data))
	}
	// slow kept its two first messages and was dropped at the third,
	// rather than miss it silently.
	assert.Equal(t, "0", string(next(t, slow).Data))
	assert.Equal(t, "1", string(next(t, slow).Data))
	_, open := <-slow.C
	assert.False(t, open)
	assert.ErrorIs(t, slow.Err(), pubsub.ErrSlowSubscriber)
	assert.Equal(t, uint64(1), b.Stats().Dropped)
}

func TestMessagesReachTheSubscribersOfOtherBusesOnceEach(t *testing.T) {
	t.Parallel()
	link := pubsub.NewMemory()
	one, two := pubsub.New(pubsub.WithTransport(link)), pubsub.New(pubsub.WithTransport(link))
	sub1, sub2 := one.Subscribe("news"), two.Subscribe("news")
	one.Start()
	two.Start()
	t.Cleanup(one.Stop)
	t.Cleanup(two.Stop)
	require.Eventually(t, func() bool { return receiving(one, two) && receiving(two, one) }, hangLimit, time.Millisecond)
	for i := range 5 {
		one.Publish("news", fmt.Appendf(nil, "from one %d", i))
	}
	for i := range 5 {
		assert.Equal(t, fmt.Sprintf("from one %d", i), string(next(t, sub1).Data), "local")
		assert.Equal(t, fmt.Sprintf("from one %d", i), string(next(t, sub2).Data), "remote, in order")
	}
	two.Publish("news", []byte("from two"))
	assert.Equal(t, "from two", string(next(t, sub1).Data))
	assert.Equal(t, "from two", string(next(t, sub2).Data))
	assert.Empty(t, sub1.C, "no echo of its own messages")
	assert.Empty(t, sub2.C)
}

// receiving reports whether a message published on from reaches a
// subscriber on to.
func receiving(to, from *pubsub.Bus) bool {
	sub := to.Subscribe("probe-reply")
	defer sub.Close()
	from.Publish("probe-reply", nil)
	select {
	case <-sub.C:
		return true
	case <-time.After(10 * time.Millisecond): // polled again by Eventually
		return false
	}
}

func TestPluginProvidesTheBusToHandlers(t *testing.T) {
	t.Parallel()
	b := pubsub.New()
	s := apptest.New(t)
	require.NoError(t, s.Register(b.Plugin()))
	sub := b.Subscribe("todos")
	require.NoError(t, app.Post(s, "/todos", func(_ context.Context, in struct {
		app.In
		Bus *pubsub.Bus
	}) (app.NoContent, error) {
		in.Bus.Publish("todos", []byte("created"))
		return app.NoContent{}, nil
	}))
	assert.Equal(t, 204, apptest.Do(t, s, "POST", "/todos", nil).StatusCode)
	assert.Equal(t, "created", string(next(t, sub).Data))
}
