// Package pgtest starts throwaway PostgreSQL clusters for tests: one per
// call, made by initdb in the test's temporary directory, listening on a
// free port of the loopback interface, stopped and removed when the test
// ends.
//
// The server binaries are looked up on PATH and under
// /usr/lib/postgresql/*/bin (Debian's postgresql package). Where they are
// missing the test is skipped, with the command that installs them,
// unless the environment has CI set: there it fails, so that CI cannot
// pass by skipping. PostgreSQL refuses to run as root; run as root, the
// cluster runs as the postgres user the Debian package creates.
package pgtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/burrow-go/burrow/internal/testbin"
)

// Server is a running PostgreSQL cluster whose superuser is postgres,
// trusted on the loopback interface (no password).
type Server struct {
	Host string
	Port int
	bin  string
	dir  string
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan struct{}
}

// URL returns the URL of database db on the cluster, for pgx and
// database/sql.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), db)
}

// ErrNotInstalled is Launch's error where the server binaries are
// missing.
var ErrNotInstalled = errors.New("PostgreSQL is not installed: apt-get install -y postgresql")

func binDir() (string, error) {
	// initdb may be a link (some images link it into /usr/local/bin):
	// the other binaries are beside its target.
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if _, err := os.Stat(filepath.Join(filepath.Dir(real), "pg_isready")); err == nil {
				return filepath.Dir(real), nil
			}
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", ErrNotInstalled
}

// Start starts a cluster for t, stopped when t ends, with one database
// "test" besides the default ones. Where PostgreSQL is missing, t is
// skipped, or failed when the environment has CI set.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := Launch(t.TempDir())
	if errors.Is(err, ErrNotInstalled) {
		testbin.Missing(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Launch starts a cluster in dir (which it fills), for a TestMain that
// shares one between tests; Stop ends it.
func Launch(dir string) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &Server{Host: "127.0.0.1", bin: bin, dir: filepath.Join(dir, "data")}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, PostgreSQL needs the postgres user: %w", err)
		}
		uid, err := strconv.ParseUint(u.Uid, 10, 32)
		if err != nil {
			return nil, err
		}
		gid, err := strconv.ParseUint(u.Gid, 10, 32)
		if err != nil {
			return nil, err
		}
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)} // #nosec G115 -- parsed as 32-bit
		if err := os.Chown(dir, int(uid), int(gid)); err != nil {
			return nil, err
		}
		// The directories above must be searchable by postgres.
		for d := filepath.Dir(dir); d != "/" && d != "."; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
				os.Chmod(d, fi.Mode().Perm()|0o011)
			}
		}
	}
	if out, err := s.command("initdb", "-D", s.dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	logName := filepath.Join(dir, "postgres.log")
	for range 5 { // a free port can be taken between the probe and the start
		if s.Port, err = freePort(); err != nil {
			return nil, err
		}
		s.cmd = s.command("postgres", "-D", s.dir, "-p", strconv.Itoa(s.Port), "-c", "listen_addresses=127.0.0.1",
			"-c", "unix_socket_directories=", "-c", "fsync=off", "-c", "synchronous_commit=off",
			"-c", "full_page_writes=off", "-c", "max_connections=200")
		log, err := os.Create(logName) // #nosec G304 -- the cluster's log, in the caller's directory
		if err != nil {
			return nil, err
		}
		s.cmd.Stdout, s.cmd.Stderr = log, log
		if err := s.cmd.Start(); err != nil {
			return nil, err
		}
		s.done = make(chan struct{})
		go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); log.Close(); close(done) }(s.cmd, s.done)
		if s.waitReady(30 * time.Second) {
			if err := s.createDB("test"); err != nil {
				s.Stop()
				return nil, err
			}
			return s, nil
		}
		s.Stop()
	}
	b, _ := os.ReadFile(logName) // #nosec G304 -- the cluster's log, in the caller's directory
	return nil, fmt.Errorf("postgres did not start:\n%s", b)
}

// CreateDB creates database name on the cluster and returns its URL.
func (s *Server) CreateDB(t testing.TB, name string) string {
	t.Helper()
	if err := s.createDB(name); err != nil {
		t.Fatal(err)
	}
	return s.URL(name)
}

func (s *Server) createDB(name string) error {
	if out, err := s.command("createdb", "-h", s.Host, "-p", strconv.Itoa(s.Port), "-U", "postgres", name).CombinedOutput(); err != nil {
		return fmt.Errorf("createdb %s: %w\n%s", name, err, out)
	}
	return nil
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...) // #nosec G204 -- PostgreSQL's own binaries, for tests
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	cmd.Dir = "/"
	return cmd
}

// waitReady waits until pg_isready says the server accepts connections,
// or the server exits, for at most limit.
func (s *Server) waitReady(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if s.command("pg_isready", "-q", "-h", s.Host, "-p", strconv.Itoa(s.Port)).Run() == nil {
			return true
		}
		select {
		case <-s.done:
			return false
		case <-time.After(50 * time.Millisecond): // polling interval
		}
	}
	return false
}

// Stop ends the cluster at once; its data is thrown away.
func (s *Server) Stop() {
	s.cmd.Process.Signal(syscall.SIGQUIT) // immediate shutdown: the data is thrown away
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
