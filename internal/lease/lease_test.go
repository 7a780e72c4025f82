package lease_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/internal/lease"
)

func TestCloseWaitsForTheLeases(t *testing.T) {
	t.Parallel()
	h := lease.New()
	require.NoError(t, h.Take())
	released := make(chan struct{})
	closed := make(chan error, 1)
	go func() { closed <- h.Close(context.Background(), func() error { close(released); return nil }) }()
	select {
	case <-released:
		t.Fatal("released while a lease is open")
	default:
	}
	h.Give()
	require.NoError(t, <-closed)
	<-released
	assert.ErrorIs(t, h.Take(), lease.ErrClosed)
}

func TestCloseAfterItsContextReleasesWithTheLastLease(t *testing.T) {
	t.Parallel()
	h := lease.New()
	require.NoError(t, h.Take())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	released := make(chan struct{})
	err := h.Close(ctx, func() error { close(released); return nil })
	assert.ErrorContains(t, err, "transactions still open when the server closed (1)")
	assert.ErrorIs(t, err, context.Canceled)
	h.Give()
	<-released
	assert.NoError(t, h.Close(context.Background(), nil), "a second Close does nothing")
}

func TestCloseWithoutLeases(t *testing.T) {
	t.Parallel()
	h := lease.New()
	calls := 0
	require.NoError(t, h.Close(context.Background(), func() error { calls++; return nil }))
	assert.Equal(t, 1, calls)
}
