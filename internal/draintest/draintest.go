// Package draintest holds a request in flight while a server closes:
// the data store plugins' tests show with it that a pool outlives the
// drain of the requests that use it.
package draintest

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/burrow-go/burrow/app"
)

// hangLimit is how long a step may take before the test calls it a hang.
const hangLimit = time.Minute

// InFlight serves s, sends POST path, and once the handler has signalled
// started, closes s: it returns when Close is draining (the listener
// refuses connections), with what will receive the request's status and
// Close's error. The handler holds the request until the test lets it
// go.
func InFlight(t *testing.T, s *app.Server, path string, started <-chan struct{}) (status <-chan int, closed <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	if err := s.Ready(); err != nil {
		t.Fatal(err)
	}
	answered := make(chan int, 1)
	go func() {
		res, err := http.Post("http://"+ln.Addr().String()+path, "", nil)
		if err != nil {
			answered <- 0
			return
		}
		res.Body.Close()
		answered <- res.StatusCode
	}()
	select {
	case <-started:
	case <-time.After(hangLimit):
		t.Fatal("the handler did not start")
	}
	done := make(chan error, 1)
	go func() {
		err := s.Close(context.Background())
		<-served
		done <- err
	}()
	for deadline := time.Now().Add(hangLimit); ; {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("Close did not begin to drain")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return answered, done
}
