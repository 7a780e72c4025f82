package pgtest_test

import (
	"net"
	"strconv"
	"testing"

	"github.com/burrow-go/burrow/internal/pgtest"
)

func TestStartServesOnLoopback(t *testing.T) {
	s := pgtest.Start(t)
	c, err := net.Dial("tcp", net.JoinHostPort(s.Host, strconv.Itoa(s.Port)))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if got, want := s.CreateDB(t, "other"), "postgres://postgres@"+net.JoinHostPort(s.Host, strconv.Itoa(s.Port))+"/other?sslmode=disable"; got != want {
		t.Fatalf("URL %q, want %q", got, want)
	}
}
