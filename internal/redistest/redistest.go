// Package redistest starts throwaway redis-server instances for tests:
// one per call, on a free port of the loopback interface, with its files
// in the test's temporary directory, stopped when the test ends.
//
// Where redis-server is not installed the test is skipped, with the
// command that installs it, unless the environment has CI set: there a
// missing server fails the test, so that CI cannot pass by skipping.
package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burrow-go/burrow/internal/testbin"
)

// Server is a running redis-server.
type Server struct {
	Addr   string // host:port
	args   []string
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts a redis-server for t.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := testbin.LookPath(t, "redis-server", "redis-server")
	dir := t.TempDir()
	for range 5 { // a free port can be taken between the probe and the start
		port := freePort(t)
		s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), args: []string{bin,
			"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
			"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"}}
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
		if s.waitReady(30 * time.Second) {
			t.Cleanup(s.stop)
			return s
		}
		s.stop()
	}
	t.Fatal("redis-server did not start")
	return nil
}

func (s *Server) start() error {
	cmd := exec.Command(s.args[0], s.args[1:]...) // #nosec G204 -- redis-server from PATH, for tests
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s.cmd, s.exited = cmd, exited
	return nil
}

// waitReady waits until the server answers PING, or it exits, for at
// most limit.
func (s *Server) waitReady(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if s.ping() {
			return true
		}
		select {
		case <-s.exited:
			return false
		case <-time.After(20 * time.Millisecond): // polling interval
		}
	}
	return false
}

func (s *Server) ping() bool {
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// Pause stops the server's process (SIGSTOP): it keeps its connections
// and answers nothing, as a server stalled by the kernel or a long
// command.
func (s *Server) Pause(t testing.TB) { t.Helper(); s.signal(t, syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume(t testing.TB) { t.Helper(); s.signal(t, syscall.SIGCONT) }

// Kill ends the server at once (SIGKILL): its connections are reset.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGKILL)
	<-s.exited
}

// Restart starts a server on the same address after Kill, empty, and
// waits until it answers.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	if !s.waitReady(30 * time.Second) {
		t.Fatal("redis-server did not restart")
	}
}

func (s *Server) signal(t testing.TB, sig syscall.Signal) {
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("redis-server: %v: %v", sig, err)
	}
}

func (s *Server) stop() {
	s.cmd.Process.Signal(syscall.SIGCONT)
	s.cmd.Process.Kill()
	<-s.exited
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// URL returns the server's address as a redis:// URL for database db.
func (s *Server) URL(db int) string { return fmt.Sprintf("redis://%s/%d", s.Addr, db) }
