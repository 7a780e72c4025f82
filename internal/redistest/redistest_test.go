package redistest_test

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/burrow-go/burrow/internal/redistest"
)

func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	c.Write([]byte("PING\r\n"))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// answers waits until the server at addr answers PING: a server just
// resumed may first work through what queued while it was stopped, and a
// loaded machine may take longer than one ping's half second.
func answers(addr string) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if ping(addr) {
			return true
		}
	}
	return false
}

func TestStartPauseKillRestart(t *testing.T) {
	s := redistest.Start(t)
	if !answers(s.Addr) {
		t.Fatal("no PONG after Start")
	}
	s.Pause(t)
	if ping(s.Addr) {
		t.Fatal("a paused server answered")
	}
	s.Resume(t)
	if !answers(s.Addr) {
		t.Fatal("no PONG after Resume")
	}
	s.Kill(t)
	if ping(s.Addr) {
		t.Fatal("a killed server answered")
	}
	s.Restart(t)
	if !answers(s.Addr) {
		t.Fatal("no PONG after Restart")
	}
}
